package household

import (
	"context"
	"errors"
	"slices"
	"time"

	"github.com/bankmirror/bankmirror/internal/bank"
	"github.com/bankmirror/bankmirror/internal/replica"
	"github.com/bankmirror/bankmirror/internal/store"
)

// BankForEvent is the client through which the event worker fetches an
// event's transaction: that of the person whose webhook delivered it
// (webhooks.person), who sees its account. When that person's token is
// rejected, or the webhook's person is unknown (one made elsewhere), a
// token that sees the account of the transaction, if it is mirrored; else
// the person's own (the event waits for their token) or the first
// person's. The worker's WorkerOptions.BankFor.
func (h *Household) BankForEvent(e store.InboxEvent) replica.WorkerBank {
	if ms := h.snapshot(); len(ms) == 1 {
		// Every way below leads to the one person's client: no read of
		// the mirror for each event.
		return ms[0].client
	}
	c := h.Client(h.webhookPerson(e.WebhookID))
	if c != nil {
		if rejected, _ := c.TokenRejected(); !rejected {
			return c
		}
	}
	if other := h.seeingTransaction(e.TransactionID); other != nil {
		return other
	}
	if c != nil {
		return c
	}
	return h.Primary()
}

// seeingTransaction is the client of a person whose token sees the
// account of a mirrored transaction and is not rejected, the one with the
// most budget left; nil when there is none.
func (h *Household) seeingTransaction(id string) *bank.Client {
	if id == "" {
		return nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	accounts, err := h.store.TransactionAccounts(ctx, []string{id})
	if err != nil {
		h.log.Warn().Err(err).Msg("read a transaction's account")
		return nil
	}
	a, ok := accounts[id]
	if !ok {
		return nil
	}
	if ms := byHeadroom(seeing(h.snapshot(), a.People)); len(ms) > 0 {
		return ms[0].client
	}
	return nil
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

// Attachment fetches an attachment (a receipt, with a fresh download
// link) through the token of a person who has it: attachments are each
// person's own, and another person's token answers 404, so the next
// token is asked. The receipts downloader's Bank.
func (h *Household) Attachment(ctx context.Context, id string) (bank.Attachment, error) {
	err := ErrNoToken
	for _, m := range byHeadroom(h.snapshot()) {
		a, aerr := m.client.Attachment(ctx, id)
		if !errors.Is(aerr, bank.ErrNotFound) {
			return a, aerr
		}
		err = aerr
	}
	return bank.Attachment{}, err
}
