package replica

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/rs/zerolog"

	"github.com/bankmirror/bankmirror/internal/bank"
	"github.com/bankmirror/bankmirror/internal/logfield"
	"github.com/bankmirror/bankmirror/internal/store"
)

// HealBank is what the healer needs of the bank client: the client of the
// token that registered the webhooks it heals.
type HealBank = healBank

// healBank is what the healer needs of the bank client.
type healBank interface {
	WebhookLogsURL(id string) string
	WebhookLogsPage(ctx context.Context, pageURL string) (bank.Page[bank.DeliveryLog], error)
}

// healStore is what the healer needs of the store.
type healStore interface {
	LockHeal(ctx context.Context) (unlock func(), err error)
	ActiveWebhooks(ctx context.Context) ([]store.Webhook, error)
	InsertEvents(ctx context.Context, evs []store.InboxEvent) ([]string, error)
	SaveDeliveryLogs(ctx context.Context, logs []store.DeliveryLog) (int, error)
	BeginHeal(ctx context.Context, name, firstURL string) (bool, error)
	FinishHeal(ctx context.Context, name string, pages int) error
	ListingFailed(ctx context.Context, name string) error
}

var (
	_ healBank  = (*bank.Client)(nil)
	_ healStore = (*store.Store)(nil)
)

// HealResult summarises one Heal.
type HealResult struct {
	Webhooks  int // webhooks whose delivery logs were read (404s not counted)
	Pages     int // delivery log pages fetched
	LogsSeen  int // delivery log entries fetched
	LogsNew   int // entries not stored before
	Recovered int // events added to the inbox
	// RecoveredIDs are the ids of the events added to the inbox: pass them
	// on to the worker (Notify).
	RecoveredIDs []string
}

// Healer recovers webhook events that never reached the inbox (receiver
// down, delivery given up, event never sent) from the bank's delivery logs,
// which hold the exact body of every attempt. It is idempotent and cheap
// when nothing was missed: it stops paging a webhook at the first page that
// was stored entirely by an earlier, completed heal. Heals of one mirror
// never overlap: Heal holds the store's heal lock.
type Healer struct {
	bank  healBank
	store healStore
	log   zerolog.Logger
	opts  HealerOptions
}

// HealerOptions tune a Healer. Zero values take the defaults.
type HealerOptions struct {
	// StopGrace is how long counting the failure of a heal stopped by its
	// context may take (default DefaultStopGrace).
	StopGrace time.Duration
	// BankFor, if set, is the client of person's token (nil when the
	// person is not configured): a household's webhook delivery logs are
	// read through the token that registered the webhook, each within its
	// own budget. A webhook without a person (from before the household)
	// is read through the healer's own client; one whose person has no
	// client is skipped.
	BankFor func(person string) HealBank
}

// NewHealer returns a Healer.
func NewHealer(b healBank, s healStore, log zerolog.Logger, opts HealerOptions) *Healer {
	if opts.StopGrace <= 0 {
		opts.StopGrace = DefaultStopGrace
	}
	return &Healer{bank: b, store: s, log: log.With().Str(logfield.Component, "healer").Logger(), opts: opts}
}

// healStateName is the sync_state row of a webhook's heal.
func healStateName(webhookID string) string { return "heal:" + webhookID }

// Heal walks the delivery logs of every active registered webhook, newest
// first, stores the entries, and enqueues every event they carry that the
// inbox lacks (source delivery_log). A webhook the bank no longer knows
// (404) is skipped with a warning. Errors of one webhook do not stop the
// others; the result counts what was done even when an error is returned,
// so recovered events can still be handed to the worker.
func (h *Healer) Heal(ctx context.Context) (HealResult, error) {
	var r HealResult
	// One heal at a time, across processes: a heal that stops early trusts
	// that the pages after it were stored by a heal that completed.
	unlock, err := h.store.LockHeal(ctx)
	if err != nil {
		return r, fmt.Errorf("heal: %w", err)
	}
	defer unlock()
	hooks, err := h.store.ActiveWebhooks(ctx)
	if err != nil {
		return r, fmt.Errorf("heal: %w", err)
	}
	var errs []error
	for _, w := range hooks {
		if err := ctx.Err(); err != nil {
			errs = append(errs, fmt.Errorf("heal: %w", err))
			break
		}
		b := h.bankOf(w.Person)
		if b == nil {
			h.log.Debug().Str(logfield.WebhookID, w.ID).Str(logfield.Person, w.Person).
				Msg("webhook of a person not configured; its delivery logs were skipped")
			continue
		}
		err := h.healWebhook(ctx, b, w.ID, &r)
		switch {
		case err == nil:
		case errors.Is(err, bank.ErrNotFound):
			h.log.Warn().Str(logfield.WebhookID, w.ID).
				Msg("webhook unknown to the bank (deleted elsewhere?); its delivery logs were skipped")
		case w.Person != "":
			errs = append(errs, fmt.Errorf("heal webhook %s of %s: %w", w.ID, w.Person, err))
		default:
			errs = append(errs, fmt.Errorf("heal webhook %s: %w", w.ID, err))
		}
	}
	ev := h.log.Debug() //nolint:zerologlint // sent below
	if r.Recovered > 0 {
		ev = h.log.Info() //nolint:zerologlint // sent below
	}
	ev.Int(logfield.Webhooks, r.Webhooks).Int(logfield.Pages, r.Pages).Int(logfield.LogsSeen, r.LogsSeen).
		Int(logfield.LogsNew, r.LogsNew).Int(logfield.Recovered, r.Recovered).Msg("webhook heal finished")
	return r, errors.Join(errs...)
}

