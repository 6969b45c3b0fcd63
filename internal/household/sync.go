package household

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/bankmirror/bankmirror/internal/bank"
	"github.com/bankmirror/bankmirror/internal/logfield"
	"github.com/bankmirror/bankmirror/internal/replica"
	"github.com/bankmirror/bankmirror/internal/store"
)

// listedKey is the daemon_state key of the accounts whose whole history
// the mirror holds: an account a person's listing shows that is not among
// them (a person added, an account opened) is listed whole once.
const listedKey = "household_listed_accounts"

// Listing names (sync_state.name): the full listing of every account,
// the same name as a mirror of one token's, and the listing of accounts
// new to the mirror.
const (
	fullListing     = "transactions"
	backfillListing = "backfill"
)

// ErrNoToken is returned by a sync when the bank rejected every person's
// token; it unwraps to bank.ErrUnauthorized.
var ErrNoToken = fmt.Errorf("the bank rejected every person's token: %w", bank.ErrUnauthorized)

var _ replica.Runner = (*Household)(nil)

// syncer is a syncer through ms's first client counting the requests of
// all of ms.
func (h *Household) syncer(ms []*member, opts replica.Options) *replica.Syncer {
	opts.Requests = requests(ms)
	return replica.New(ms[0].client, h.mirror, h.base, opts)
}

// single reports whether ms is a household of one whose mirror never had
// another person: it syncs as a mirror of one token always did, through
// /transactions (the same requests, the same checkpoints).
func (h *Household) single(ctx context.Context, ms []*member) (bool, error) {
	if len(ms) != 1 {
		return false, nil
	}
	others, err := h.store.OtherPeopleSeen(ctx, ms[0].name)
	return !others, err
}

// singleOptions are the sync options of a household of one: its listing
// of accounts records them as the person's.
func (h *Household) singleOptions(m *member) replica.Options {
	opts := h.opts.Sync
	opts.OnAccounts = func(ctx context.Context, accounts []bank.Account) error {
		ids := make([]string, len(accounts))
		for i, a := range accounts {
			ids[i] = a.ID
		}
		return h.store.RecordPersonAccounts(ctx, m.name, ids)
	}
	return opts
}

// Full lists every person's accounts, then every distinct account's
// transactions once (resuming an interrupted listing), and deletes what
// no token that sees an account lists any more; then what is HELD, the
// categories, tags and attachments. A person whose token the bank
// rejected is left out: their accounts keep what they have (an account
// another token sees is listed through it).
func (h *Household) Full(ctx context.Context) (replica.Result, error) {
	ms := h.snapshot()
	if len(ms) == 0 {
		return replica.Result{}, errors.New("full sync: no person in the household")
	}
	single, err := h.single(ctx, ms)
	if err != nil {
		return replica.Result{}, err
	}
	if single {
		res, err := h.syncer(ms, h.singleOptions(ms[0])).Full(ctx)
		h.afterRun(ctx, ms, err)
		return res, err
	}
	s := h.syncer(ms, h.opts.Sync)
	res, err := s.Run(ctx, replica.KindFull, func(ctx context.Context, run *replica.RunState) error {
		ctx = bank.WithLane(ctx, bank.LaneFull)
		l, err := h.listAccounts(ctx, s, ms)
		if err != nil {
			return err
		}
		done, err := s.ListAccounts(ctx, run, fullListing, l.routes())
		if err != nil {
			return err
		}
		if err := h.addListed(ctx, done); err != nil {
			return err
		}
		if err := s.ReconcileHeldRoutes(ctx, run, l.heldRoutes()); err != nil {
			return err
		}
		return s.SyncCatalogs(ctx, l.banks(), len(l.failed) == 0)
	})
	h.afterRun(ctx, ms, err)
	return res, err
}

