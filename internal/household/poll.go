package household

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/bankmirror/bankmirror/internal/bank"
	"github.com/bankmirror/bankmirror/internal/logfield"
	"github.com/bankmirror/bankmirror/internal/replica"
)

// Joint accounts get no webhook events (the bank sends none for 2Up
// accounts), so they are polled: every PollInterval, each joint account's
// transactions created since its newest known one (less PollOverlap) are
// listed through whichever token that sees it has the most budget left. A
// quiet poll costs one request. What a "since" listing cannot show by
// itself, a hold that settled or was dropped, is caught by listing since
// the account's oldest HELD transaction instead when it is older: a
// settled hold keeps its createdAt and shows SETTLED, and a HELD one the
// complete listing lacks is fetched again (a 404 deletes it). Holds are
// few and short-lived, so that listing is one page but on a busy account
// with an old hold. A poll that changed something also fetches the
// account, whose balance moved, and so does one that finds a transaction
// written after the account's balance (a sync that listed the accounts
// before that transaction came).

// PollResult summarises one poll of every joint account.
type PollResult struct {
	Accounts int // joint accounts polled
	Requests int64
	Upserted int64
	Deleted  int64
}

// Poll polls every joint account once.
func (h *Household) Poll(ctx context.Context) (PollResult, error) {
	var pr PollResult
	ms := h.snapshot()
	if len(ms) == 0 {
		return pr, nil
	}
	accounts, err := h.store.AccountsWithPeople(ctx)
	if err != nil {
		return pr, err
	}
	var held map[string]string
	var listed map[string]bool
	s := replica.New(ms[0].client, h.mirror, h.base, replica.Options{StopGrace: h.opts.Sync.StopGrace})
	ctx = bank.WithLane(ctx, bank.LaneWebhook)
	var errs []error
	for _, a := range accounts {
		if a.OwnershipType != "JOINT" || a.GoneAt != "" {
			continue
		}
		cands := byHeadroom(seeing(ms, a.ListedBy))
		if len(cands) == 0 {
			continue // no token sees it now: the syncs say so
		}
		edges, err := h.store.AccountEdgesOf(ctx, a.AccountID)
		if err != nil {
			return pr, err
		}
		var since time.Time // an account listed whole with nothing in it: all of it (one request)
		if edges.Newest == "" {
			if listed == nil {
				if listed, err = h.listed(ctx); err != nil {
					return pr, err
				}
			}
			if !listed[a.AccountID] {
				continue // not mirrored yet: a sync lists it whole
			}
		} else if since, err = pollSince(edges.Newest, edges.OldestHeld, h.opts.PollOverlap); err != nil {
			return pr, err
		}
		if held == nil {
			if held, err = h.store.HeldTransactionAccounts(ctx); err != nil {
				return pr, err
			}
		}
		var heldIDs []string
		for id, acc := range held {
			if acc == a.AccountID {
				heldIDs = append(heldIDs, id)
			}
		}
		pr.Accounts++
		for _, m := range cands {
			req0 := m.client.Requests()
			r, err := s.PollAccount(ctx, m.client, a.AccountID, since, heldIDs)
			pr.Requests += m.client.Requests() - req0
			pr.Upserted += r.Upserted
			pr.Deleted += r.Deleted
			if h.opts.OnPoll != nil {
				h.opts.OnPoll(a.AccountID, m.name, r, err)
			}
			if errors.Is(err, bank.ErrUnauthorized) {
				h.recordToken(context.WithoutCancel(ctx), m, false)
				continue // the other token polls it
			}
			if err == nil {
				// The balance moved with the transactions (this poll's, or
				// those a sync brought after it listed the accounts): one
				// request more.
				stale := r.Upserted+r.Deleted > 0
				if !stale {
					stale, err = h.store.BalanceOlder(ctx, a.AccountID)
				}
				if err == nil && stale {
					err = h.refreshBalance(ctx, m, a.AccountID)
					pr.Requests++
				}
			}
			if err != nil {
				errs = append(errs, fmt.Errorf("poll joint account %s through %s: %w", a.AccountID, m.name, err))
			}
			break
		}
	}
	return pr, errors.Join(errs...)
}

// refreshBalance stores the account as m's token sees it now.
func (h *Household) refreshBalance(ctx context.Context, m *member, account string) error {
	a, err := m.client.Account(ctx, account)
	if err != nil {
		return err
	}
	_, err = h.store.UpsertAccounts(ctx, []bank.Account{a})
	return err
}

// pollSince is where a poll of an account starts: its newest known
// transaction less overlap, or its oldest HELD one when older.
func pollSince(newest, oldestHeld string, overlap time.Duration) (time.Time, error) {
	t, err := time.Parse(time.RFC3339, newest)
	if err != nil {
		return time.Time{}, fmt.Errorf("parse newest createdAt %q: %w", newest, err)
	}
	since := t.Add(-overlap)
	if oldestHeld != "" {
		h, err := time.Parse(time.RFC3339, oldestHeld)
		if err != nil {
			return time.Time{}, fmt.Errorf("parse createdAt %q: %w", oldestHeld, err)
		}
		if h.Before(since) {
			since = h
		}
	}
	return since, nil
}

// RunPoller polls the joint accounts every PollInterval until ctx ends
// (not at all when it is 0). A poll's failure is logged; the next one
// tries again.
func (h *Household) RunPoller(ctx context.Context) {
	if h.opts.PollInterval <= 0 {
		return
	}
	t := time.NewTicker(h.opts.PollInterval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		r, err := h.Poll(ctx)
		if err != nil && ctx.Err() == nil {
			h.log.Warn().Err(err).Msg("poll of joint accounts")
			continue
		}
		ev := h.log.Debug() //nolint:zerologlint // sent below
		if r.Upserted+r.Deleted > 0 {
			ev = h.log.Info() //nolint:zerologlint // sent below
		}
		ev.Int(logfield.Accounts, r.Accounts).Int64(logfield.Requests, r.Requests).Int64(logfield.Upserted, r.Upserted).
			Int64(logfield.Deleted, r.Deleted).Msg("joint accounts polled")
	}
}
