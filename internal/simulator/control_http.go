package simulator

import (
	"cmp"
	"context"
	"crypto/subtle"
	_ "embed" // control-openapi.yaml
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"
)

// The control API over HTTP: JSON in and out under /_sim/, authenticated
// by the control token (Options.ControlToken). Each endpoint calls the Go
// control API, so the two behave the same. control-openapi.yaml describes
// it; docs/simulator.md has curl examples.

const controlPrefix = "/_sim"

// controlSpec is the control API's OpenAPI description, served at
// GET /_sim/openapi.yaml.
//
//go:embed control-openapi.yaml
var controlSpec []byte

// controlRoute maps a method and a path pattern below /_sim to a handler.
type controlRoute struct {
	method  string
	pattern []string
	handle  func(b *Bank, w http.ResponseWriter, r *http.Request, params []string) error
}

var controlRoutes = []controlRoute{
	{http.MethodGet, []string{"openapi.yaml"}, (*Bank).ctlSpec},
	{http.MethodGet, []string{"accounts"}, (*Bank).ctlAccounts},
	{http.MethodGet, []string{"transactions"}, (*Bank).ctlTransactions},
	{http.MethodPost, []string{"transactions"}, (*Bank).ctlCreate},
	{http.MethodPost, []string{"transactions", "{}", "settle"}, (*Bank).ctlSettle},
	{http.MethodDelete, []string{"transactions", "{}"}, (*Bank).ctlDelete},
	{http.MethodPut, []string{"transactions", "{}", "tags"}, (*Bank).ctlTags},
	{http.MethodPut, []string{"transactions", "{}", "category"}, (*Bank).ctlCategory},
	{http.MethodGet, []string{"faults"}, (*Bank).ctlGetFaults},
	{http.MethodPut, []string{"faults"}, (*Bank).ctlSetFaults},
	{http.MethodGet, []string{"rate-limit"}, (*Bank).ctlGetRateLimit},
	{http.MethodPut, []string{"rate-limit"}, (*Bank).ctlSetRateLimit},
	{http.MethodGet, []string{"webhook-faults"}, (*Bank).ctlGetWebhookFaults},
	{http.MethodPut, []string{"webhook-faults"}, (*Bank).ctlSetWebhookFaults},
	{http.MethodGet, []string{"webhook-retry"}, (*Bank).ctlGetWebhookRetry},
	{http.MethodPut, []string{"webhook-retry"}, (*Bank).ctlSetWebhookRetry},
	{http.MethodGet, []string{"webhooks"}, (*Bank).ctlWebhooks},
	{http.MethodGet, []string{"events"}, (*Bank).ctlEvents},
	{http.MethodGet, []string{"deliveries"}, (*Bank).ctlDeliveries},
	{http.MethodPost, []string{"deliveries", "flush"}, (*Bank).ctlFlush},
	{http.MethodPost, []string{"deliveries", "wait"}, (*Bank).ctlWait},
	{http.MethodGet, []string{"requests"}, (*Bank).ctlRequests},
	{http.MethodPost, []string{"token", "rotate"}, (*Bank).ctlRotate},
	{http.MethodPost, []string{"token", "revoke"}, (*Bank).ctlRevoke},
	{http.MethodGet, []string{"clock"}, (*Bank).ctlGetClock},
	{http.MethodPut, []string{"clock"}, (*Bank).ctlSetClock},
	{http.MethodPost, []string{"reset"}, (*Bank).ctlReset},
	{http.MethodPost, []string{"live", "step"}, (*Bank).ctlLiveStep},
	{http.MethodGet, []string{"live"}, (*Bank).ctlGetLive},
	{http.MethodPut, []string{"live"}, (*Bank).ctlSetLive},
	{http.MethodGet, []string{"people"}, (*Bank).ctlPeople},
	{http.MethodPost, []string{"people", "{}", "token", "revoke"}, (*Bank).ctlPersonRevoke},
	{http.MethodPost, []string{"people", "{}", "token", "restore"}, (*Bank).ctlPersonRestore},
	{http.MethodPost, []string{"people", "{}", "token", "rotate"}, (*Bank).ctlPersonRotate},
	{http.MethodPost, []string{"payments"}, (*Bank).ctlPay},
	{http.MethodGet, []string{"writes"}, (*Bank).ctlWrites},
}

// ControlToken is the bearer token of the control API.
func (b *Bank) ControlToken() string { return b.controlToken }

