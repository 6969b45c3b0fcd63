package simulator

import (
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"
)

// HTTP endpoints of webhooks and their rendering.

// Cursor kinds of the webhook lists.
const (
	kindWebhooks    = "wh"
	kindWebhookLogs = "whl"
)

// appendWebhook renders a WebhookResource; secretKey only when withSecret.
func appendWebhook(b []byte, base string, h *webhook, withSecret bool) []byte {
	self := base + "/webhooks/" + pathEscape(h.id)
	b = append(b, `{"type":"webhooks","id":`...)
	b = appendString(b, h.id)
	b = append(b, `,"attributes":{"url":`...)
	b = appendString(b, h.url)
	b = append(b, `,"description":`...)
	b = appendStringPtr(b, h.description)
	if withSecret {
		b = append(b, `,"secretKey":`...)
		b = appendString(b, h.secret)
	}
	b = append(b, `,"createdAt":`...)
	b = appendTime(b, h.createdAt)
	b = append(b, `},"relationships":{"logs":{"links":{"related":`...)
	b = appendString(b, self+"/logs")
	b = append(b, `}}},"links":{"self":`...)
	b = appendString(b, self)
	return append(b, "}}"...)
}

// appendWebhookEvent renders a WebhookEventResource. The transaction
// relationship has no links for TRANSACTION_DELETED and is absent for PING.
func appendWebhookEvent(b []byte, ev *webhookEvent) []byte {
	base := ev.hook.base
	b = append(b, `{"type":"webhook-events","id":`...)
	b = appendString(b, ev.id)
	b = append(b, `,"attributes":{"eventType":`...)
	b = appendString(b, ev.eventType)
	b = append(b, `,"createdAt":`...)
	b = appendTime(b, ev.createdAt)
	b = append(b, `},"relationships":{"webhook":`...)
	b = appendRelated(b, "webhooks", ev.hook.id, base+"/webhooks/"+pathEscape(ev.hook.id))
	if ev.eventType != eventPing {
		b = append(b, `,"transaction":`...)
		if ev.eventType == eventDeleted {
			b = append(b, `{"data":`...)
			b = appendIdentifier(b, "transactions", ev.txID)
			b = append(b, '}')
		} else {
			b = appendRelated(b, "transactions", ev.txID, base+"/transactions/"+pathEscape(ev.txID))
		}
	}
	return append(b, "}}"...)
}

// appendDeliveryLog renders a WebhookDeliveryLogResource.
func appendDeliveryLog(b []byte, l *deliveryLog) []byte {
	b = append(b, `{"type":"webhook-delivery-logs","id":`...)
	b = appendString(b, l.id)
	b = append(b, `,"attributes":{"request":{"body":`...)
	b = appendString(b, string(l.event.body))
	b = append(b, `},"response":`...)
	if l.hasResponse {
		b = append(b, `{"statusCode":`...)
		b = strconv.AppendInt(b, int64(l.statusCode), 10)
		b = append(b, `,"body":`...)
		b = appendString(b, l.respBody)
		b = append(b, '}')
	} else {
		b = append(b, "null"...)
	}
	b = append(b, `,"deliveryStatus":`...)
	b = appendString(b, l.status)
	b = append(b, `,"createdAt":`...)
	b = appendTime(b, l.createdAt)
	b = append(b, `},"relationships":{"webhookEvent":{"data":`...)
	b = appendIdentifier(b, "webhook-events", l.event.id)
	return append(b, "}}}"...)
}

// webhookInput is a validated POST /webhooks body.
type webhookInput struct {
	url         string
	description *string
}

