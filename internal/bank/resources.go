package bank

import (
	"context"
	"fmt"
	"net/http"
	"net/url"

	"github.com/bankmirror/bankmirror/internal/ptr"
)

// listAll fetches first and every page after it, following links.next.
func listAll[T any](ctx context.Context, c *Client, first, kind string, parse func([]byte, bool) (T, error)) ([]T, error) {
	var all []T
	page := func(ctx context.Context, pageURL string) (Page[T], error) {
		var p Page[T]
		err := c.do(ctx, request{method: http.MethodGet, url: pageURL}, func(_ int, body []byte) error {
			var err error
			p, err = decodePage(body, kind, parse)
			return err
		})
		return p, err
	}
	for p, err := range Pages(ctx, first, page) {
		if err != nil {
			return nil, err
		}
		if all == nil {
			all = p.Data
		} else {
			all = append(all, p.Data...)
		}
	}
	if all == nil {
		all = []T{}
	}
	return all, nil
}

// getOne fetches a single-resource document.
func getOne[T any](ctx context.Context, c *Client, path, kind string, parse func([]byte, bool) (T, error)) (T, error) {
	var v T
	err := c.do(ctx, c.get(path, nil), func(_ int, body []byte) error {
		var err error
		v, err = decodeSingle(body, kind, parse)
		return err
	})
	return v, err
}

// Ping checks the token (GET /util/ping).
func (c *Client) Ping(ctx context.Context) (Ping, error) {
	var p Ping
	err := c.do(ctx, c.get("/util/ping", nil), func(_ int, body []byte) error {
		var doc struct {
			Meta struct {
				ID          string `json:"id"`
				StatusEmoji string `json:"statusEmoji"`
			} `json:"meta"`
		}
		if err := unmarshalOwned(body, &doc, false); err != nil {
			return decodeError("ping", err)
		}
		if doc.Meta.ID == "" {
			return missing("ping", "meta.id")
		}
		p = Ping{ID: doc.Meta.ID, StatusEmoji: doc.Meta.StatusEmoji}
		return nil
	})
	if err != nil {
		return Ping{}, fmt.Errorf("ping: %w", err)
	}
	return p, nil
}

// Accounts lists every account, following pages.
func (c *Client) Accounts(ctx context.Context) ([]Account, error) {
	a, err := listAll(ctx, c, c.endpoint("/accounts", c.pageQuery()), "account", parseAccount)
	if err != nil {
		return nil, fmt.Errorf("list accounts: %w", err)
	}
	return a, nil
}

// Account fetches one account.
func (c *Client) Account(ctx context.Context, id string) (Account, error) {
	a, err := getOne(ctx, c, "/accounts/"+url.PathEscape(id), "account", parseAccount)
	if err != nil {
		return Account{}, fmt.Errorf("get account: %w", err)
	}
	return a, nil
}

// Categories lists every category (the list is not paginated; a next link
// would still be followed).
func (c *Client) Categories(ctx context.Context) ([]Category, error) {
	cs, err := listAll(ctx, c, c.endpoint("/categories", nil), "category", parseCategory)
	if err != nil {
		return nil, fmt.Errorf("list categories: %w", err)
	}
	return cs, nil
}

// Tags lists every tag in use, following pages.
func (c *Client) Tags(ctx context.Context) ([]Tag, error) {
	t, err := listAll(ctx, c, c.endpoint("/tags", c.pageQuery()), "tag", parseTag)
	if err != nil {
		return nil, fmt.Errorf("list tags: %w", err)
	}
	return t, nil
}

// AttachmentsURL is the first page of the attachment list.
func (c *Client) AttachmentsURL() string { return c.endpoint("/attachments", c.pageQuery()) }

// AttachmentsPage fetches one page of attachments by absolute URL.
func (c *Client) AttachmentsPage(ctx context.Context, pageURL string) (Page[Attachment], error) {
	var p Page[Attachment]
	err := c.do(ctx, request{method: http.MethodGet, url: pageURL}, func(_ int, body []byte) error {
		var err error
		p, err = decodePage(body, "attachment", parseAttachment)
		return err
	})
	if err != nil {
		return Page[Attachment]{}, fmt.Errorf("attachments page: %w", err)
	}
	return p, nil
}

// Attachment fetches one attachment, with a fresh download link.
func (c *Client) Attachment(ctx context.Context, id string) (Attachment, error) {
	var a Attachment
	err := c.do(ctx, c.get("/attachments/"+url.PathEscape(id), nil), func(_ int, body []byte) error {
		var err error
		a, err = decodeSingle(body, "attachment", parseAttachment)
		return err
	})
	if err != nil {
		return Attachment{}, fmt.Errorf("get attachment: %w", err)
	}
	return a, nil
}