// Incremental lists every person's accounts, lists whole the accounts
// new to the mirror, and what the others have had lately, one listing
// per person (listRecent); then what is HELD. When no full sync has completed (or one was
// interrupted) it runs, or resumes, one instead.
func (h *Household) Incremental(ctx context.Context) (replica.Result, error) {
	ms := h.snapshot()
	if len(ms) == 0 {
		return replica.Result{}, errors.New("incremental sync: no person in the household")
	}
	single, err := h.single(ctx, ms)
	if err != nil {
		return replica.Result{}, err
	}
	if single {
		res, err := h.syncer(ms, h.singleOptions(ms[0])).Incremental(ctx)
		h.afterRun(ctx, ms, err)
		return res, err
	}
	s := h.syncer(ms, h.opts.Sync)
	need, err := s.NeedsFull(ctx)
	if err != nil {
		return replica.Result{}, err
	}
	if need {
		h.log.Info().Msg("no complete full sync yet; running (or resuming) one")
		return h.Full(ctx)
	}
	listed, err := h.listed(ctx)
	if err != nil {
		return replica.Result{}, err
	}
	res, err := s.Run(ctx, replica.KindIncremental, func(ctx context.Context, run *replica.RunState) error {
		ctx = bank.WithLane(ctx, bank.LaneIncremental)
		l, err := h.listAccounts(ctx, s, ms)
		if err != nil {
			return err
		}
		var fresh, known []replica.Route
		for _, rt := range l.routes() {
			if listed[rt.AccountID] {
				known = append(known, rt)
			} else {
				fresh = append(fresh, rt)
			}
		}
		if len(fresh) > 0 {
			// Accounts new to the mirror (a person added, an account
			// opened) are listed whole, once; what the mirror holds is not
			// listed again.
			done, err := s.ListAccounts(bank.WithLane(ctx, bank.LaneFull), run, backfillListing, fresh)
			if err != nil {
				return err
			}
			if err := h.addListed(ctx, done); err != nil {
				return err
			}
			// Their receipts too (a full sync lists every person's).
			var banks []replica.Bank
			for _, rt := range fresh {
				if len(rt.Banks) > 0 && !slices.Contains(banks, rt.Banks[0]) {
					banks = append(banks, rt.Banks[0])
				}
			}
			if err := s.AddAttachments(ctx, banks); err != nil {
				return err
			}
		}
		if err := h.listRecent(ctx, s, run, l, known); err != nil {
			return err
		}
		return s.ReconcileHeldRoutes(ctx, run, l.heldRoutes())
	})
	h.afterRun(ctx, ms, err)
	return res, err
}

// throughKey is the daemon_state key of the instant through which each
// account's transactions are known complete (RFC 3339, by account id):
// when the last listing of its person's transactions that started then
// ended.
const throughKey = "household_listed_through"

// listRecent lists what each person's accounts have had lately, one
// listing of /transactions per person (a quiet person costs one request,
// however many accounts they have): each account is given to one person
// whose token sees it (the one with the most budget left; none for a
// joint account when it is polled), and a person lists since the oldest
// of their accounts' marks (the instant through which it is known
// complete, or its newest transaction when later) less the overlap. A
// person whose token the bank rejects lists nothing: their accounts keep
// their marks, so the listing after a new token covers the gap; what
// they share with another person that person lists.
func (h *Household) listRecent(ctx context.Context, s *replica.Syncer, run *replica.RunState, l *listing, routes []replica.Route) error {
	through := map[string]time.Time{}
	var saved map[string]string
	if _, _, err := h.store.GetState(ctx, throughKey, &saved); err != nil {
		return err
	}
	for id, v := range saved {
		if t, err := time.Parse(time.RFC3339Nano, v); err == nil {
			through[id] = t
		}
	}
	owner := map[*bank.Client]*member{}
	for _, m := range l.answered {
		owner[m.client] = m
	}
	// Which accounts each person lists for; the others' clients in order.
	todo := map[*member][]replica.Route{}
	var order []*member
	give := func(rt replica.Route) {
		for len(rt.Banks) > 0 {
			c, ok := rt.Banks[0].(*bank.Client)
			m := owner[c]
			if ok && m != nil {
				if _, seen := todo[m]; !seen {
					order = append(order, m)
				}
				todo[m] = append(todo[m], rt)
				return
			}
			rt.Banks = rt.Banks[1:]
		}
	}
	for _, rt := range routes {
		if h.opts.PollInterval > 0 && l.ownership[rt.AccountID] == "JOINT" {
			continue // polled
		}
		give(rt)
	}
	for i := 0; i < len(order); i++ {
		m := order[i]
		rts := todo[m]
		if len(rts) == 0 {
			continue
		}
		since, err := h.recentSince(ctx, rts, through, s.Overlap())
		if err != nil {
			return err
		}
		started := time.Now().UTC()
		err = s.ListSince(ctx, run, m.client, "", since)
		if errors.Is(err, bank.ErrUnauthorized) {
			// The accounts another token sees go to that person.
			delete(todo, m)
			for _, rt := range rts {
				rt.Banks = rt.Banks[1:]
				give(rt)
			}
			continue
		}
		if err != nil {
			return err
		}
		for _, id := range l.byMember[m] {
			if started.After(through[id]) {
				through[id] = started
			}
		}
	}
	out := make(map[string]string, len(through))
	for id, t := range through {
		out[id] = t.Format(time.RFC3339Nano)
	}
	return h.store.PutState(ctx, throughKey, out)
}

