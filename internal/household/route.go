package household

import (
	"context"
	"slices"
	"time"

	"github.com/bankmirror/bankmirror/internal/bank"
	"github.com/bankmirror/bankmirror/internal/replica"
	"github.com/bankmirror/bankmirror/internal/store"
)

// BankForEvent is the client through which the event worker fetches an
// event's transaction: that of the person whose webhook delivered it
// (webhooks.person), who sees its account; the first person's for a
// webhook whose person is unknown (one made elsewhere, or from before the
// household). The worker's WorkerOptions.BankFor.
func (h *Household) BankForEvent(e store.InboxEvent) replica.WorkerBank {
	if c := h.Client(h.webhookPerson(e.WebhookID)); c != nil {
		return c
	}
	return h.Primary()
}

// webhookPerson is whose token registered the webhook, "" when unknown.
// The map is read again whenever a webhook is not in it (one registered
// since): events reach the inbox only with a valid signature, so the
// webhooks are few and the reads rare.
func (h *Household) webhookPerson(id string) string {
	h.mu.Lock()
	p, ok := h.hooks[id]
	h.mu.Unlock()
	if ok || id == "" {
		return p
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	hooks, err := h.store.WebhookPeople(ctx)
	if err != nil {
		h.log.Warn().Err(err).Msg("read whose webhooks they are")
		return ""
	}
	if _, ok := hooks[id]; !ok {
		hooks[id] = "" // a webhook of no person: not read again for it
	}
	h.mu.Lock()
	h.hooks = hooks
	h.mu.Unlock()
	return hooks[id]
}

// HealBank is the client of person's token, which reads their webhooks'
// delivery logs (nil when no such person: their webhooks are skipped).
// The healer's HealerOptions.BankFor.
func (h *Household) HealBank(person string) replica.HealBank {
	if c := h.Client(person); c != nil {
		return c
	}
	return nil
}

// RefreshBalances fetches the balances of accounts, each through a token
// that sees it and has budget left, and stores them. The worker's
// WorkerOptions.RefreshBalances.
func (h *Household) RefreshBalances(ctx context.Context, ids []string) error {
	known, err := h.store.AccountsWithPeople(ctx)
	if err != nil {
		return err
	}
	people := map[string][]string{}
	for _, a := range known {
		people[a.AccountID] = a.ListedBy
	}
	ms := h.snapshot()
	var accounts []bank.Account
	var firstErr error
	for _, id := range ids {
		cands := seeing(ms, people[id])
		if len(cands) == 0 && len(ms) > 0 {
			cands = ms[:1] // not listed yet: the first person's event
		}
		for _, m := range byHeadroom(cands) {
			a, err := m.client.Account(ctx, id)
			if err == nil {
				accounts = append(accounts, a)
				break
			}
			if firstErr == nil {
				firstErr = err
			}
		}
	}
	if len(accounts) > 0 {
		if _, err := h.store.UpsertAccounts(ctx, accounts); err != nil {
			return err
		}
	}
	if len(accounts) == 0 {
		return firstErr
	}
	return nil
}

// seeing is the members among ms named in names.
func seeing(ms []*member, names []string) []*member {
	var out []*member
	for _, m := range ms {
		if slices.Contains(names, m.name) {
			out = append(out, m)
		}
	}
	return out
}