// controlError is an error with the status it is answered with.
type controlError struct {
	status int
	err    error
}

func (e *controlError) Error() string { return e.err.Error() }
func (e *controlError) Unwrap() error { return e.err }

func badRequest(err error) error { return &controlError{http.StatusBadRequest, err} }

// serveControl authenticates and routes a control request; errors are
// answered as {"error": "..."} with a status from the error.
func (b *Bank) serveControl(w http.ResponseWriter, r *http.Request) {
	scheme, token, _ := strings.Cut(r.Header.Get("Authorization"), " ")
	if !strings.EqualFold(scheme, "Bearer") || subtle.ConstantTimeCompare([]byte(token), []byte(b.controlToken)) != 1 {
		writeControlError(w, http.StatusUnauthorized, errors.New("missing or wrong control token"))
		return
	}
	segs := strings.Split(strings.TrimPrefix(r.URL.Path, controlPrefix+"/"), "/")
	var allowed []string
	for _, rt := range controlRoutes {
		params, ok := matchPattern(rt.pattern, segs)
		if !ok {
			continue
		}
		if rt.method != r.Method {
			allowed = append(allowed, rt.method)
			continue
		}
		if err := rt.handle(b, w, r, params); err != nil {
			writeControlError(w, controlStatus(err), err)
		}
		return
	}
	if len(allowed) > 0 {
		w.Header().Set("Allow", strings.Join(allowed, ", "))
		writeControlError(w, http.StatusMethodNotAllowed, fmt.Errorf("%s not allowed here", r.Method))
		return
	}
	writeControlError(w, http.StatusNotFound, errors.New("no such control endpoint"))
}

// controlStatus maps an error of the Go control API to an HTTP status.
func controlStatus(err error) int {
	var ce *controlError
	switch {
	case errors.As(err, &ce):
		return ce.status
	case errors.Is(err, ErrNotFound):
		return http.StatusNotFound
	case errors.Is(err, ErrNotHeld):
		return http.StatusConflict
	}
	return http.StatusUnprocessableEntity
}

func writeControlError(w http.ResponseWriter, status int, err error) {
	body, _ := json.Marshal(map[string]string{"error": err.Error()})
	writeJSON(w, status, body)
}

// writeControlJSON answers v as JSON.
func writeControlJSON(w http.ResponseWriter, status int, v any) error {
	body, err := json.Marshal(v)
	if err != nil {
		return fmt.Errorf("encode response: %w", err)
	}
	writeJSON(w, status, body)
	return nil
}

// readControlJSON decodes the body into v, refusing unknown fields; an
// empty body leaves v as it is.
func readControlJSON(w http.ResponseWriter, r *http.Request, v any) error {
	raw, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxBodyBytes))
	if err != nil {
		return badRequest(fmt.Errorf("read body: %w", err))
	}
	if len(strings.TrimSpace(string(raw))) == 0 {
		return nil
	}
	dec := json.NewDecoder(strings.NewReader(string(raw)))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return badRequest(fmt.Errorf("decode body: %w", err))
	}
	return nil
}

func (b *Bank) ctlSpec(w http.ResponseWriter, _ *http.Request, _ []string) error {
	w.Header().Set("Content-Type", "application/yaml")
	w.Header().Set("Content-Length", strconv.Itoa(len(controlSpec)))
	_, _ = w.Write(controlSpec)
	return nil
}

func (b *Bank) ctlAccounts(w http.ResponseWriter, _ *http.Request, _ []string) error {
	s := b.Snapshot()
	out := make([]accountJSON, len(s.Accounts))
	for i, a := range s.Accounts {
		out[i] = accountJSON{People: b.AccountPeople(a.ID), ID: a.ID, DisplayName: a.DisplayName, AccountType: a.AccountType, OwnershipType: a.OwnershipType,
			Balance: toMoneyJSON(a.Balance), OpeningBalance: toMoneyJSON(a.OpeningBalance), CreatedAt: a.CreatedAt}
	}
	return writeControlJSON(w, http.StatusOK, map[string]any{"data": out})
}

// ctlTransactions answers every transaction, newest first, rendered as the
// API renders it (with the API base URL of the request).
// With ?person=NAME, only the transactions of the accounts they see.
func (b *Bank) ctlTransactions(w http.ResponseWriter, r *http.Request, _ []string) error {
	who, err := b.queryPerson(r)
	if err != nil {
		return err
	}
	base := b.baseURL(r)
	b.mu.RLock()
	items := make([][]byte, len(b.txs))
	n := 0
	for _, t := range b.txs {
		if who == nil || who.canSee(t.AccountID) {
			items[n] = renderedTransaction(t, base)
			n++
		}
	}
	items = items[:n]
	b.mu.RUnlock()
	writeJSON(w, http.StatusOK, list(items, "", "", false))
	return nil
}

