package replica

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/bankmirror/bankmirror/internal/bank"
	"github.com/bankmirror/bankmirror/internal/logfield"
	"github.com/bankmirror/bankmirror/internal/store"
)

// Syncing a set of accounts, each through a client that sees it: what a
// household (internal/household), whose people each have their own token,
// asks of the syncer. Each account is listed once, through
// /accounts/{id}/transactions, whichever of its clients lists it.

// Route says through which clients an account is listed: the first, or,
// when the bank rejects its token, the next.
type Route struct {
	AccountID string
	Banks     []Bank
}

// HeldRoute is a client and the accounts it sees: its list of what is
// HELD vouches for those accounts.
type HeldRoute struct {
	Bank     Bank
	Accounts []string
}

// accountsStore is what listing accounts needs of the store besides the
// syncer's.
type accountsStore interface {
	FinishListingOf(ctx context.Context, l *store.Listing, accounts []string, complete bool) ([]string, error)
	HeldTransactionAccounts(ctx context.Context) (map[string]string, error)
}

var _ accountsStore = (*store.Store)(nil)

// listingPlan is the order in which a listing of accounts goes, kept
// (daemon_state) so that a resumed listing knows what follows the account
// its checkpoint is in.
type listingPlan struct {
	Accounts []string `json:"accounts"`
	// Skipped are the accounts no client could list (every token
	// rejected): none of their transactions is deleted.
	Skipped []string `json:"skipped,omitempty"`
}

func planKey(name string) string { return "listing_plan:" + name }

// ListAccounts runs (or resumes) the complete listing called name of the
// routes' accounts, one after the other, each through its first client
// whose token the bank accepts, with a checkpoint after every page; then
// deletes what it did not list on the accounts it listed. An account no
// client could list is skipped: nothing of it is deleted. It returns the
// accounts listed whole.
func (s *Syncer) ListAccounts(ctx context.Context, run *RunState, name string, routes []Route) ([]string, error) {
	st, ok := s.store.(accountsStore)
	if !ok {
		return nil, errors.New("list accounts: the store cannot finish a listing of accounts")
	}
	r := &run.Result
	byID := map[string]Route{}
	for _, rt := range routes {
		if len(rt.Banks) > 0 {
			byID[rt.AccountID] = rt
		}
	}
	first := func(id string) string {
		if rt, ok := byID[id]; ok {
			return rt.Banks[0].TransactionsURL(bank.TransactionFilter{AccountID: id})
		}
		return s.bank.TransactionsURL(bank.TransactionFilter{AccountID: id})
	}
	fresh := listingPlan{}
	for id := range byID {
		fresh.Accounts = append(fresh.Accounts, id)
	}
	slices.Sort(fresh.Accounts)
	if len(fresh.Accounts) == 0 {
		return nil, nil
	}
	l, err := s.store.BeginListing(ctx, name, first(fresh.Accounts[0]), s.now().Add(-s.opts.ResumeWindow))
	if err != nil {
		return nil, err
	}
	plan, at := fresh, 0
	if l.Resumed {
		var saved listingPlan
		_, ok, err := s.store.GetState(ctx, planKey(name), &saved)
		if err != nil {
			return nil, err
		}
		at = planIndex(saved.Accounts, l.NextURL)
		if !ok || (at < 0 && l.NextURL != "") {
			// A checkpoint of another kind of listing (one of every
			// account through /transactions, before the household): start
			// over in this plan.
			s.log.Info().Str(logfield.Listing, name).Msg("checkpoint not of a listing of accounts; starting it over")
			if l, err = s.store.RestartListing(ctx, name, first(fresh.Accounts[0])); err != nil {
				return nil, err
			}
		} else {
			plan = saved
			r.Resumed = true
			s.log.Info().Str(logfield.Listing, name).Int(logfield.PagesDone, l.Pages).Msg("resuming interrupted listing of accounts")
		}
	}
	if !l.Resumed {
		plan, at = fresh, 0
		if err := s.store.PutState(ctx, planKey(name), plan); err != nil {
			return nil, err
		}
	}
	fail := func(err error) ([]string, error) {
		if ferr := s.store.ListingFailed(run.cleanup, l.Name); ferr != nil {
			s.log.Warn().Err(ferr).Msg("count listing failure")
		}
		return nil, err
	}
	for i := max(at, 0); i < len(plan.Accounts) && l.NextURL != ""; i++ {
		id := plan.Accounts[i]
		next := ""
		if i+1 < len(plan.Accounts) {
			next = first(plan.Accounts[i+1])
		}
		from := l.NextURL
		if i != at {
			from = first(id)
		}
		listed, err := s.listAccount(ctx, &l, byID[id], from, next, r)
		if err != nil {
			return fail(err)
		}
		if !listed {
			s.log.Warn().Str(logfield.AccountID, id).Msg("no token the bank accepts sees the account; its transactions wait for the next listing")
			plan.Skipped = append(plan.Skipped, id)
			if err := s.store.PutState(ctx, planKey(name), plan); err != nil {
				return fail(err)
			}
			// The checkpoint moves on to the next account.
			if _, err := s.store.SaveListingPage(ctx, &l, nil, next); err != nil {
				return fail(err)
			}
		}
	}
	var done []string
	for _, id := range plan.Accounts {
		if !slices.Contains(plan.Skipped, id) {
			done = append(done, id)
		}
	}
	deleted, err := st.FinishListingOf(ctx, &l, done, len(plan.Skipped) == 0)
	if err != nil {
		return nil, err
	}
	r.Deleted += int64(len(deleted))
	for _, id := range deleted {
		s.log.Info().Str(logfield.TransactionID, id).Msg("transaction gone from the bank; deleted")
	}
	return done, nil
}