// parseWebhookInput validates {"data":{"attributes":{"url":..., "description":...}}}.
func parseWebhookInput(data json.RawMessage) (webhookInput, *apiError) {
	var in webhookInput
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(data, &obj); err != nil || obj == nil {
		return in, invalidBody("/data", "data must be an object with an attributes member.")
	}
	if raw, ok := obj["type"]; ok && !isNull(raw) {
		var typ string
		if err := json.Unmarshal(raw, &typ); err != nil || typ != "webhooks" {
			return in, invalidBody("/data/type", `type must be "webhooks".`)
		}
	}
	var attrs map[string]json.RawMessage
	if err := json.Unmarshal(obj["attributes"], &attrs); err != nil || attrs == nil {
		return in, invalidBody("/data/attributes", "The attributes member is required and must be an object.")
	}
	raw, ok := attrs["url"]
	if !ok || isNull(raw) {
		return in, invalidBody("/data/attributes/url", "url is required.")
	}
	if err := json.Unmarshal(raw, &in.url); err != nil {
		return in, invalidBody("/data/attributes/url", "url must be a string.")
	}
	if n := utf8.RuneCountInString(in.url); n > maxWebhookURLLen {
		return in, invalidBody("/data/attributes/url", "url must not exceed "+strconv.Itoa(maxWebhookURLLen)+" characters, got "+strconv.Itoa(n)+".")
	}
	if !validWebhookURL(in.url) {
		return in, invalidBody("/data/attributes/url", "url must be a valid absolute HTTP or HTTPS URL, got "+strconv.Quote(in.url)+".")
	}
	if raw, ok := attrs["description"]; ok && !isNull(raw) {
		var d string
		if err := json.Unmarshal(raw, &d); err != nil {
			return in, invalidBody("/data/attributes/description", "description must be a string or null.")
		}
		if n := utf8.RuneCountInString(d); n > maxWebhookDescLen {
			return in, invalidBody("/data/attributes/description", "description must not exceed "+strconv.Itoa(maxWebhookDescLen)+" characters, got "+strconv.Itoa(n)+".")
		}
		in.description = &d
	}
	return in, nil
}

func validWebhookURL(s string) bool {
	if strings.TrimSpace(s) != s {
		return false
	}
	u, err := url.Parse(s)
	if err != nil || u.Host == "" || u.Opaque != "" {
		return false
	}
	scheme := strings.ToLower(u.Scheme)
	return scheme == "http" || scheme == "https"
}

func (b *Bank) handleCreateWebhook(rq *request) {
	data, aerr := readData(rq.w, rq.r)
	var in webhookInput
	if aerr == nil {
		in, aerr = parseWebhookInput(data)
	}
	if aerr != nil {
		writeError(rq.w, aerr)
		return
	}
	now := b.now()
	wh := &b.wh
	wh.mu.Lock()
	if len(wh.hooksOf(rq.who)) >= maxWebhooks {
		wh.mu.Unlock()
		writeError(rq.w, &apiError{status: http.StatusUnprocessableEntity, title: "Webhook Limit Reached",
			detail:  "The limit of " + strconv.Itoa(maxWebhooks) + " webhooks has been reached; delete an existing webhook before creating another.",
			pointer: "/data", hasSource: true})
		return
	}
	wh.seq++
	h := &webhook{id: randomID(), url: in.url, description: in.description, secret: randomSecret(),
		createdAt: now, seq: wh.seq, owner: rq.who, base: rq.base}
	h.ctx, h.cancel = context.WithCancel(wh.root)
	wh.hooks = append(wh.hooks, h)
	wh.byID[h.id] = h
	wh.all[h.id] = h
	wh.mu.Unlock()
	writeJSON(rq.w, http.StatusCreated, single(appendWebhook(nil, rq.base, h, true)))
}

func (b *Bank) handleListWebhooks(rq *request) {
	page, carry, ok := pageParams(rq, kindWebhooks)
	if !ok {
		return
	}
	wh := &b.wh
	wh.mu.Lock()
	hooks := wh.hooksOf(rq.who)
	l := listing{hi: len(hooks), key: func(i int) cursorKey { return cursorKey{hooks[i].seq, hooks[i].id} }}
	idx, hasPrev, hasNext := l.page(page)
	items := make([][]byte, len(idx))
	for i, j := range idx {
		items[i] = appendWebhook(nil, rq.base, hooks[j], false)
	}
	prev, next := b.links(rq.base, "/webhooks", kindWebhooks, carry, l, idx, hasPrev, hasNext)
	wh.mu.Unlock()
	writeJSON(rq.w, http.StatusOK, list(items, prev, next, true))
}

func webhookNotFound(id string) *apiError {
	return notFound("No webhook with id " + strconv.Quote(id) + ".")
}