// Attachments lists every attachment, following pages.
func (c *Client) Attachments(ctx context.Context) ([]Attachment, error) {
	a, err := listAll(ctx, c, c.endpoint("/attachments", c.pageQuery()), "attachment", parseAttachment)
	if err != nil {
		return nil, fmt.Errorf("list attachments: %w", err)
	}
	return a, nil
}

type accountWire struct {
	Type       string  `json:"type"`
	ID         *string `json:"id"`
	Attributes struct {
		DisplayName   string `json:"displayName"`
		AccountType   string `json:"accountType"`
		OwnershipType string `json:"ownershipType"`
		Balance       *Money `json:"balance"`
		CreatedAt     string `json:"createdAt"`
	} `json:"attributes"`
}

func parseAccount(raw []byte, owned bool) (Account, error) {
	const kind = "account"
	var w accountWire
	if err := unmarshalOwned(raw, &w, owned); err != nil {
		return Account{}, decodeError(kind, err)
	}
	if err := checkResource(kind, "accounts", w.Type, w.ID); err != nil {
		return Account{}, err
	}
	a := &w.Attributes
	switch {
	case a.AccountType == "":
		return Account{}, missing(kind, "attributes.accountType")
	case a.Balance == nil:
		return Account{}, missing(kind, "attributes.balance")
	}
	return Account{
		ID:            *w.ID,
		DisplayName:   a.DisplayName,
		AccountType:   a.AccountType,
		OwnershipType: a.OwnershipType,
		Balance:       *a.Balance,
		CreatedAt:     a.CreatedAt,
		Raw:           keep(raw, owned),
	}, nil
}

type categoryWire struct {
	Type       string  `json:"type"`
	ID         *string `json:"id"`
	Attributes struct {
		Name string `json:"name"`
	} `json:"attributes"`
	Relationships struct {
		Parent   ident  `json:"parent"`
		Children idents `json:"children"`
	} `json:"relationships"`
}

func parseCategory(raw []byte, owned bool) (Category, error) {
	const kind = "category"
	var w categoryWire
	if err := unmarshalOwned(raw, &w, owned); err != nil {
		return Category{}, decodeError(kind, err)
	}
	if err := checkResource(kind, "categories", w.Type, w.ID); err != nil {
		return Category{}, err
	}
	c := Category{
		ID:       *w.ID,
		Name:     w.Attributes.Name,
		ParentID: w.Relationships.Parent.id(),
		Raw:      keep(raw, owned),
	}
	if n := len(w.Relationships.Children.Data); n > 0 {
		c.Children = make([]string, n)
		for i, id := range w.Relationships.Children.Data {
			c.Children[i] = id.ID
		}
	}
	return c, nil
}

type tagWire struct {
	Type string  `json:"type"`
	ID   *string `json:"id"`
}

func parseTag(raw []byte, owned bool) (Tag, error) {
	var w tagWire
	if err := unmarshalOwned(raw, &w, owned); err != nil {
		return Tag{}, decodeError("tag", err)
	}
	if err := checkResource("tag", "tags", w.Type, w.ID); err != nil {
		return Tag{}, err
	}
	return Tag{ID: *w.ID, Raw: keep(raw, owned)}, nil
}

type attachmentWire struct {
	Type       string  `json:"type"`
	ID         *string `json:"id"`
	Attributes struct {
		CreatedAt        *string `json:"createdAt"`
		FileURL          *string `json:"fileURL"`
		FileURLExpiresAt string  `json:"fileURLExpiresAt"`
		FileExtension    *string `json:"fileExtension"`
		FileContentType  *string `json:"fileContentType"`
	} `json:"attributes"`
	Relationships struct {
		Transaction ident `json:"transaction"`
	} `json:"relationships"`
}

func parseAttachment(raw []byte, owned bool) (Attachment, error) {
	const kind = "attachment"
	var w attachmentWire
	if err := unmarshalOwned(raw, &w, owned); err != nil {
		return Attachment{}, decodeError(kind, err)
	}
	if err := checkResource(kind, "attachments", w.Type, w.ID); err != nil {
		return Attachment{}, err
	}
	a := &w.Attributes
	return Attachment{
		ID:               *w.ID,
		CreatedAt:        a.CreatedAt,
		FileURL:          a.FileURL,
		FileURLExpiresAt: a.FileURLExpiresAt,
		FileExtension:    a.FileExtension,
		FileContentType:  a.FileContentType,
		TransactionID:    ptr.Value(w.Relationships.Transaction.id()),
		Raw:              keep(raw, owned),
	}, nil
}
