// Package webhooks registers, lists, deletes and rotates the bank's
// webhooks for a mirror, keeping each registered webhook's secret in the
// store so that the daemon can verify its deliveries; SecretCache serves
// those secrets to the daemon's receiver from memory. The `webhook` command
// and the demo share the Manager.
package webhooks

import (
	"context"
	"errors"
	"fmt"

	"github.com/rs/zerolog"

	"github.com/bankmirror/bankmirror/internal/bank"
	"github.com/bankmirror/bankmirror/internal/logfield"
	"github.com/bankmirror/bankmirror/internal/replica"
	"github.com/bankmirror/bankmirror/internal/store"
)

// MaxWebhooks is the bank's limit on webhooks.
const MaxWebhooks = 10

// Bank is what the manager needs of the bank client.
type Bank interface {
	CreateWebhook(ctx context.Context, webhookURL string, description *string) (bank.Webhook, error)
	Webhooks(ctx context.Context) ([]bank.Webhook, error)
	Webhook(ctx context.Context, id string) (bank.Webhook, error)
	DeleteWebhook(ctx context.Context, id string) error
}

// Store is what the manager needs of the mirror.
type Store interface {
	BeginWebhookRegistration(ctx context.Context) error
	EndWebhookRegistration(ctx context.Context) error
	SaveWebhook(ctx context.Context, w store.Webhook) error
	Webhook(ctx context.Context, id string) (store.Webhook, error)
	MarkWebhookDeleted(ctx context.Context, id string) error
}

// Healer recovers undelivered events from the delivery logs (replica.Healer).
type Healer interface {
	Heal(ctx context.Context) (replica.HealResult, error)
}

var (
	_ Bank   = (*bank.Client)(nil)
	_ Store  = (*store.Store)(nil)
	_ Healer = (*replica.Healer)(nil)
)

// ErrTooMany is returned by Register when the bank holds MaxWebhooks
// webhooks already.
var ErrTooMany = errors.New("too many webhooks")

// OrphanError is a failed registration whose request may have reached the
// bank: Orphans are the bank's webhooks for URL whose secret the mirror
// does not hold (one of them may have been created by the failed request,
// and would deliver events nobody can verify).
type OrphanError struct {
	Err     error
	URL     string
	Orphans []string
}

func (e *OrphanError) Error() string { return e.Err.Error() }
func (e *OrphanError) Unwrap() error { return e.Err }

// Manager manages one mirror's webhooks at the bank, through one person's
// token.
type Manager struct {
	person string
	bank   Bank
	store  Store
	healer Healer
	log    zerolog.Logger
}

// New returns a Manager of webhooks whose person is not recorded (a
// webhook made by the demo).
func New(b Bank, s Store, h Healer, log zerolog.Logger) *Manager {
	return NewFor("", b, s, h, log)
}

// NewFor returns the Manager of person's webhooks, registered through b,
// their token's client: each webhook it registers is recorded as theirs.
func NewFor(person string, b Bank, s Store, h Healer, log zerolog.Logger) *Manager {
	l := log.With().Str(logfield.Component, "webhooks")
	if person != "" {
		l = l.Str(logfield.Person, person)
	}
	return &Manager{person: person, bank: b, store: s, healer: h, log: l.Logger()}
}

// Person is whose token the manager uses.
func (m *Manager) Person() string { return m.person }

// Bank is the client of the manager's token.
func (m *Manager) Bank() Bank { return m.bank }

// Register creates a webhook for url at the bank and stores its secret at
// once. While it does, the daemon answers deliveries it cannot verify with
// 503 (retry) rather than 401, so that none signed with the new secret is
// rejected. If the secret cannot be stored, the webhook is deleted again.
func (m *Manager) Register(ctx context.Context, url string, desc *string) (bank.Webhook, error) {
	if err := m.store.BeginWebhookRegistration(ctx); err != nil {
		return bank.Webhook{}, err
	}
	defer func() {
		if err := m.store.EndWebhookRegistration(context.WithoutCancel(ctx)); err != nil {
			m.log.Warn().Err(err).Msg("end webhook registration")
		}
	}()
	hook, err := m.bank.CreateWebhook(ctx, url, desc)
	if errors.Is(err, bank.ErrUnprocessable) {
		if hooks, lerr := m.bank.Webhooks(ctx); lerr == nil && len(hooks) >= MaxWebhooks {
			return hook, fmt.Errorf("%w: the bank allows at most %d webhooks and you have %d: delete one first "+
				"(bankmirror webhook list, then bankmirror webhook delete ID)", ErrTooMany, MaxWebhooks, len(hooks))
		}
	}
	if err != nil {
		var apiErr *bank.APIError
		if !errors.As(err, &apiErr) || apiErr.StatusCode >= 500 {
			// The request may have reached the bank.
			if orphans := m.orphans(context.WithoutCancel(ctx), url); len(orphans) > 0 {
				return hook, &OrphanError{Err: err, URL: url, Orphans: orphans}
			}
		}
		return hook, err
	}
	if err := m.store.SaveWebhook(ctx, store.Webhook{ID: hook.ID, URL: hook.URL, Description: hook.Description,
		SecretKey: hook.SecretKey, CreatedAt: hook.CreatedAt, Person: m.person}); err != nil {
		// Without its secret the webhook is useless: take it back.
		if derr := m.bank.DeleteWebhook(context.WithoutCancel(ctx), hook.ID); derr != nil {
			return hook, fmt.Errorf("store secret of webhook %s: %w (and deleting it failed: %w)", hook.ID, err, derr)
		}
		return hook, fmt.Errorf("store secret of webhook %s (deleted it again): %w", hook.ID, err)
	}
	return hook, nil
}