func (b *Bank) ctlCreate(w http.ResponseWriter, r *http.Request, _ []string) error {
	var in newTransactionJSON
	if err := readControlJSON(w, r, &in); err != nil {
		return err
	}
	ids, err := b.CreateTransaction(in.toGo())
	if err != nil {
		return err
	}
	return writeControlJSON(w, http.StatusCreated, map[string]any{"ids": ids})
}

func (b *Bank) ctlSettle(w http.ResponseWriter, r *http.Request, params []string) error {
	var in struct {
		Replace bool `json:"replace"`
	}
	if err := readControlJSON(w, r, &in); err != nil {
		return err
	}
	id, err := params[0], error(nil)
	if in.Replace || b.replaceOnSettle.Load() {
		id, err = b.SettleAsReplacement(params[0])
	} else {
		err = b.Settle(params[0])
	}
	if err != nil {
		return err
	}
	return writeControlJSON(w, http.StatusOK, map[string]string{"id": id})
}

func (b *Bank) ctlDelete(w http.ResponseWriter, r *http.Request, params []string) error {
	event := r.URL.Query().Get("event") != "false"
	if err := b.deleteHeld(params[0], event); err != nil {
		return err
	}
	writeNoContent(w)
	return nil
}

func (b *Bank) ctlTags(w http.ResponseWriter, r *http.Request, params []string) error {
	var in struct {
		Tags []string `json:"tags"`
	}
	if err := readControlJSON(w, r, &in); err != nil {
		return err
	}
	if err := b.SetTags(params[0], in.Tags); err != nil {
		return err
	}
	writeNoContent(w)
	return nil
}