// listAccount lists one account from the page from on, through the first
// of its route's clients whose token the bank accepts, saving each page
// with its checkpoint; after its last page the checkpoint points at next.
// It reports false when no client could list it.
func (s *Syncer) listAccount(ctx context.Context, l *store.Listing, rt Route, from, next string, r *Result) (bool, error) {
	save := func(p bank.Page[bank.Transaction]) (store.UpsertResult, error) {
		n := p.Next
		if n == "" {
			n = next
		}
		return s.store.SaveListingPage(ctx, l, p.Data, n)
	}
	for _, b := range rt.Banks {
		if rejected, _ := b.TokenRejected(); rejected {
			continue
		}
		pages0 := r.Pages
		err := s.consumeFrom(ctx, b, KindFull, from, s.opened, r, save)
		if err != nil && r.Pages == pages0 && permanent(err) && from != b.TransactionsURL(bank.TransactionFilter{AccountID: rt.AccountID}) {
			// A saved cursor the bank no longer accepts: this account
			// starts over (what was listed of it stays seen).
			s.log.Warn().Err(err).Str(logfield.AccountID, rt.AccountID).Msg("saved listing cursor refused; listing the account from its start")
			from = b.TransactionsURL(bank.TransactionFilter{AccountID: rt.AccountID})
			err = s.consumeFrom(ctx, b, KindFull, from, s.opened, r, save)
		}
		if errors.Is(err, bank.ErrUnauthorized) {
			from = l.NextURL // another token goes on from the checkpoint
			continue
		}
		return err == nil, err
	}
	return false, nil
}

// planIndex is the index in accounts of the account whose transactions
// pageURL lists (/accounts/{id}/transactions), -1 when none.
func planIndex(accounts []string, pageURL string) int {
	u, err := url.Parse(pageURL)
	if err != nil {
		return -1
	}
	p := strings.TrimSuffix(u.Path, "/transactions")
	i := strings.LastIndex(p, "/accounts/")
	if i < 0 || p == u.Path {
		return -1
	}
	id, err := url.PathUnescape(p[i+len("/accounts/"):])
	if err != nil {
		return -1
	}
	return slices.Index(accounts, id)
}

// ListSince upserts what the bank lists of one account's transactions
// (every account b sees when accountID is "") created since since,
// through b: an incremental pass.
func (s *Syncer) ListSince(ctx context.Context, run *RunState, b Bank, accountID string, since time.Time) error {
	upsert := func(p bank.Page[bank.Transaction]) (store.UpsertResult, error) {
		return s.store.UpsertTransactions(ctx, p.Data)
	}
	return s.consumeFrom(ctx, b, run.Kind, b.TransactionsURL(bank.TransactionFilter{AccountID: accountID, Since: since}), since, &run.Result, upsert)
}