// bankOf is the client that reads the delivery logs of person's webhooks.
func (h *Healer) bankOf(person string) healBank {
	if person == "" || h.opts.BankFor == nil {
		return h.bank
	}
	return h.opts.BankFor(person)
}

// healWebhook walks one webhook's delivery logs through b. When the previous heal of
// that webhook completed, every entry older than the ones it stored is
// stored too, so the walk stops at the first page with nothing new; after
// an interrupted heal (or on the first one) it walks every page.
func (h *Healer) healWebhook(ctx context.Context, b healBank, id string, r *HealResult) (err error) {
	name := healStateName(id)
	first := b.WebhookLogsURL(id)
	cleanup, cancel := afterStop(ctx, h.opts.StopGrace)
	defer cancel()
	prevCompleted, err := h.store.BeginHeal(ctx, name, first)
	if err != nil {
		return err
	}
	defer func() {
		if err == nil {
			return
		}
		if ferr := h.store.ListingFailed(cleanup, name); ferr != nil {
			h.log.Warn().Err(ferr).Str(logfield.WebhookID, id).Msg("count heal failure")
		}
	}()
	pages := 0
	for p, err := range bank.Pages(ctx, first, b.WebhookLogsPage) {
		if err != nil {
			return fmt.Errorf("delivery logs page %d: %w", pages+1, err)
		}
		if pages == 0 {
			r.Webhooks++
		}
		pages++
		r.Pages++
		r.LogsSeen += len(p.Data)
		inserted, fresh, err := h.storePage(ctx, id, p.Data)
		// Events enqueued count even when storing the entries then failed.
		r.Recovered += len(inserted)
		r.RecoveredIDs = append(r.RecoveredIDs, inserted...)
		if err != nil {
			return err
		}
		r.LogsNew += fresh
		if prevCompleted && fresh == 0 && len(p.Data) > 0 {
			break // the rest was stored by a completed heal
		}
	}
	h.log.Debug().Str(logfield.WebhookID, id).Int(logfield.Pages, pages).Bool(logfield.FullWalk, !prevCompleted).Msg("delivery logs healed")
	return h.store.FinishHeal(ctx, name, pages)
}

// storePage enqueues the events of one page of delivery logs, then stores
// the entries. Events go first: a stored entry then always means its event
// reached the inbox, which is what lets a later heal stop at a page of
// stored entries. It returns the ids of the events enqueued and the number
// of entries that were new.
func (h *Healer) storePage(ctx context.Context, webhookID string, logs []bank.DeliveryLog) (inserted []string, fresh int, err error) {
	evs := make([]store.InboxEvent, 0, len(logs))
	rows := make([]store.DeliveryLog, 0, len(logs))
	seen := make(map[string]bool, len(logs))
	for _, l := range logs {
		rows = append(rows, store.DeliveryLog{
			ID: l.ID, WebhookID: webhookID, EventID: l.EventID, DeliveryStatus: l.DeliveryStatus,
			StatusCode: l.StatusCode, CreatedAt: l.CreatedAt, RequestBody: l.RequestBody, ResponseBody: l.ResponseBody,
		})
		e, perr := bank.ParseWebhookEvent([]byte(l.RequestBody))
		if perr != nil {
			// The decoder's message names fields and values, never the body.
			h.log.Warn().Err(perr).Str(logfield.WebhookID, webhookID).Str(logfield.DeliveryLogID, bank.LogID(l.ID)).Str(logfield.EventID, bank.LogID(l.EventID)).
				Msg("delivery log body is not a webhook event; skipped")
			continue
		}
		if l.EventID != "" && e.ID != l.EventID {
			h.log.Warn().Str(logfield.WebhookID, webhookID).Str(logfield.DeliveryLogID, bank.LogID(l.ID)).Str(logfield.EventID, bank.LogID(l.EventID)).
				Str(logfield.BodyEventID, bank.LogID(e.ID)).Msg("delivery log body names another event; enqueuing the body's")
		}
		if seen[e.ID] {
			continue // retries of one event carry the same body
		}
		seen[e.ID] = true
		ev := store.NewInboxEvent(e, store.SourceDeliveryLog, l.RequestBody)
		if ev.WebhookID == "" {
			ev.WebhookID = webhookID // the webhook whose logs hold it
		}
		evs = append(evs, ev)
	}
	if len(evs) > 0 {
		inserted, err = h.store.InsertEvents(ctx, evs)
		if err != nil {
			return nil, 0, err
		}
	}
	if len(rows) > 0 {
		fresh, err = h.store.SaveDeliveryLogs(ctx, rows)
		if err != nil {
			return inserted, 0, err
		}
	}
	return inserted, fresh, nil
}