// recentSince is where a person's listing of recent transactions starts:
// the oldest of their accounts' marks, each the later of the instant
// through which the account is known complete and its newest transaction,
// less overlap. An account with neither (empty, never listed since) does
// not hold it back. Zero when none has a mark: from the start.
func (h *Household) recentSince(ctx context.Context, rts []replica.Route, through map[string]time.Time, overlap time.Duration) (time.Time, error) {
	var since time.Time
	for _, rt := range rts {
		mark := through[rt.AccountID]
		edges, err := h.store.AccountEdgesOf(ctx, rt.AccountID)
		if err != nil {
			return time.Time{}, err
		}
		if edges.Newest != "" {
			t, err := time.Parse(time.RFC3339, edges.Newest)
			if err != nil {
				return time.Time{}, fmt.Errorf("parse newest createdAt %q: %w", edges.Newest, err)
			}
			if t.After(mark) {
				mark = t
			}
		}
		if mark.IsZero() {
			continue
		}
		if since.IsZero() || mark.Before(since) {
			since = mark
		}
	}
	if since.IsZero() {
		return since, nil
	}
	return since.Add(-overlap), nil
}

// listing is what the people's listings of their accounts said.
type listing struct {
	seenBy    map[string][]*member // account -> the members whose token lists it
	ownership map[string]string    // account -> INDIVIDUAL or JOINT
	byMember  map[*member][]string
	answered  []*member
	failed    []*member // token rejected
}

// listAccounts lists each person's accounts through their own token,
// stores the accounts (each once) and records whose they are. A person
// whose token the bank rejects is left out; when every token is
// rejected it returns ErrNoToken.
func (h *Household) listAccounts(ctx context.Context, s *replica.Syncer, ms []*member) (*listing, error) {
	l := &listing{seenBy: map[string][]*member{}, ownership: map[string]string{}, byMember: map[*member][]string{}}
	var all []bank.Account
	listed := map[string][]string{}
	for _, m := range ms {
		if rejected, _ := m.client.TokenRejected(); rejected {
			l.failed = append(l.failed, m)
			continue
		}
		accounts, err := m.client.Accounts(ctx)
		if errors.Is(err, bank.ErrUnauthorized) {
			l.failed = append(l.failed, m)
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("accounts of %s: %w", m.name, err)
		}
		l.answered = append(l.answered, m)
		ids := make([]string, 0, len(accounts))
		for _, a := range accounts {
			ids = append(ids, a.ID)
			l.ownership[a.ID] = a.OwnershipType
			if len(l.seenBy[a.ID]) == 0 {
				all = append(all, a)
			}
			l.seenBy[a.ID] = append(l.seenBy[a.ID], m)
		}
		l.byMember[m] = ids
		listed[m.name] = ids
	}
	if len(l.answered) == 0 {
		return nil, ErrNoToken
	}
	if err := s.StoreAccounts(ctx, all); err != nil {
		return nil, err
	}
	// A person whose token did not answer keeps what was recorded of
	// them: their accounts are not gone.
	for _, m := range l.answered {
		if err := h.store.RecordPersonAccounts(ctx, m.name, listed[m.name]); err != nil {
			return nil, err
		}
	}
	return l, nil
}

// routes is every listed account, by id, with the clients that see it,
// the one with the most budget left first.
func (l *listing) routes() []replica.Route {
	var out []replica.Route
	for id, ms := range l.seenBy {
		rt := replica.Route{AccountID: id}
		for _, m := range byHeadroom(ms) {
			rt.Banks = append(rt.Banks, m.client)
		}
		out = append(out, rt)
	}
	slices.SortFunc(out, func(a, b replica.Route) int { return strings.Compare(a.AccountID, b.AccountID) })
	return out
}

// heldRoutes is each answering person's client with the accounts it sees.
func (l *listing) heldRoutes() []replica.HeldRoute {
	out := make([]replica.HeldRoute, 0, len(l.answered))
	for _, m := range l.answered {
		out = append(out, replica.HeldRoute{Bank: m.client, Accounts: l.byMember[m]})
	}
	return out
}

// banks is the answering people's clients.
func (l *listing) banks() []replica.Bank {
	out := make([]replica.Bank, 0, len(l.answered))
	for _, m := range l.answered {
		out = append(out, m.client)
	}
	return out
}