// hooksOf lists p's live webhooks, oldest first; wh.mu is held.
func (wh *webhookState) hooksOf(p *person) []*webhook {
	var out []*webhook
	for _, h := range wh.hooks {
		if h.owner == p {
			out = append(out, h)
		}
	}
	return out
}

// hookOf finds p's live webhook by id; wh.mu is held.
func (wh *webhookState) hookOf(p *person, id string) (*webhook, bool) {
	h, ok := wh.byID[id]
	if !ok || h.owner != p {
		return nil, false
	}
	return h, true
}

func (b *Bank) handleGetWebhook(rq *request) {
	b.wh.mu.Lock()
	h, ok := b.wh.hookOf(rq.who, rq.params[0])
	var body []byte
	if ok {
		body = single(appendWebhook(nil, rq.base, h, false))
	}
	b.wh.mu.Unlock()
	if !ok {
		writeError(rq.w, webhookNotFound(rq.params[0]))
		return
	}
	writeJSON(rq.w, http.StatusOK, body)
}

func (b *Bank) handleDeleteWebhook(rq *request) {
	b.wh.mu.Lock()
	_, ok := b.wh.hookOf(rq.who, rq.params[0])
	b.wh.mu.Unlock()
	if !ok || !b.deleteWebhook(rq.params[0]) {
		writeError(rq.w, webhookNotFound(rq.params[0]))
		return
	}
	writeNoContent(rq.w)
}

// deleteWebhook removes a webhook and cancels its deliveries.
func (b *Bank) deleteWebhook(id string) bool {
	wh := &b.wh
	wh.mu.Lock()
	defer wh.mu.Unlock()
	h, ok := wh.byID[id]
	if !ok {
		return false
	}
	h.deleted = true
	h.cancel()
	delete(wh.byID, id)
	wh.hooks = slices.DeleteFunc(wh.hooks, func(x *webhook) bool { return x == h })
	wh.held = slices.DeleteFunc(wh.held, func(d *delivery) bool { return d.ev.hook == h })
	n := len(wh.queue)
	wh.queue = slices.DeleteFunc(wh.queue, func(d *delivery) bool { return d.ev.hook == h })
	for range n - len(wh.queue) {
		wh.doneLocked()
	}
	for t, d := range wh.timers {
		if d.ev.hook == h && t.Stop() {
			delete(wh.timers, t)
			wh.doneLocked()
		}
	}
	return true
}

func (b *Bank) handlePingWebhook(rq *request) {
	now := b.now()
	wh := &b.wh
	wh.mu.Lock()
	h, ok := wh.hookOf(rq.who, rq.params[0])
	var ev *webhookEvent
	if ok {
		ev = b.newEventLocked(h, eventPing, "", now)
	}
	wh.mu.Unlock()
	if !ok {
		writeError(rq.w, webhookNotFound(rq.params[0]))
		return
	}
	writeJSON(rq.w, http.StatusCreated, ev.body)
}

func (b *Bank) handleListWebhookLogs(rq *request) {
	page, carry, ok := pageParams(rq, kindWebhookLogs)
	if !ok {
		return
	}
	wh := &b.wh
	wh.mu.Lock()
	h, ok := wh.hookOf(rq.who, rq.params[0])
	if !ok {
		wh.mu.Unlock()
		writeError(rq.w, webhookNotFound(rq.params[0]))
		return
	}
	logs := h.logs
	n := len(logs)
	at := func(i int) *deliveryLog { return logs[n-1-i] } // newest first
	l := listing{hi: n, desc: true, key: func(i int) cursorKey { return cursorKey{at(i).seq, at(i).id} }}
	idx, hasPrev, hasNext := l.page(page)
	items := make([][]byte, len(idx))
	for i, j := range idx {
		items[i] = appendDeliveryLog(nil, at(j))
	}
	prev, next := b.links(rq.base, "/webhooks/"+pathEscape(h.id)+"/logs", kindWebhookLogs, carry, l, idx, hasPrev, hasNext)
	wh.mu.Unlock()
	writeJSON(rq.w, http.StatusOK, list(items, prev, next, true))
}