func (b *Bank) ctlCategory(w http.ResponseWriter, r *http.Request, params []string) error {
	var in struct {
		CategoryID *string `json:"categoryId"`
	}
	if err := readControlJSON(w, r, &in); err != nil {
		return err
	}
	if err := b.SetCategory(params[0], deref(in.CategoryID)); err != nil {
		return err
	}
	writeNoContent(w)
	return nil
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

func (b *Bank) ctlGetFaults(w http.ResponseWriter, _ *http.Request, _ []string) error {
	f := b.Faults()
	out := faultsJSON{ErrorRate: f.ErrorRate, RateLimitBurst: f.RateLimitBurst, RetryAfter: jsonDuration(f.RetryAfter),
		Latency: jsonDuration(f.Latency), StatusRates: map[string]float64{}}
	for i, rate := range f.statusRates() {
		if rate != 0 {
			out.StatusRates[strconv.Itoa(faultStatuses[i])] = rate
		}
	}
	return writeControlJSON(w, http.StatusOK, out)
}

func (b *Bank) ctlSetFaults(w http.ResponseWriter, r *http.Request, _ []string) error {
	var in faultsJSON
	if err := readControlJSON(w, r, &in); err != nil {
		return err
	}
	f := Faults{ErrorRate: in.ErrorRate, RateLimitBurst: in.RateLimitBurst, RetryAfter: time.Duration(in.RetryAfter), Latency: time.Duration(in.Latency)}
	for s, rate := range in.StatusRates {
		code, err := strconv.Atoi(s)
		if err != nil || !f.setStatusRate(code, rate) {
			return &controlError{http.StatusUnprocessableEntity, fmt.Errorf("statusRates: %q is not one of 500, 502, 503, 504", s)}
		}
	}
	b.SetFaults(f)
	return b.ctlGetFaults(w, r, nil)
}

func (b *Bank) ctlGetRateLimit(w http.ResponseWriter, _ *http.Request, _ []string) error {
	rl := b.RateLimit()
	return writeControlJSON(w, http.StatusOK, rateLimitJSON{Limit: rl.Limit, Bucket: jsonDuration(rl.Bucket), Offset: jsonDuration(rl.Offset), RetryAfter: rl.RetryAfter})
}

func (b *Bank) ctlSetRateLimit(w http.ResponseWriter, r *http.Request, _ []string) error {
	var in rateLimitJSON
	if err := readControlJSON(w, r, &in); err != nil {
		return err
	}
	if in.Limit < 0 || in.Bucket < 0 {
		return &controlError{http.StatusUnprocessableEntity, errors.New("limit and bucket must not be negative")}
	}
	if bucket := cmp.Or(time.Duration(in.Bucket), defaultRateBucket); in.Offset < 0 || time.Duration(in.Offset) >= bucket {
		return &controlError{http.StatusUnprocessableEntity, fmt.Errorf("offset must be at least 0 and less than the bucket (%s)", bucket)}
	}
	b.SetRateLimit(RateLimit{Limit: in.Limit, Bucket: time.Duration(in.Bucket), Offset: time.Duration(in.Offset), RetryAfter: in.RetryAfter})
	return b.ctlGetRateLimit(w, r, nil)
}

func (b *Bank) ctlGetWebhookFaults(w http.ResponseWriter, _ *http.Request, _ []string) error {
	b.wh.mu.Lock()
	f := b.wh.faults
	b.wh.mu.Unlock()
	return writeControlJSON(w, http.StatusOK, webhookFaultsJSON(f))
}

func (b *Bank) ctlSetWebhookFaults(w http.ResponseWriter, r *http.Request, _ []string) error {
	var in webhookFaultsJSON
	if err := readControlJSON(w, r, &in); err != nil {
		return err
	}
	b.SetWebhookFaults(WebhookFaults(in))
	return b.ctlGetWebhookFaults(w, r, nil)
}

func (b *Bank) ctlGetWebhookRetry(w http.ResponseWriter, _ *http.Request, _ []string) error {
	rt := b.WebhookRetry()
	return writeControlJSON(w, http.StatusOK, webhookRetryJSON{Base: jsonDuration(rt.Base), Max: jsonDuration(rt.Max), Attempts: rt.Attempts, Timeout: jsonDuration(rt.Timeout)})
}

func (b *Bank) ctlSetWebhookRetry(w http.ResponseWriter, r *http.Request, _ []string) error {
	var in webhookRetryJSON
	if err := readControlJSON(w, r, &in); err != nil {
		return err
	}
	b.SetWebhookRetry(WebhookRetry{Base: time.Duration(in.Base), Max: time.Duration(in.Max), Attempts: in.Attempts, Timeout: time.Duration(in.Timeout)})
	return b.ctlGetWebhookRetry(w, r, nil)
}

func (b *Bank) ctlWebhooks(w http.ResponseWriter, _ *http.Request, _ []string) error {
	hooks := b.Webhooks()
	out := make([]webhookJSON, len(hooks))
	for i, h := range hooks {
		out[i] = webhookJSON{Person: h.Person, ID: h.ID, URL: h.URL, Description: h.Description, SecretKey: h.Secret, CreatedAt: h.CreatedAt}
	}
	return writeControlJSON(w, http.StatusOK, map[string]any{"data": out})
}

func (b *Bank) ctlEvents(w http.ResponseWriter, _ *http.Request, _ []string) error {
	evs := b.Events()
	out := make([]eventJSON, len(evs))
	for i, ev := range evs {
		out[i] = eventJSON{Person: ev.Person, ID: ev.ID, Type: ev.Type, TransactionID: ev.TransactionID, WebhookID: ev.WebhookID,
			CreatedAt: ev.CreatedAt, Body: string(ev.Body), Dropped: ev.Dropped}
	}
	return writeControlJSON(w, http.StatusOK, map[string]any{"data": out})
}

// ctlDeliveries answers the delivery attempts of one webhook
// (?webhook=ID), or of every webhook ever created, oldest first.
func (b *Bank) ctlDeliveries(w http.ResponseWriter, r *http.Request, _ []string) error {
	hooks := []string{r.URL.Query().Get("webhook")}
	if hooks[0] == "" {
		hooks = b.webhooksEver()
	}
	out := []deliveryJSON{}
	for _, id := range hooks {
		for _, l := range b.DeliveryLog(id) {
			out = append(out, deliveryJSON{ID: l.ID, WebhookID: l.WebhookID, EventID: l.EventID, EventType: l.EventType,
				Attempt: l.Attempt, Duplicate: l.Duplicate, RequestBody: string(l.RequestBody), Response: l.Response,
				DeliveryStatus: l.DeliveryStatus, CreatedAt: l.CreatedAt})
		}
	}
	return writeControlJSON(w, http.StatusOK, map[string]any{"data": out})
}

// webhooksEver lists the ids of every webhook created, deleted ones
// included, in creation order.
func (b *Bank) webhooksEver() []string {
	b.wh.mu.Lock()
	hooks := make([]*webhook, 0, len(b.wh.all))
	for _, h := range b.wh.all {
		hooks = append(hooks, h)
	}
	b.wh.mu.Unlock()
	slices.SortFunc(hooks, func(x, y *webhook) int { return int(x.seq - y.seq) })
	ids := make([]string, len(hooks))
	for i, h := range hooks {
		ids[i] = h.id
	}
	return ids
}

func (b *Bank) ctlFlush(w http.ResponseWriter, _ *http.Request, _ []string) error {
	b.FlushDeliveries()
	writeNoContent(w)
	return nil
}

// ctlWait waits until no delivery is queued, in flight or waiting for a
// retry ({"timeout": "10s"}, default 30s): 204, or 504 at the timeout.
func (b *Bank) ctlWait(w http.ResponseWriter, r *http.Request, _ []string) error {
	in := struct {
		Timeout jsonDuration `json:"timeout"`
	}{jsonDuration(30 * time.Second)}
	if err := readControlJSON(w, r, &in); err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(r.Context(), time.Duration(in.Timeout))
	defer cancel()
	if err := b.WaitDeliveries(ctx); err != nil {
		return &controlError{http.StatusGatewayTimeout, fmt.Errorf("deliveries still pending: %w", err)}
	}
	writeNoContent(w)
	return nil
}

// ctlRequests answers the request record, of every request or (?person=NAME)
// of those authenticated with one person's token.
func (b *Bank) ctlRequests(w http.ResponseWriter, r *http.Request, _ []string) error {
	who, err := b.queryPerson(r)
	if err != nil {
		return err
	}
	counts := b.RequestCounts()
	if who != nil {
		counts = who.record.list()
	}
	if counts == nil {
		counts = []RequestCount{}
	}
	return writeControlJSON(w, http.StatusOK, map[string]any{"data": counts})
}

func (b *Bank) ctlRotate(w http.ResponseWriter, r *http.Request, _ []string) error {
	var in struct {
		Token string `json:"token"`
	}
	if err := readControlJSON(w, r, &in); err != nil {
		return err
	}
	return writeControlJSON(w, http.StatusOK, map[string]string{"token": b.RotateToken(in.Token)})
}

func (b *Bank) ctlRevoke(w http.ResponseWriter, _ *http.Request, _ []string) error {
	b.RevokeToken()
	writeNoContent(w)
	return nil
}

func (b *Bank) ctlGetClock(w http.ResponseWriter, _ *http.Request, _ []string) error {
	b.clock.mu.Lock()
	frozen := b.clock.frozen
	b.clock.mu.Unlock()
	return writeControlJSON(w, http.StatusOK, clockJSON{Now: b.Now(), Frozen: frozen})
}

func (b *Bank) ctlSetClock(w http.ResponseWriter, r *http.Request, _ []string) error {
	var in clockJSON
	if err := readControlJSON(w, r, &in); err != nil {
		return err
	}
	if in.Now.IsZero() {
		return &controlError{http.StatusUnprocessableEntity, errors.New("now is required")}
	}
	b.SetClock(in.Now, in.Frozen)
	return b.ctlGetClock(w, r, nil)
}

func (b *Bank) ctlReset(w http.ResponseWriter, _ *http.Request, _ []string) error {
	b.Reset()
	writeNoContent(w)
	return nil
}

func (b *Bank) ctlLiveStep(w http.ResponseWriter, _ *http.Request, _ []string) error {
	return writeControlJSON(w, http.StatusOK, map[string]string{"change": b.LiveStep()})
}

func (b *Bank) ctlGetLive(w http.ResponseWriter, _ *http.Request, _ []string) error {
	return writeControlJSON(w, http.StatusOK, liveJSON{Every: jsonDuration(b.Live())})
}

// ctlSetLive starts, changes or ({"every": "0s"}) stops the background
// changes; it answers once a stopped loop has finished its last change.
func (b *Bank) ctlSetLive(w http.ResponseWriter, r *http.Request, _ []string) error {
	var in liveJSON
	if err := readControlJSON(w, r, &in); err != nil {
		return err
	}
	if in.Every < 0 {
		return &controlError{http.StatusUnprocessableEntity, errors.New("every must not be negative")}
	}
	b.SetLive(time.Duration(in.Every))
	return b.ctlGetLive(w, r, nil)
}