// orphans lists the bank's webhooks for url whose secret the mirror does
// not hold.
func (m *Manager) orphans(ctx context.Context, url string) []string {
	hooks, err := m.bank.Webhooks(ctx)
	if err != nil {
		return nil
	}
	var out []string
	for _, h := range hooks {
		if h.URL == url && !m.secretStored(ctx, h.ID) {
			out = append(out, h.ID)
		}
	}
	return out
}

// secretStored reports whether the mirror holds the secret of the active
// webhook id.
func (m *Manager) secretStored(ctx context.Context, id string) bool {
	local, err := m.store.Webhook(ctx, id)
	return err == nil && local.DeletedAt == nil && local.SecretKey != ""
}

// Listed is one of the bank's webhooks, and whether this mirror holds its
// secret (it was registered here).
type Listed struct {
	bank.Webhook
	SecretStored bool
}

// List returns the bank's webhooks.
func (m *Manager) List(ctx context.Context) ([]Listed, error) {
	hooks, err := m.bank.Webhooks(ctx)
	if err != nil {
		return nil, err
	}
	out := make([]Listed, len(hooks))
	for i, h := range hooks {
		out[i] = Listed{Webhook: h, SecretStored: m.secretStored(ctx, h.ID)}
	}
	return out, nil
}

// Delete deletes webhook id at the bank and marks it deleted in the mirror
// (its secret still verifies deliveries for store.SecretGrace, then is
// erased). existed is false when the bank did not know it.
func (m *Manager) Delete(ctx context.Context, id string) (existed bool, err error) {
	err = m.bank.DeleteWebhook(ctx, id)
	if err != nil && !errors.Is(err, bank.ErrNotFound) {
		return false, err
	}
	if merr := m.store.MarkWebhookDeleted(ctx, id); merr != nil {
		return false, merr
	}
	return err == nil, nil
}

// Rotation is the result of Rotate.
type Rotation struct {
	Old, New bank.Webhook
	// Recovered is how many undelivered events of the old webhook were
	// taken from its delivery log into the inbox before its deletion.
	Recovered int
}

// Rotate follows the bank's procedure for a new secret: create a webhook
// with the same URL and description, keep its secret, then delete the old
// one. Both secrets verify deliveries throughout, and the old one for
// store.SecretGrace after.
func (m *Manager) Rotate(ctx context.Context, id string) (Rotation, error) {
	var r Rotation
	old, err := m.bank.Webhook(ctx, id)
	if err != nil {
		return r, fmt.Errorf("rotate webhook %s: %w", id, err)
	}
	r.Old = old
	if r.New, err = m.Register(ctx, old.URL, old.Description); err != nil {
		return r, fmt.Errorf("rotate webhook %s: %w", id, err)
	}
	// Deliveries to the old webhook that failed stop being retried once it
	// is deleted: take its delivery log's events into the inbox first.
	if res, err := m.healer.Heal(ctx); err != nil {
		m.log.Warn().Err(err).Str(logfield.WebhookID, id).Msg("heal delivery logs before deleting the old webhook")
	} else {
		r.Recovered = res.Recovered
	}
	if err := m.bank.DeleteWebhook(ctx, id); err != nil && !errors.Is(err, bank.ErrNotFound) {
		return r, fmt.Errorf("rotate webhook %s: new webhook %s is live, but deleting the old one failed: %w", id, r.New.ID, err)
	}
	if err := m.store.MarkWebhookDeleted(ctx, id); err != nil {
		return r, err
	}
	return r, nil
}
