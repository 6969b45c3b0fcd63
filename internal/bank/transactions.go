package bank

import (
	"context"
	"fmt"
	"iter"
	"net/http"
	"net/url"
	"time"

	gojson "github.com/goccy/go-json"
)

// TransactionFilter narrows a transaction list. Zero values are unset.
type TransactionFilter struct {
	AccountID string // list /accounts/{id}/transactions instead of /transactions
	Status    string // HELD or SETTLED
	Category  string // category id, parent or child
	Tag       string // tag label
	Since     time.Time
	Until     time.Time
}

// TransactionsURL returns the absolute URL of the first page of the list
// that f selects. Since and Until keep their offset; url encoding sends a
// '+' as %2B, as the API requires.
func (c *Client) TransactionsURL(f TransactionFilter) string {
	q := c.pageQuery()
	if f.Status != "" {
		q.Set("filter[status]", f.Status)
	}
	if f.Category != "" {
		q.Set("filter[category]", f.Category)
	}
	if f.Tag != "" {
		q.Set("filter[tag]", f.Tag)
	}
	if !f.Since.IsZero() {
		q.Set("filter[since]", f.Since.Format(time.RFC3339))
	}
	if !f.Until.IsZero() {
		q.Set("filter[until]", f.Until.Format(time.RFC3339))
	}
	path := "/transactions"
	if f.AccountID != "" {
		path = "/accounts/" + url.PathEscape(f.AccountID) + "/transactions"
	}
	return c.endpoint(path, q)
}

// TransactionsPage fetches one page of transactions by absolute URL: the
// first page's URL or a Page.Next as given. A URL outside the base URL's
// scheme and host is refused.
func (c *Client) TransactionsPage(ctx context.Context, pageURL string) (Page[Transaction], error) {
	var p Page[Transaction]
	var at time.Time
	err := c.do(ctx, request{method: http.MethodGet, url: pageURL, sent: &at}, func(_ int, body []byte) error {
		var err error
		p, err = decodePage(body, "transaction", parseTransaction)
		for i := range p.Data {
			p.Data[i].FetchedAt = at
		}
		return err
	})
	if err != nil {
		return Page[Transaction]{}, fmt.Errorf("transactions page: %w", err)
	}
	return p, nil
}

// TransactionsPageSparse is TransactionsPage that fully decodes only the
// transactions want accepts; the others carry only their ID and CreatedAt
// (and no Raw). A page is decoded several times faster when few of its
// transactions are wanted, as when looking for the ones some events name.
func (c *Client) TransactionsPageSparse(ctx context.Context, pageURL string, want func(id string) bool) (Page[Transaction], error) {
	var p Page[Transaction]
	var at time.Time
	err := c.do(ctx, request{method: http.MethodGet, url: pageURL, sent: &at}, func(_ int, body []byte) error {
		var err error
		p, err = decodePage(body, "transaction", func(raw []byte, owned bool) (Transaction, error) {
			var head struct {
				ID         string `json:"id"`
				Attributes struct {
					CreatedAt string `json:"createdAt"`
				} `json:"attributes"`
			}
			if err := unmarshalOwned(raw, &head, false); err != nil {
				return Transaction{}, decodeError("transaction", err)
			}
			if head.ID == "" {
				return Transaction{}, missing("transaction", "id")
			}
			if !want(head.ID) {
				return Transaction{ID: head.ID, CreatedAt: head.Attributes.CreatedAt}, nil
			}
			t, err := parseTransaction(raw, owned)
			t.FetchedAt = at
			return t, err
		})
		return err
	})
	if err != nil {
		return Page[Transaction]{}, fmt.Errorf("transactions page: %w", err)
	}
	return p, nil
}

// Transactions iterates over every transaction f selects, following pages.
// On error it yields a zero Transaction with the error and stops.
func (c *Client) Transactions(ctx context.Context, f TransactionFilter) iter.Seq2[Transaction, error] {
	return func(yield func(Transaction, error) bool) {
		for p, err := range Pages(ctx, c.TransactionsURL(f), c.TransactionsPage) {
			if err != nil {
				yield(Transaction{}, fmt.Errorf("transactions: %w", err))
				return
			}
			for _, t := range p.Data {
				if !yield(t, nil) {
					return
				}
			}
		}
	}
}

// Transaction fetches one transaction.
func (c *Client) Transaction(ctx context.Context, id string) (Transaction, error) {
	var t Transaction
	var at time.Time
	r := c.get("/transactions/"+url.PathEscape(id), nil)
	r.sent = &at
	err := c.do(ctx, r, func(_ int, body []byte) error {
		var err error
		t, err = decodeSingle(body, "transaction", parseTransaction)
		t.FetchedAt = at
		return err
	})
	if err != nil {
		return Transaction{}, fmt.Errorf("get transaction: %w", err)
	}
	return t, nil
}

// SetCategory sets a transaction's category; nil removes it.
func (c *Client) SetCategory(ctx context.Context, txID string, categoryID *string) error {
	var body struct {
		Data *Identifier `json:"data"`
	}
	if categoryID != nil {
		body.Data = &Identifier{Type: "categories", ID: *categoryID}
	}
	path := "/transactions/" + url.PathEscape(txID) + "/relationships/category"
	if err := c.sendJSON(ctx, http.MethodPatch, path, body, false); err != nil {
		return fmt.Errorf("set category: %w", err)
	}
	return nil
}

// AddTags adds tags (labels) to a transaction.
func (c *Client) AddTags(ctx context.Context, txID string, tags []string) error {
	if err := c.tags(ctx, http.MethodPost, txID, tags); err != nil {
		return fmt.Errorf("add tags: %w", err)
	}
	return nil
}

// RemoveTags removes tags (labels) from a transaction.
func (c *Client) RemoveTags(ctx context.Context, txID string, tags []string) error {
	if err := c.tags(ctx, http.MethodDelete, txID, tags); err != nil {
		return fmt.Errorf("remove tags: %w", err)
	}
	return nil
}

func (c *Client) tags(ctx context.Context, method, txID string, tags []string) error {
	var body struct {
		Data []Identifier `json:"data"`
	}
	body.Data = make([]Identifier, len(tags))
	for i, t := range tags {
		body.Data[i] = Identifier{Type: "tags", ID: t}
	}
	// Adding a tag twice is the same as once (the spec: duplicates are
	// silently ignored), so the POST is retried like the DELETE.
	return c.sendJSON(ctx, method, "/transactions/"+url.PathEscape(txID)+"/relationships/tags", body, true)
}

// get is a GET request of a path below the base URL.
func (c *Client) get(path string, q url.Values) request {
	return request{method: http.MethodGet, url: c.endpoint(path, q)}
}

// sendJSON sends a JSON body to a path and expects an answer without content
// to decode (204). repeatable: see request.repeatable.
func (c *Client) sendJSON(ctx context.Context, method, path string, v any, repeatable bool) error {
	body, err := gojson.Marshal(v)
	if err != nil {
		return fmt.Errorf("encode body: %w", err)
	}
	return c.do(ctx, request{method: method, url: c.endpoint(path, nil), body: body, repeatable: repeatable}, nil)
}
