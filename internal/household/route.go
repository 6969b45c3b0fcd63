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
// event's transaction. A transaction the mirror holds is fetched through
// the token of a person who sees its account (account_people): the
// webhook's person's when they are one, else the one with the most budget
// left; when every such token is rejected, one of them all the same (the
// event waits for a new token); none (nil) when no person of the household
// sees the account: the worker leaves the transaction as it is. A webhook
// delivers events of any transaction its secret's holder names, so its
// person's token is not taken on trust: its 404 for another person's
// transaction would delete it. A transaction the mirror does not hold yet
// is fetched through the token of the webhook's person, or the first
// person's for a webhook of no person (made elsewhere). The worker's
// WorkerOptions.BankFor.
func (h *Household) BankForEvent(e store.InboxEvent) replica.WorkerBank {
	ms := h.snapshot()
	if len(ms) == 1 {
		// The one token the household has: no read of the mirror for
		// each event (MayDelete still keeps its 404 from deleting what
		// it does not see).
		return ms[0].client
	}
	person := h.webhookPerson(e.WebhookID)
	if a, held := h.transactionAccount(e.TransactionID); held {
		return seeingClient(ms, a.People, person)
	}
	if c := h.Client(person); c != nil {
		return c
	}
	if p := h.Primary(); p != nil {
		return p
	}
	return nil
}

// MayDelete reports which of ids a 404 through b, or their absence from
// b's listing, shows deleted: those the mirror does not hold (no row of the
// mirror's is deleted; a tombstone keeps an older copy out), and those on
// an account b's person sees (account_people). The others are on accounts
// b's token does not see, so its 404 says nothing of them. The worker's
// WorkerOptions.MayDelete.
func (h *Household) MayDelete(ctx context.Context, b replica.WorkerBank, ids []string) (map[string]bool, error) {
	accounts, err := h.store.TransactionAccounts(ctx, ids)
	if err != nil {
		return nil, err
	}
	person := ""
	for _, m := range h.snapshot() {
		if replica.WorkerBank(m.client) == b {
			person = m.name
		}
	}
	out := make(map[string]bool, len(ids))
	for _, id := range ids {
		a, held := accounts[id]
		out[id] = !held || person != "" && slices.Contains(a.People, person)
	}
	return out, nil
}

// seeingClient is the client of a person among ms who sees an account
// people see: person's if they are one and their token is not rejected,
// else the one with the most budget left; when every such token is
// rejected, person's or the first one's; nil when none of ms sees it.
func seeingClient(ms []*member, people []string, person string) replica.WorkerBank {
	seers := seeing(ms, people)
	if len(seers) == 0 {
		return nil
	}
	var own *member
	for _, m := range seers {
		if m.name == person {
			own = m
		}
	}
	if own != nil {
		if rejected, _ := own.client.TokenRejected(); !rejected {
			return own.client
		}
	}
	if ok := byHeadroom(seers); len(ok) > 0 {
		return ok[0].client
	}
	if own != nil {
		return own.client
	}
	return seers[0].client
}

// transactionAccount is the account of a mirrored transaction and who
// sees it; false when the mirror does not hold it (or cannot be read:
// MayDelete reads it again before anything is deleted).
func (h *Household) transactionAccount(id string) (store.TxAccount, bool) {
	if id == "" {
		return store.TxAccount{}, false
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	accounts, err := h.store.TransactionAccounts(ctx, []string{id})
	if err != nil {
		h.log.Warn().Err(err).Msg("read a transaction's account")
		return store.TxAccount{}, false
	}
	a, ok := accounts[id]
	return a, ok
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