// ReconcileHeldRoutes is reconcileHeld for several clients: each lists
// what it holds now, and each locally HELD transaction that no client
// seeing its account lists as held any more is fetched again through one
// of them. A transaction whose account no route covers is left alone.
func (s *Syncer) ReconcileHeldRoutes(ctx context.Context, run *RunState, routes []HeldRoute) error {
	st, ok := s.store.(accountsStore)
	if !ok {
		return errors.New("reconcile holds: the store cannot tell a transaction's account")
	}
	r := &run.Result
	heldNow := map[string]bool{}
	via := map[string]Bank{}
	for _, rt := range routes {
		if rejected, _ := rt.Bank.TokenRejected(); rejected {
			continue
		}
		err := s.consumeFrom(ctx, rt.Bank, run.Kind, rt.Bank.TransactionsURL(bank.TransactionFilter{Status: "HELD"}), time.Time{}, r,
			func(p bank.Page[bank.Transaction]) (store.UpsertResult, error) {
				for _, t := range p.Data {
					heldNow[t.ID] = true
				}
				return s.store.UpsertTransactions(ctx, p.Data)
			})
		if errors.Is(err, bank.ErrUnauthorized) {
			continue
		}
		if err != nil {
			return err
		}
		for _, a := range rt.Accounts {
			if via[a] == nil {
				via[a] = rt.Bank
			}
		}
	}
	local, err := st.HeldTransactionAccounts(ctx)
	if err != nil {
		return err
	}
	ids := make([]string, 0, len(local))
	for id := range local {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	for _, id := range ids {
		b := via[local[id]]
		if heldNow[id] || b == nil {
			continue
		}
		if err := s.refetchFrom(ctx, b, id, r); err != nil && !errors.Is(err, bank.ErrUnauthorized) {
			return err
		}
	}
	return nil
}

// SyncCatalogs mirrors what is not an account's: the categories (through
// the first client), the tags in use (every client's; the list is
// replaced only when complete) and the attachments (every client's; those
// none lists are deleted only when complete). complete says that banks
// holds a client of every person.
func (s *Syncer) SyncCatalogs(ctx context.Context, banks []Bank, complete bool) error {
	if len(banks) == 0 {
		return nil
	}
	cats, err := banks[0].Categories(ctx)
	if err != nil {
		return err // the client names the request
	}
	if err := s.store.ReplaceCategories(ctx, cats); err != nil {
		return err
	}
	var tags []bank.Tag
	seen := map[string]bool{}
	for _, b := range banks {
		ts, err := b.Tags(ctx)
		if err != nil {
			return err
		}
		for _, t := range ts {
			if !seen[t.ID] {
				seen[t.ID] = true
				tags = append(tags, t)
			}
		}
	}
	if complete {
		if err := s.store.ReplaceTags(ctx, tags); err != nil {
			return err
		}
	}
	return s.syncAttachmentsFrom(ctx, banks, complete)
}

// AddAttachments stores the attachment lists of banks, deleting nothing:
// the receipts of accounts new to the mirror, between full syncs.
func (s *Syncer) AddAttachments(ctx context.Context, banks []Bank) error {
	return s.syncAttachmentsFrom(ctx, banks, false)
}

// StoreAccounts stores the accounts a household's people listed (each
// once) and notes the oldest one's opening, the floor of a full listing's
// progress.
func (s *Syncer) StoreAccounts(ctx context.Context, accounts []bank.Account) error {
	if _, err := s.store.UpsertAccounts(ctx, accounts); err != nil {
		return fmt.Errorf("store accounts: %w", err)
	}
	s.noteOpened(accounts)
	return nil
}

// NeedsFull reports whether the mirror has never completed a full listing
// or has one in progress, and the newest createdAt it holds.
func (s *Syncer) NeedsFull(ctx context.Context) (bool, error) {
	need, err := s.store.NeedsFullSync(ctx)
	if err != nil {
		return false, err
	}
	newest, err := s.store.NewestCreatedAt(ctx)
	if err != nil {
		return false, err
	}
	return need || newest == "", nil
}

// Overlap is how far before the newest known createdAt an incremental
// pass starts listing.
func (s *Syncer) Overlap() time.Duration { return s.opts.Overlap }

// TokenRejected reports whether the bank rejected the syncer's client's
// token, and a channel closed when it gets a new one.
func (s *Syncer) TokenRejected() (bool, <-chan struct{}) { return s.bank.TokenRejected() }

// PollAccount makes the mirror's copy of one account's transactions
// created since since equal to the bank's, through b, outside any run (no
// sync_runs row, no sync lock: like the event worker it only writes what
// the bank just said): it lists them, then fetches again each of held
// (the account's HELD transactions created since since) the listing did
// not show, which settled under a new id or was dropped. A quiet account
// costs one request.
func (s *Syncer) PollAccount(ctx context.Context, b Bank, accountID string, since time.Time, held []string) (Result, error) {
	r := Result{Kind: KindPoll}
	seen := map[string]bool{}
	err := s.consumeFrom(ctx, b, KindPoll, b.TransactionsURL(bank.TransactionFilter{AccountID: accountID, Since: since}), since, &r,
		func(p bank.Page[bank.Transaction]) (store.UpsertResult, error) {
			for _, t := range p.Data {
				seen[t.ID] = true
			}
			return s.store.UpsertTransactions(ctx, p.Data)
		})
	if err != nil {
		return r, err
	}
	for _, id := range held {
		if seen[id] {
			continue
		}
		if err := s.refetchFrom(ctx, b, id, &r); err != nil {
			return r, err
		}
	}
	return r, nil
}

// KindPoll names the listings of a poll (Progress.Kind).
const KindPoll = "poll"