// listed returns the accounts whose whole history the mirror holds. A
// mirror from before households holds every account it knows (its
// completed full listing had them all), and so does the mirror of a
// household of one.
func (h *Household) listed(ctx context.Context) (map[string]bool, error) {
	var ids []string
	_, ok, err := h.store.GetState(ctx, listedKey, &ids)
	if err != nil {
		return nil, err
	}
	if !ok {
		accounts, err := h.store.AccountsWithPeople(ctx)
		if err != nil {
			return nil, err
		}
		for _, a := range accounts {
			ids = append(ids, a.AccountID)
		}
		if err := h.store.PutState(ctx, listedKey, ids); err != nil {
			return nil, err
		}
	}
	out := make(map[string]bool, len(ids))
	for _, id := range ids {
		out[id] = true
	}
	return out, nil
}

// addListed records that the mirror holds the whole history of ids.
func (h *Household) addListed(ctx context.Context, ids []string) error {
	have, err := h.listed(ctx)
	if err != nil {
		return err
	}
	all := make([]string, 0, len(have)+len(ids))
	for id := range have {
		all = append(all, id)
	}
	for _, id := range ids {
		if !have[id] {
			all = append(all, id)
		}
	}
	slices.Sort(all)
	return h.store.PutState(ctx, listedKey, all)
}

// afterRun records each person's token state after a run: rejected, or
// accepted (and synced, when the run succeeded); after a success, the
// display names learned from each person's own transactions, and the
// customer id of each person the mirror has none of yet.
func (h *Household) afterRun(ctx context.Context, ms []*member, runErr error) {
	run := ctx
	ctx = context.WithoutCancel(ctx)
	for _, m := range ms {
		h.recordToken(ctx, m, runErr == nil)
	}
	if runErr != nil {
		return
	}
	if _, err := h.store.LearnDisplayNames(ctx); err != nil {
		h.log.Warn().Err(err).Msg("learn display names")
	}
	// A stop cancels the run's context: it does not wait for a ping.
	h.learnCustomerIDs(run, ms)
}

// learnCustomerIDs records the customer id (/util/ping's) of each of ms
// whose token is accepted and whom the mirror knows no id of: one request
// per person, once per mirror.
func (h *Household) learnCustomerIDs(ctx context.Context, ms []*member) {
	h.mu.Lock()
	if h.customers == nil {
		h.customers = map[string]bool{}
	}
	var todo []*member
	for _, m := range ms {
		if !h.customers[m.name] {
			todo = append(todo, m)
		}
	}
	h.mu.Unlock()
	if len(todo) == 0 {
		return
	}
	recorded, err := h.store.People(ctx)
	if err != nil {
		h.log.Warn().Err(err).Msg("read the people")
		return
	}
	known := map[string]bool{}
	for _, p := range recorded {
		known[p.Name] = p.CustomerID != ""
	}
	for _, m := range todo {
		if rejected, _ := m.client.TokenRejected(); rejected {
			continue
		}
		if !known[m.name] {
			p, err := m.client.Ping(ctx)
			if err != nil {
				h.log.Debug().Err(err).Str(logfield.Person, m.name).Msg("customer id not learned")
				continue
			}
			if err := h.store.UpsertPerson(context.WithoutCancel(ctx), store.PersonUpdate{Name: m.name, CustomerID: p.ID}); err != nil {
				h.log.Warn().Err(err).Str(logfield.Person, m.name).Msg("record customer id")
				continue
			}
		}
		h.mu.Lock()
		h.customers[m.name] = true
		h.mu.Unlock()
	}
}

// recordToken records m's token state, logging a change of it once.
func (h *Household) recordToken(ctx context.Context, m *member, synced bool) {
	st := m.client.Token()
	state, refusal := store.TokenOK, ""
	if st.Rejected {
		state, refusal = store.TokenRevoked, "the bank answered 401 (revoked or expired) at "+st.RejectedAt.UTC().Format(time.RFC3339)
	}
	h.mu.Lock()
	if h.states == nil {
		h.states = map[string]string{}
	}
	was := h.states[m.name]
	h.states[m.name] = state
	h.mu.Unlock()
	if state != was && state == store.TokenRevoked {
		h.log.Warn().Str(logfield.Person, m.name).Msg("the bank rejected this person's token: what only they see waits for a new one; the others' accounts go on")
	}
	err := h.store.UpsertPerson(ctx, store.PersonUpdate{Name: m.name, TokenState: state, TokenError: refusal})
	if err == nil && synced && !st.Rejected {
		err = h.store.PersonSynced(ctx, m.name)
	}
	if err != nil {
		h.log.Warn().Err(err).Str(logfield.Person, m.name).Msg("record token state")
	}
}
