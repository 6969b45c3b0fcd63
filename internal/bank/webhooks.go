package bank

import (
	"context"
	"fmt"
	"net/http"
	"net/url"

	gojson "github.com/goccy/go-json"

	"github.com/bankmirror/bankmirror/internal/ptr"
)

// CreateWebhook registers webhookURL; the returned Webhook carries the SecretKey,
// which the API never returns again.
func (c *Client) CreateWebhook(ctx context.Context, webhookURL string, description *string) (Webhook, error) {
	var body struct {
		Data struct {
			Attributes struct {
				URL         string  `json:"url"`
				Description *string `json:"description,omitempty"`
			} `json:"attributes"`
		} `json:"data"`
	}
	body.Data.Attributes.URL = webhookURL
	body.Data.Attributes.Description = description
	b, err := gojson.Marshal(body)
	if err != nil {
		return Webhook{}, fmt.Errorf("create webhook: encode body: %w", err)
	}
	var w Webhook
	err = c.do(ctx, request{method: http.MethodPost, url: c.endpoint("/webhooks", nil), body: b}, func(_ int, body []byte) error {
		var err error
		w, err = decodeSingle(body, "webhook", parseWebhook)
		return err
	})
	if err != nil {
		return Webhook{}, fmt.Errorf("create webhook: %w", err)
	}
	return w, nil
}

// Webhooks lists every webhook, following pages.
func (c *Client) Webhooks(ctx context.Context) ([]Webhook, error) {
	w, err := listAll(ctx, c, c.endpoint("/webhooks", c.pageQuery()), "webhook", parseWebhook)
	if err != nil {
		return nil, fmt.Errorf("list webhooks: %w", err)
	}
	return w, nil
}

// Webhook fetches one webhook (without its secret key).
func (c *Client) Webhook(ctx context.Context, id string) (Webhook, error) {
	w, err := getOne(ctx, c, "/webhooks/"+url.PathEscape(id), "webhook", parseWebhook)
	if err != nil {
		return Webhook{}, fmt.Errorf("get webhook: %w", err)
	}
	return w, nil
}

// DeleteWebhook deletes a webhook; events stop being sent to its URL.
func (c *Client) DeleteWebhook(ctx context.Context, id string) error {
	r := request{method: http.MethodDelete, url: c.endpoint("/webhooks/"+url.PathEscape(id), nil)}
	if err := c.do(ctx, r, nil); err != nil {
		return fmt.Errorf("delete webhook: %w", err)
	}
	return nil
}

// PingWebhook asks the API to send a PING event to the webhook and returns
// that event.
func (c *Client) PingWebhook(ctx context.Context, id string) (WebhookEvent, error) {
	var e WebhookEvent
	r := request{method: http.MethodPost, url: c.endpoint("/webhooks/"+url.PathEscape(id)+"/ping", nil)}
	err := c.do(ctx, r, func(_ int, body []byte) error {
		var err error
		e, err = decodeSingle(body, "webhook event", parseWebhookEvent)
		return err
	})
	if err != nil {
		return WebhookEvent{}, fmt.Errorf("ping webhook: %w", err)
	}
	return e, nil
}

// WebhookLogsURL is the absolute URL of the first page of a webhook's
// delivery logs.
func (c *Client) WebhookLogsURL(id string) string {
	return c.endpoint("/webhooks/"+url.PathEscape(id)+"/logs", c.pageQuery())
}

// WebhookLogsPage fetches one page of delivery logs by absolute URL.
func (c *Client) WebhookLogsPage(ctx context.Context, pageURL string) (Page[DeliveryLog], error) {
	var p Page[DeliveryLog]
	err := c.do(ctx, request{method: http.MethodGet, url: pageURL}, func(_ int, body []byte) error {
		var err error
		p, err = decodePage(body, "delivery log", parseDeliveryLog)
		return err
	})
	if err != nil {
		return Page[DeliveryLog]{}, fmt.Errorf("webhook logs page: %w", err)
	}
	return p, nil
}

type webhookWire struct {
	Type       string  `json:"type"`
	ID         *string `json:"id"`
	Attributes struct {
		URL         string  `json:"url"`
		Description *string `json:"description"`
		SecretKey   string  `json:"secretKey"`
		CreatedAt   string  `json:"createdAt"`
	} `json:"attributes"`
}

func parseWebhook(raw []byte, owned bool) (Webhook, error) {
	const kind = "webhook"
	var w webhookWire
	if err := unmarshalOwned(raw, &w, owned); err != nil {
		return Webhook{}, decodeError(kind, err)
	}
	if err := checkResource(kind, "webhooks", w.Type, w.ID); err != nil {
		return Webhook{}, err
	}
	if w.Attributes.URL == "" {
		return Webhook{}, missing(kind, "attributes.url")
	}
	return Webhook{
		ID:          *w.ID,
		URL:         w.Attributes.URL,
		Description: w.Attributes.Description,
		SecretKey:   w.Attributes.SecretKey,
		CreatedAt:   w.Attributes.CreatedAt,
		Raw:         keep(raw, owned),
	}, nil
}

type deliveryLogWire struct {
	Type       string  `json:"type"`
	ID         *string `json:"id"`
	Attributes struct {
		Request struct {
			Body string `json:"body"`
		} `json:"request"`
		Response *struct {
			StatusCode int    `json:"statusCode"`
			Body       string `json:"body"`
		} `json:"response"`
		DeliveryStatus string `json:"deliveryStatus"`
		CreatedAt      string `json:"createdAt"`
	} `json:"attributes"`
	Relationships struct {
		WebhookEvent ident `json:"webhookEvent"`
	} `json:"relationships"`
}

func parseDeliveryLog(raw []byte, owned bool) (DeliveryLog, error) {
	const kind = "delivery log"
	var w deliveryLogWire
	if err := unmarshalOwned(raw, &w, owned); err != nil {
		return DeliveryLog{}, decodeError(kind, err)
	}
	if err := checkResource(kind, "webhook-delivery-logs", w.Type, w.ID); err != nil {
		return DeliveryLog{}, err
	}
	a := &w.Attributes
	l := DeliveryLog{
		ID:             *w.ID,
		RequestBody:    a.Request.Body,
		DeliveryStatus: a.DeliveryStatus,
		CreatedAt:      a.CreatedAt,
		EventID:        ptr.Value(w.Relationships.WebhookEvent.id()),
		Raw:            keep(raw, owned),
	}
	if a.Response != nil {
		l.StatusCode = &a.Response.StatusCode
		l.ResponseBody = &a.Response.Body
	}
	return l, nil
}
