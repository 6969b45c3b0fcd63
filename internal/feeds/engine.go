package feeds

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/rs/zerolog"

	"github.com/bankmirror/bankmirror/internal/logfield"
	"github.com/bankmirror/bankmirror/internal/store"
)

// Mirror is what the engine needs of the store (*store.Store).
type Mirror interface {
	FeedAccounts(ctx context.Context) ([]store.FeedAccount, error)
	FeedChanges(ctx context.Context, after int64, limit int) ([]store.FeedChange, error)
	FeedTransactions(ctx context.Context, ids []string) ([]store.FeedTx, error)
	FeedAccountTransactions(ctx context.Context, accounts []string, since string) ([]store.FeedTx, error)
	FeedRows(ctx context.Context, feed string, ids []string) (map[string]store.FeedRow, error)
	FeedPending(ctx context.Context, feed string) (map[string]string, error)
	FeedGone(ctx context.Context, ids []string) ([]store.FeedTx, error)
	FeedSpans(ctx context.Context, feed string) ([]store.FeedSpan, error)
	FeedUnfed(ctx context.Context, feed string, fed []string) ([]store.FeedLeft, error)
	FeedUnfedRows(ctx context.Context, feed string, fed, ids []string) ([]string, error)
	RecordFeedSpans(ctx context.Context, feed string, spans []store.FeedSpan) error
	RecordFeedLegsGone(ctx context.Context, appIDs []string) error
	RecordFeedRound(ctx context.Context, r store.FeedRound) error
	RecordFeedFailure(ctx context.Context, feed string, failure error, next time.Time) error
	RecordFeedCheck(ctx context.Context, feed, found string) error
	FeedStatuses(ctx context.Context, feeds []string) ([]store.FeedStatus, error)
	LastHistorySeq(ctx context.Context) (int64, error)
	GetState(ctx context.Context, key string, v any) (time.Time, bool, error)
	PutState(ctx context.Context, key string, v any) error
}

var _ Mirror = (*store.Store)(nil)

// App is one kind of app the engine can feed: how to open it, and how
// many bank transactions a push hands it before it syncs and records them.
type App struct {
	Opener Opener
	// Batch is the most history rows of one batch, synced and recorded
	// before the next (0: 2,000).
	Batch int
}

// Engine feeds the apps of a feeds file from the mirror.
type Engine struct {
	mirror Mirror
	apps   map[string]App
	dir    string // <directory of the mirror>/feeds
	log    zerolog.Logger
	now    func() time.Time

	file atomic.Pointer[File]
	wake chan struct{}
	// busy serialises rounds of the same engine (Run's loop, a command's
	// push).
	busy sync.Mutex
	// fedLeft is, by feed, the bank accounts it fed when leave last
	// looked for its rows of the others and that push went through its
	// catch-up, under busy: only a change of them makes such rows.
	fedLeft map[string]string
	// Progress, if set, is told how far a push is: the feed, the history
	// rows handled and the rows left.
	Progress func(feed string, done, left int64)
	// AfterRound, if set, is called after each of Run's rounds (tests).
	AfterRound func(feed string, err error)
}

// WaitForOtherLeg is how long a transfer's leg whose other leg belongs in
// a fed account but is not in the mirror yet waits before it is given to
// the app as an ordinary row.
const WaitForOtherLeg = time.Hour

const defaultBatch = 2000

// NewEngine returns an engine feeding file's feeds (nil: none) through
// apps (by kind), keeping each feed's files under dir.
func NewEngine(m Mirror, apps map[string]App, file *File, dir string, log zerolog.Logger) *Engine {
	e := &Engine{mirror: m, apps: apps, dir: dir, now: time.Now, wake: make(chan struct{}, 1),
		log: log.With().Str(logfield.Component, "feeds").Logger()}
	if file == nil {
		file = &File{}
	}
	e.file.Store(file)
	return e
}

// SetClock replaces the engine's clock (tests).
func (e *Engine) SetClock(now func() time.Time) { e.now = now }

// SetFile replaces the feeds (a reload).
func (e *Engine) SetFile(f *File) {
	e.file.Store(f)
	e.Wake()
}

// File is the feeds file in use.
func (e *Engine) File() *File { return e.file.Load() }

// Wake asks Run for a round soon (the mirror changed).
func (e *Engine) Wake() {
	select {
	case e.wake <- struct{}{}:
	default:
	}
}

// Dir is the directory of the feed's own files.
func (e *Engine) Dir(feed string) string { return filepath.Join(e.dir, feed) }

// PushOptions change what one push does.
type PushOptions struct {
	// Since, if set (YYYY-MM-DD), looks at every transaction of the fed
	// accounts created on or after it (and not before the feed's own
	// since), not only those changed since the feed's cursor.
	Since string
	// Restore puts back rows the person deleted in the app (bank ids).
	Restore []string
	// DryRun decides and reports but changes neither the app nor the
	// mirror.
	DryRun bool
}

// Report is what a push did (or, dry, would do).
type Report struct {
	Created, Updated, Deleted, Adopted int
	DeletedInApp, Reconciled, Waiting  int
	Linked                             int    // transfers whose two rows were linked
	Left                               int    // rows of accounts no longer fed, left in the app as they are
	Lines                              []Line // what it did, row by row (DryRun only)
}

func (r *Report) add(o Report) {
	r.Created += o.Created
	r.Updated += o.Updated
	r.Deleted += o.Deleted
	r.Adopted += o.Adopted
	r.DeletedInApp += o.DeletedInApp
	r.Reconciled += o.Reconciled
	r.Waiting += o.Waiting
	r.Linked += o.Linked
	r.Left += o.Left
	r.Lines = append(r.Lines, o.Lines...)
}

// Changed reports whether the push changed anything in the app.
func (r Report) Changed() bool { return r.Created+r.Updated+r.Deleted+r.Linked > 0 }

// Line is one row's action in a dry run.
type Line struct {
	Action        string // "create", "update", "delete", "transfer", "link"
	TransactionID string
	Date          string
	Amount        int64
	Account       string // the app account's name
	Payee         string
}

// Push brings the feed's app up to date with the mirror: every change
// since its cursor (and pending ones), in batches of the app's size, in
// one session with the app; each batch is synced with the app and then
// recorded, so that an interrupted push resumes where it stopped.
func (e *Engine) Push(ctx context.Context, fd *Feed, opts PushOptions) (rep Report, err error) {
	e.busy.Lock()
	defer e.busy.Unlock()
	app, ok := e.apps[fd.Kind]
	if !ok {
		return Report{}, fmt.Errorf("feed %q: kind %q is not available in this build", fd.Name, fd.Kind)
	}
	if !opts.DryRun {
		unlock, err := lockFeed(e.Dir(fd.Name))
		if err != nil {
			return Report{}, fmt.Errorf("feed %q: %w", fd.Name, err)
		}
		defer unlock()
	}
	batch := app.Batch
	if batch <= 0 {
		batch = defaultBatch
	}
	accounts, err := e.bankAccounts(ctx, fd)
	if err != nil {
		return Report{}, err
	}
	lv, err := e.leave(ctx, fd, accounts, opts.DryRun)
	if err != nil {
		return Report{}, err
	}
	left, back := lv.rows, lv.back
	r := &round{e: e, app: app, fd: fd, accounts: accounts, opts: opts}
	defer func() {
		if cerr := r.close(ctx, err == nil); err == nil && cerr != nil {
			err = cerr
		}
	}()
	total := Report{Left: left}
	if len(back) > 0 && opts.Since == "" {
		// Accounts fed again after this engine said they were taken
		// out: what the bank changed while they were out is pushed now,
		// as a push --since the feed's since of those accounts would.
		e.log.Info().Str(logfield.Feed, fd.Name).Int(logfield.Accounts, len(back)).
			Msg("feed feeds the accounts again: catching up with what the bank changed while they were out")
		since := cmp.Or(fd.Since, "0001-01-01")
		fedBack := map[string]string{}
		for _, a := range back {
			fedBack[a] = accounts[a]
		}
		ids, err := e.sweepIDs(ctx, fd, fedBack, PushOptions{Since: since})
		if err != nil {
			return total, err
		}
		if err := r.sweep(ctx, ids, batch, &total, false); err != nil {
			return total, err
		}
	}
	// Only after the catch-up (a push --since's sweep is one): a push cut
	// off before its end leaves the accounts to catch up with at the next.
	if opts.Since == "" {
		if err := e.saidLeaving(ctx, fd, lv); err != nil {
			return total, err
		}
	}
	if opts.Since != "" || len(opts.Restore) > 0 {
		ids, err := e.sweepIDs(ctx, fd, accounts, opts)
		if err != nil {
			return total, err
		}
		if err := r.sweep(ctx, ids, batch, &total, true); err != nil {
			return total, err
		}
		if opts.Since != "" {
			if err := e.saidLeaving(ctx, fd, lv); err != nil {
				return total, err
			}
		}
		return total, r.touch(ctx)
	}
	statuses, err := e.mirror.FeedStatuses(ctx, []string{fd.Name})
	if err != nil {
		return total, err
	}
	cursor := statuses[0].Cursor
	last, err := e.mirror.LastHistorySeq(ctx)
	if err != nil {
		return total, err
	}
	pending, err := e.mirror.FeedPending(ctx, fd.Name)
	if err != nil {
		return total, err
	}
	first := true
	for {
		changes, err := e.mirror.FeedChanges(ctx, cursor, batch)
		if err != nil {
			return total, err
		}
		seen := map[string]bool{}
		var ids []string
		for _, c := range changes {
			if !seen[c.TransactionID] {
				seen[c.TransactionID] = true
				ids = append(ids, c.TransactionID)
			}
		}
		if first {
			for id := range pending {
				if !seen[id] {
					seen[id] = true
					ids = append(ids, id)
				}
			}
		}
		if len(ids) == 0 {
			return total, r.touch(ctx)
		}
		next := cursor
		if len(changes) > 0 {
			next = changes[len(changes)-1].Seq
		}
		rep, err := r.batch(ctx, ids, next)
		total.add(rep)
		if err != nil {
			return total, err
		}
		first = false
		cursor = next
		e.progress(fd.Name, cursor, max(last-cursor, 0))
		if len(changes) < batch {
			return total, nil
		}
	}
}

func (e *Engine) progress(feed string, done, left int64) {
	if e.Progress != nil {
		e.Progress(feed, done, left)
	}
}

// bankAccounts resolves the feed's account keys: bank account id -> app
// account name.
func (e *Engine) bankAccounts(ctx context.Context, fd *Feed) (map[string]string, error) {
	list, err := e.mirror.FeedAccounts(ctx)
	if err != nil {
		return nil, err
	}
	accounts := make([]BankAccount, len(list))
	for i, a := range list {
		accounts[i] = BankAccount{ID: a.ID, Name: a.Name, People: a.People}
	}
	return fd.ResolveAccounts(accounts)
}

// leave says which rows the feed leaves in the app as they are: those
// of the bank accounts it no longer feeds (taken out of its accounts).
// They are not forgotten: each push skips them (see plan), and when the
// account is fed again its rows are known again as they were (one the
// person deleted in the app stays deleted). The log says so once per
// account taken out, with how many rows it leaves (not those deleted in
// the app), and the push's report counts them then; a dry run counts
// them every time and logs nothing. The engine looks again only when the
// feed's bank accounts change.
//
// The accounts said to be taken out are kept in the mirror (daemon_state,
// takenOutKey), by saidLeaving once the push has caught up: when one is
// fed again, the next push catches up with what the bank changed while it
// was out (back), whatever process pushes it and whenever, a restart or a
// `feeds push` in between.
func (e *Engine) leave(ctx context.Context, fd *Feed, accounts map[string]string, dry bool) (leaving, error) {
	fed := keys(accounts)
	lv := leaving{key: strings.Join(fed, ",")}
	if was, ok := e.fedLeft[fd.Name]; !dry && ok && was == lv.key {
		return leaving{}, nil
	}
	left, err := e.mirror.FeedUnfed(ctx, fd.Name, fed)
	if err != nil {
		return leaving{}, err
	}
	if dry {
		for _, l := range left {
			lv.rows += l.Rows
		}
		return leaving{rows: lv.rows}, nil
	}
	var said []string
	if _, _, err := e.mirror.GetState(ctx, takenOutKey(fd.Name), &said); err != nil {
		return leaving{}, fmt.Errorf("feed %q: %w", fd.Name, err)
	}
	lv.was = said
	// The accounts it said were taken out that are fed again.
	for _, a := range said {
		if _, ok := accounts[a]; ok {
			lv.back = append(lv.back, a)
		}
	}
	sort.Strings(lv.back)
	for _, l := range left {
		if l.Rows == 0 {
			continue
		}
		lv.said = append(lv.said, l.BankAccount)
		if slices.Contains(said, l.BankAccount) {
			continue
		}
		lv.rows += l.Rows
		e.log.Info().Str(logfield.Feed, fd.Name).Str(logfield.AccountID, l.BankAccount).Str(logfield.AppAccount, l.AppAccount).
			Int(logfield.Rows, l.Rows).Msg("feed no longer feeds the account: its rows stay in the app as they are")
	}
	sort.Strings(lv.said)
	lv.record = true
	return lv, nil
}

// leaving is what leave found.
type leaving struct {
	rows   int      // rows left in the app, of accounts not said before
	back   []string // accounts said to be taken out that are fed again
	said   []string // accounts taken out whose rows are in the app, sorted
	was    []string // said, as kept in the mirror before
	key    string   // the bank accounts fed (fedLeft)
	record bool     // saidLeaving has something to keep
}

// takenOutKey is the daemon_state key of the bank accounts taken out of
// feed whose rows in the app it has said it leaves, a JSON list.
func takenOutKey(feed string) string { return "feed_taken_out:" + feed }

// saidLeaving keeps what leave found: the accounts said to be taken out,
// in the mirror, and the accounts fed, in the engine.
func (e *Engine) saidLeaving(ctx context.Context, fd *Feed, lv leaving) error {
	if !lv.record {
		return nil
	}
	if !slices.Equal(lv.said, lv.was) {
		if err := e.mirror.PutState(ctx, takenOutKey(fd.Name), lv.said); err != nil {
			return fmt.Errorf("feed %q: %w", fd.Name, err)
		}
	}
	if e.fedLeft == nil {
		e.fedLeft = map[string]string{}
	}
	e.fedLeft[fd.Name] = lv.key
	return nil
}

// sweep pushes ids in batches of batch, adding each batch's report to
// total; with progress, the engine's Progress is told after each batch.
func (r *round) sweep(ctx context.Context, ids []string, batch int, total *Report, progress bool) error {
	for start := 0; start < len(ids); start += batch {
		part := ids[start:min(start+batch, len(ids))]
		rep, err := r.batch(ctx, part, 0)
		total.add(rep)
		if err != nil {
			return err
		}
		if progress {
			r.e.progress(r.fd.Name, int64(start+len(part)), int64(len(ids)-start-len(part)))
		}
	}
	return nil
}

// sweepIDs lists every transaction of the fed accounts from the push's
// since, and the restored ones.
func (e *Engine) sweepIDs(ctx context.Context, fd *Feed, accounts map[string]string, opts PushOptions) ([]string, error) {
	var ids []string
	if opts.Since != "" {
		since := max(opts.Since, fd.Since)
		txs, err := e.mirror.FeedAccountTransactions(ctx, keys(accounts), since)
		if err != nil {
			return nil, err
		}
		for _, t := range txs {
			ids = append(ids, t.ID)
		}
		rows, err := e.mirror.FeedRows(ctx, fd.Name, nil)
		if err != nil {
			return nil, err
		}
		have := map[string]bool{}
		for _, id := range ids {
			have[id] = true
		}
		for id, r := range rows {
			if !have[id] && r.Date >= since {
				ids = append(ids, id)
			}
		}
	}
	ids = append(ids, opts.Restore...)
	sort.Strings(ids)
	return slices.Compact(ids), nil
}

// keys are m's keys, sorted.
func keys[V any](m map[string]V) []string { return slices.Sorted(maps.Keys(m)) }

// Target is the session target of a feed.
func (e *Engine) Target(fd *Feed) Target {
	return Target{Feed: fd.Name, URL: fd.URL, Secret: fd.Secret, Budget: fd.Budget, Dir: e.Dir(fd.Name),
		Log: e.log.With().Str(logfield.Feed, fd.Name).Logger()}
}

// round is one push's session with the app, opened at its first batch.
type round struct {
	e        *Engine
	app      App
	fd       *Feed
	accounts map[string]string
	opts     PushOptions
	sess     Session
	b        budget
}

// open opens the session and reads the budget, once a push.
func (r *round) open(ctx context.Context) error {
	if r.sess != nil {
		return nil
	}
	e, fd := r.e, r.fd
	sess, err := r.app.Opener.Open(ctx, e.Target(fd))
	if err != nil {
		return fmt.Errorf("feed %q: open %s: %w", fd.Name, fd.Kind, err)
	}
	r.sess = sess
	r.b, err = openBudget(ctx, sess, fd, r.accounts)
	return err
}

// touch, for a push that had nothing to push and so did not open the
// app, opens it (Actual: its client logs in and reads the budget; YNAB:
// the plan and its accounts are read) and records the round as a push
// does, so that a password or token the app refuses now is a failure
// the status shows, and a failure the app has mended since is cleared.
// A dry run changes nothing and does not.
func (r *round) touch(ctx context.Context) error {
	if r.sess != nil || r.opts.DryRun {
		return nil
	}
	if err := r.open(ctx); err != nil {
		return err
	}
	return r.e.mirror.RecordFeedRound(ctx, store.FeedRound{Feed: r.fd.Name})
}

// batch brings the rows of ids up to date, syncs the session, and
// records the batch (moving the cursor to next when next > 0).
func (r *round) batch(ctx context.Context, ids []string, next int64) (Report, error) {
	e, fd := r.e, r.fd
	if err := r.open(ctx); err != nil {
		return Report{}, err
	}
	plan, err := e.plan(ctx, r.sess, fd, r.b, ids, r.opts)
	if err != nil {
		return Report{}, err
	}
	if r.opts.DryRun {
		return plan.report, nil
	}
	if len(plan.spans) > 0 {
		// Before the app is written, and only where it puts rows: a push
		// cut off after the app took them is then known to have written
		// there, and a push that puts none (nothing to push, a since moved
		// for a while) claims no row it did not make.
		if err := e.mirror.RecordFeedSpans(ctx, fd.Name, plan.spans); err != nil {
			return plan.report, err
		}
	}
	if len(plan.legsGone) > 0 {
		// Before the app deletes them: another feed of the file that holds
		// one of them puts it back at its next push (a push cut off before
		// the deletion leaves it in the app, which that push then finds).
		if err := e.mirror.RecordFeedLegsGone(ctx, plan.legsGone); err != nil {
			return plan.report, err
		}
	}
	if err := plan.apply(ctx, r.sess); err != nil {
		return plan.report, fmt.Errorf("feed %q: %w", fd.Name, err)
	}
	if err := r.sess.Sync(ctx); err != nil {
		return plan.report, fmt.Errorf("feed %q: sync: %w", fd.Name, err)
	}
	plan.round.Cursor = next
	if err := e.mirror.RecordFeedRound(ctx, plan.round); err != nil {
		return plan.report, err
	}
	return plan.report, nil
}

// close ends the session if one was opened; ok says the push succeeded
// (its error is then the push's), else it is ended whatever ctx says.
func (r *round) close(ctx context.Context, ok bool) error {
	if r.sess == nil {
		return nil
	}
	if !ok {
		_ = r.sess.Close(context.WithoutCancel(ctx))
		return nil
	}
	if err := r.sess.Close(ctx); err != nil {
		return fmt.Errorf("feed %q: finish: %w", r.fd.Name, err)
	}
	return nil
}

// budget is a session's view of the app's budget for one feed.
type budget struct {
	appAccount map[string]string // bank account id -> app account id
	appName    map[string]string // app account id -> its name
	category   map[string]string // bank category id -> app category id
	open       map[string]bool   // the ids of all the budget's open accounts
}

// spans are the feed's spans as the budget maps its bank accounts now.
func (b budget) spans(fd *Feed) []store.FeedSpan {
	out := make([]store.FeedSpan, 0, len(b.appAccount))
	for _, bank := range keys(b.appAccount) {
		out = append(out, store.FeedSpan{BankAccount: bank, AppAccount: b.appAccount[bank], Since: fd.Since})
	}
	return out
}

func openBudget(ctx context.Context, sess Session, fd *Feed, accounts map[string]string) (budget, error) {
	b := budget{appAccount: map[string]string{}, appName: map[string]string{}, category: map[string]string{},
		open: map[string]bool{}}
	list, err := sess.Accounts(ctx)
	if err != nil {
		return b, fmt.Errorf("feed %q: read the app's accounts: %w", fd.Name, err)
	}
	byName := map[string]string{}
	var names []string
	for _, a := range list {
		byName[a.Name] = a.ID
		b.open[a.ID] = true
		names = append(names, fmt.Sprintf("%q", a.Name))
	}
	var missing []string
	for _, bankID := range keys(accounts) {
		name := accounts[bankID]
		id, ok := byName[name]
		if !ok {
			if q := fmt.Sprintf("%q", name); !slices.Contains(missing, q) {
				missing = append(missing, q)
			}
			continue
		}
		b.appAccount[bankID] = id
		b.appName[id] = name
	}
	if len(missing) > 0 {
		noun, them := "no account", "it"
		if len(missing) > 1 {
			noun, them = "no accounts", "them"
		}
		return b, fmt.Errorf("feed %q: the app has %s %s (its accounts: %s); create %s in the app first",
			fd.Name, noun, joinOr(missing, ""), joinOr(names, "none"), them)
	}
	if len(fd.Categories) > 0 {
		cats, err := sess.Categories(ctx)
		if err != nil {
			return b, fmt.Errorf("feed %q: read the app's categories: %w", fd.Name, err)
		}
		byName := map[string]string{}
		for _, c := range cats {
			byName[c.Name] = c.ID
		}
		for bankCat, name := range fd.Categories {
			id, ok := byName[name]
			if !ok {
				return b, fmt.Errorf("feed %q: the app has no category %q (for %q)", fd.Name, name, bankCat)
			}
			b.category[bankCat] = id
		}
	}
	return b, nil
}

func joinOr(list []string, none string) string {
	if len(list) == 0 {
		return none
	}
	return strings.Join(slices.Sorted(slices.Values(list)), ", ")
}

// plan is what a session will do, and the round to record once done.
type plan struct {
	create []NewRow
	update []Facts
	delete []string
	// link are transfers whose legs are in the app as rows of their own,
	// by bank ids, and legs their rows as the round leaves them.
	link   [][2]string
	legs   map[string]store.FeedRow
	round  store.FeedRound
	report Report
	// spans are where the plan puts rows in the app: each bank account
	// and app account, from the earliest date of a row put there.
	spans []store.FeedSpan
	// legsGone are the app rows the app deletes with the rows the plan
	// deletes: the other legs of transfers.
	legsGone []string
	// takenOut are the bank ids of rows of accounts taken out of the
	// feed's accounts, among the round's and the other legs loaded.
	takenOut map[string]bool
}

// putsRow notes that the plan puts a row of the bank account's
// transaction dated date into the app account, for spans.
func (p *plan) putsRow(bankAccount, appAccount, date string) {
	for i, s := range p.spans {
		if s.BankAccount == bankAccount && s.AppAccount == appAccount {
			p.spans[i].Since = min(s.Since, date)
			return
		}
	}
	p.spans = append(p.spans, store.FeedSpan{BankAccount: bankAccount, AppAccount: appAccount, Since: date})
}

func (p *plan) apply(ctx context.Context, sess Session) error {
	if len(p.delete) > 0 {
		if err := sess.Delete(ctx, p.delete); err != nil {
			return fmt.Errorf("delete in the app: %w", err)
		}
	}
	if len(p.update) > 0 {
		if err := sess.Update(ctx, p.update); err != nil {
			return fmt.Errorf("update in the app: %w", err)
		}
	}
	if len(p.create) > 0 {
		ids, err := sess.Create(ctx, p.create)
		if err != nil {
			return fmt.Errorf("create in the app: %w", err)
		}
		for i := range p.round.Put {
			r := &p.round.Put[i]
			if r.AppID != "" {
				continue
			}
			id, ok := ids[r.TransactionID]
			if !ok {
				return fmt.Errorf("the app did not say which row holds %s", r.TransactionID)
			}
			r.AppID = id
		}
	}
	return p.applyLinks(ctx, sess)
}

// applyLinks links the legs of p.link, once their rows' ids are known,
// and records each leg as a transfer.
func (p *plan) applyLinks(ctx context.Context, sess Session) error {
	if len(p.link) == 0 {
		return nil
	}
	at := map[string]int{} // bank id -> its row in round.Put
	for i, r := range p.round.Put {
		at[r.TransactionID] = i
	}
	row := func(id string) store.FeedRow {
		if i, ok := at[id]; ok {
			return p.round.Put[i]
		}
		return p.legs[id]
	}
	links := make([]Link, 0, len(p.link))
	for _, l := range p.link {
		a, b := row(l[0]), row(l[1])
		if a.AppID == "" || b.AppID == "" {
			return fmt.Errorf("no row in the app to link for %s and %s", l[0], l[1])
		}
		links = append(links, Link{ID: a.AppID, ImportID: l[0], OtherID: b.AppID, OtherImportID: l[1]})
	}
	moved, err := sess.Link(ctx, links)
	if err != nil {
		return fmt.Errorf("link transfers in the app: %w", err)
	}
	for _, l := range p.link {
		for k, id := range l {
			r := row(id)
			r.TransferID = l[1-k]
			if m, ok := moved[id]; ok {
				r.AppID = m
			}
			if i, ok := at[id]; ok {
				p.round.Put[i] = r
			} else {
				at[id] = len(p.round.Put)
				p.round.Put = append(p.round.Put, r)
			}
		}
	}
	return nil
}

// facts are a transaction's facts as the app gets them.
func facts(t store.FeedTx) (date string, amount int64, cleared bool) {
	return t.Date, t.Amount, t.Status == "SETTLED"
}

// plan decides what the app needs for the bank transactions ids.
func (e *Engine) plan(ctx context.Context, sess Session, fd *Feed, b budget, ids []string, opts PushOptions) (*plan, error) {
	p := &plan{round: store.FeedRound{Feed: fd.Name, Pending: map[string]string{}}}
	txs, err := e.mirror.FeedTransactions(ctx, ids)
	if err != nil {
		return nil, err
	}
	byID := map[string]store.FeedTx{}
	for _, t := range txs {
		byID[t.ID] = t
	}
	// The other legs of transfers, which may not be among ids.
	var others []string
	for _, t := range txs {
		if t.OtherID != "" {
			if _, ok := byID[t.OtherID]; !ok {
				others = append(others, t.OtherID)
			}
		}
	}
	if len(others) > 0 {
		more, err := e.mirror.FeedTransactions(ctx, others)
		if err != nil {
			return nil, err
		}
		for _, t := range more {
			byID[t.ID] = t
		}
	}
	all := append(append([]string(nil), ids...), others...)
	mapped, err := e.mirror.FeedRows(ctx, fd.Name, all)
	if err != nil {
		return nil, err
	}
	since := fd.Since
	wanted := func(t store.FeedTx) bool {
		_, fed := b.appAccount[t.AccountID]
		return fed && t.Date >= since
	}
	// The rows of bank accounts taken out of the feed's accounts are left
	// in the app as they are (see leave): none is deleted, updated or
	// adopted, and their records are kept, so that the account fed again
	// (into the same app account or another) finds its rows as they were.
	var recorded []string
	for _, id := range ids {
		if _, ok := mapped[id]; ok {
			recorded = append(recorded, id)
		}
	}
	takenOut := map[string]bool{}
	markTakenOut := func(ids []string) error {
		if len(ids) == 0 {
			return nil
		}
		list, err := e.mirror.FeedUnfedRows(ctx, fd.Name, keys(b.appAccount), ids)
		for _, id := range list {
			takenOut[id] = true
		}
		return err
	}
	if err := markTakenOut(recorded); err != nil {
		return nil, err
	}
	// A transaction of a fed account the feed has no row of may still
	// have one in the app: a push cut off after the app took the row and
	// before the mirror recorded it. The bank deleted the transaction
	// since (unknown: its date, from the history, widens the app's rows
	// read so that the row is found), the feed's since moved past it, or
	// its bank account is now fed into another app account: the row is
	// removed (and, when the transaction is fed, made again where it
	// belongs). Only a row within one of the feed's spans, the app
	// accounts its pushes fed each bank account into from their since,
	// can be the feed's: a row anywhere else is another feed's, a removed
	// feed's or an import's, and is left alone. A transaction of an
	// account the feed does not feed is left alone too.
	var unknown []string
	for _, id := range ids {
		if _, isMapped := mapped[id]; !isMapped {
			if _, live := byID[id]; !live {
				unknown = append(unknown, id)
			}
		}
	}
	gone := map[string]store.FeedTx{}
	if len(unknown) > 0 {
		list, err := e.mirror.FeedGone(ctx, unknown)
		if err != nil {
			return nil, err
		}
		for _, t := range list {
			if _, fed := b.appAccount[t.AccountID]; fed {
				gone[t.ID] = t
			}
		}
	}
	spans, err := e.spans(ctx, fd, b)
	if err != nil {
		return nil, err
	}
	restore := map[string]bool{}
	for _, id := range opts.Restore {
		restore[id] = true
	}
	// The app's rows, from the earliest date concerned (a month before,
	// in case the person moved a row's date).
	minDate := ""
	for _, id := range all {
		for _, d := range []string{byID[id].Date, mapped[id].Date, gone[id].Date} {
			if d != "" && (minDate == "" || d < minDate) {
				minDate = d
			}
		}
	}
	var appRows []AppRow
	if minDate != "" {
		from, err := time.Parse(time.DateOnly, minDate)
		if err != nil {
			return nil, fmt.Errorf("feed %q: bad date %q: %w", fd.Name, minDate, err)
		}
		if appRows, err = sess.Rows(ctx, spans.appAccounts(b), from.AddDate(0, -1, 0).Format(time.DateOnly)); err != nil {
			return nil, fmt.Errorf("feed %q: read the app's rows: %w", fd.Name, err)
		}
	}
	byApp := map[string]AppRow{}
	byImport := map[rowKey]AppRow{} // by app account and import id
	byBank := map[string][]AppRow{} // by import id, in every account read
	for _, r := range appRows {
		byApp[r.ID] = r
		if r.ImportID != "" {
			byImport[rowKey{r.Account, r.ImportID}] = r
			byBank[r.ImportID] = append(byBank[r.ImportID], r)
		}
	}
	// A row restored (push --restore) is one the person deleted in the
	// app: forgotten, so that it is created again, with its transfer's
	// other leg when the person's deletion took that too.
	deletedInApp := func(m store.FeedRow) bool {
		_, there := byApp[m.AppID]
		return m.State == store.FeedDeletedInApp || (m.State == store.FeedPushed && !there)
	}
	// A row another feed's push deleted in the app with the other leg of
	// a transfer (store.FeedPendingLegGone) is forgotten, so that it is
	// adopted again (the other feed put the leg back in the same app
	// account) or created, as a restored one is.
	pending, err := e.mirror.FeedPending(ctx, fd.Name)
	if err != nil {
		return nil, err
	}
	for _, id := range ids {
		// One of an account taken out waits for the account (remove).
		if pending[id] == store.FeedPendingLegGone && !takenOut[id] {
			if m, ok := mapped[id]; ok && m.State == store.FeedPushed && deletedInApp(m) {
				restore[id] = true
			}
		}
	}
	for id := range restore {
		m, ok := mapped[id]
		if !ok || !deletedInApp(m) {
			continue
		}
		delete(mapped, id)
		p.round.Drop = append(p.round.Drop, id)
		if om, ok := mapped[m.TransferID]; ok && m.TransferID != "" && deletedInApp(om) {
			delete(mapped, m.TransferID)
			p.round.Drop = append(p.round.Drop, m.TransferID)
		}
	}
	// The rows of the feed's cut-off pushes to remove (see above), and
	// the rows elsewhere than their account's that the person reconciled
	// since, adopted where they are rather than made twice.
	var unrecorded []AppRow
	elsewhere := map[string]AppRow{}
	for _, id := range ids {
		if _, isMapped := mapped[id]; isMapped {
			continue
		}
		t, live := byID[id]
		home := ""
		switch {
		case live && wanted(t):
			home = b.appAccount[t.AccountID]
		case !live:
			t = gone[id]
		}
		if _, fed := b.appAccount[t.AccountID]; !fed {
			continue
		}
		for _, r := range byBank[id] {
			if r.Account == home {
				continue
			}
			date := t.Date
			if !live {
				// The history's date is in the offset the bank wrote it
				// with: within a day of the one the app was given.
				date = max(date, r.Date)
			}
			if !spans.covers(t.AccountID, r.Account, date) {
				continue
			}
			if home != "" && reconciledLeg(r, byApp) {
				elsewhere[id] = r
				continue
			}
			unrecorded = append(unrecorded, r)
		}
	}
	// A row another feed of the file maps is that feed's, not one this
	// feed's push was cut off after: each person's feed of one budget may
	// feed the joint account into one app account.
	if len(unrecorded) > 0 {
		var rowIDs []string
		for _, r := range unrecorded {
			rowIDs = append(rowIDs, r.ImportID)
		}
		theirs, err := e.othersRows(ctx, fd, rowIDs)
		if err != nil {
			return nil, err
		}
		unrecorded = slices.DeleteFunc(unrecorded, func(r AppRow) bool { return theirs[r.ID] })
	}
	// The mirror's rows of the other legs of the transfers whose rows
	// are removed below (cut off, or recorded and no longer fed), when
	// those legs are not among the round's transactions (recorded in an
	// earlier batch, or left unchanged by the bank), so that they are
	// forgotten too, and put back when still fed.
	var legs []string
	for _, r := range unrecorded {
		if r.TransferID != "" {
			if o, ok := byApp[r.TransferID]; ok && o.ImportID != "" {
				if _, ok := mapped[o.ImportID]; !ok {
					legs = append(legs, o.ImportID)
				}
			}
		}
	}
	for _, id := range ids {
		m, isMapped := mapped[id]
		if t, live := byID[id]; !isMapped || m.TransferID == "" || (live && wanted(t)) || takenOut[id] {
			continue
		}
		if _, ok := mapped[m.TransferID]; !ok {
			legs = append(legs, m.TransferID)
		}
	}
	if len(legs) > 0 {
		more, err := e.mirror.FeedRows(ctx, fd.Name, legs)
		if err != nil {
			return nil, err
		}
		maps.Copy(mapped, more)
		txs, err := e.mirror.FeedTransactions(ctx, legs)
		if err != nil {
			return nil, err
		}
		for _, t := range txs {
			if _, ok := byID[t.ID]; !ok {
				byID[t.ID] = t
			}
		}
		// A leg of an account taken out is left to wait for it (remove).
		if err := markTakenOut(slices.Collect(maps.Keys(more))); err != nil {
			return nil, err
		}
	}
	p.takenOut = takenOut
	for _, r := range unrecorded {
		if _, ok := byApp[r.ID]; !ok {
			continue // the other leg of a transfer removed above
		}
		// The other leg it forgot is given to the app again below when
		// it is among this round's transactions, else in the next round.
		if other := p.removeUnrecorded(r, byApp, byImport, mapped); other != "" && !slices.Contains(ids, other) {
			p.round.Pending[other] = "its transfer's other leg was removed"
		}
	}
	// A row of a transaction the bank still has that the feed no longer
	// feeds (its since moved past it; an account taken out is skipped
	// whole, see takenOut) may be one another feed of the file maps too
	// (the joint account fed by each person's feed into one app account):
	// that feed still feeds it, and would take it, deleted, for one the
	// person deleted. The feed forgets it and leaves it in the app.
	var leaving []string
	for _, id := range ids {
		if t, live := byID[id]; live && !wanted(t) && !takenOut[id] {
			if m, ok := mapped[id]; ok && m.State == store.FeedPushed && m.AppID != "" {
				leaving = append(leaving, id)
			}
		}
	}
	stillFed := map[string]bool{}
	if len(leaving) > 0 {
		if stillFed, err = e.othersRows(ctx, fd, leaving); err != nil {
			return nil, err
		}
	}
	now := e.now()
	handled := map[string]bool{}
	for _, id := range ids {
		if handled[id] {
			continue
		}
		handled[id] = true
		if takenOut[id] {
			// A leg the app deleted with the other (remove) stays
			// pending until its account is fed again, which puts it
			// back.
			if pending[id] != store.FeedPendingLegGone {
				p.round.Done = append(p.round.Done, id)
			}
			continue
		}
		p.round.Done = append(p.round.Done, id)
		t, live := byID[id]
		want := live && wanted(t)
		m, isMapped := mapped[id]
		if !want {
			if !isMapped {
				continue
			}
			if live && m.State == store.FeedPushed && stillFed[m.AppID] {
				p.round.Drop = append(p.round.Drop, id)
				continue
			}
			p.remove(m, byApp, mapped, byID, wanted)
			continue
		}
		if isMapped {
			p.keep(t, m, byApp)
			continue
		}
		// Not in the app as far as the map knows: adopt the row the app
		// already has in its account (a push interrupted after the app
		// took it), or the one reconciled where the account was fed
		// before, or create it.
		if r, ok := byImport[rowKey{b.appAccount[t.AccountID], id}]; ok {
			p.adopt(t, r, b)
			continue
		}
		if r, ok := elsewhere[id]; ok {
			p.adopt(t, r, b)
			continue
		}
		o, hasOther := byID[t.OtherID]
		otherFed := hasOther && wanted(o) && b.appAccount[o.AccountID] != b.appAccount[t.AccountID]
		if otherFed {
			if _, ok := mapped[o.ID]; ok || byImport[rowKey{b.appAccount[o.AccountID], o.ID}].ID != "" {
				// The other leg is already in the app on its own: this
				// one follows as an ordinary row.
				p.createRow(t, b, store.FeedTx{})
				continue
			}
			handled[o.ID] = true
			p.round.Done = append(p.round.Done, o.ID)
			p.createRow(t, b, o)
			continue
		}
		if t.OtherID == "" && t.TransferAccountID != "" && b.appAccount[t.TransferAccountID] != "" &&
			now.Sub(time.Unix(int64(t.CreatedEpoch), 0)) < WaitForOtherLeg {
			// A transfer to a fed account whose other leg the mirror has
			// not seen yet: wait for it rather than make an expense.
			p.round.Pending[id] = "waiting for the transfer's other leg"
			p.round.Done = p.round.Done[:len(p.round.Done)-1]
			p.report.Waiting++
			continue
		}
		p.createRow(t, b, store.FeedTx{})
	}
	p.planLinks(byID, byApp, mapped, b, wanted)
	return p, nil
}

// rowKey is a row of the app by its account and import id: an app keeps
// one row of an import id in each account, and a row of a bank
// transaction in another account than the one its bank account is fed
// into is not its row there.
type rowKey struct{ account, importID string }

// feedSpans are where a feed's pushes may have put rows: bank account ->
// app account -> the earliest date a row there may have (a recorded
// span's earliest row date, or the feed's since where it feeds the bank
// account now).
type feedSpans map[string]map[string]string

// spans reads the feed's spans, with those of the budget's mapping now
// (which a dry run does not record).
func (e *Engine) spans(ctx context.Context, fd *Feed, b budget) (feedSpans, error) {
	list, err := e.mirror.FeedSpans(ctx, fd.Name)
	if err != nil {
		return nil, err
	}
	out := feedSpans{}
	for _, s := range slices.Concat(list, b.spans(fd)) {
		if out[s.BankAccount] == nil {
			out[s.BankAccount] = map[string]string{}
		}
		if since, ok := out[s.BankAccount][s.AppAccount]; !ok || s.Since < since {
			out[s.BankAccount][s.AppAccount] = s.Since
		}
	}
	return out, nil
}

// covers reports whether a row of the bank account's transaction dated
// date in the app account is within the spans.
func (s feedSpans) covers(bankAccount, appAccount, date string) bool {
	since, ok := s[bankAccount][appAccount]
	return ok && date >= since
}

// appAccounts are the app accounts to read the rows of: those the feed
// feeds now, and those of its spans the budget still has open.
func (s feedSpans) appAccounts(b budget) []string {
	set := map[string]bool{}
	for _, id := range b.appAccount {
		set[id] = true
	}
	for _, apps := range s {
		for id := range apps {
			if b.open[id] {
				set[id] = true
			}
		}
	}
	return keys(set)
}

// othersRows are the app ids of the rows the file's other feeds map of
// the bank transactions ids.
func (e *Engine) othersRows(ctx context.Context, fd *Feed, ids []string) (map[string]bool, error) {
	theirs := map[string]bool{}
	for _, o := range e.File().Feeds {
		if o.Name == fd.Name {
			continue
		}
		rows, err := e.mirror.FeedRows(ctx, o.Name, ids)
		if err != nil {
			return nil, err
		}
		for _, r := range rows {
			if r.AppID != "" {
				theirs[r.AppID] = true
			}
		}
	}
	return theirs, nil
}

// planLinks finds the transfers between fed accounts among the round's
// transactions whose legs are, or will be, rows of their own in the app
// (adopted after a push was killed, or a leg fed before its other leg's
// account was), and plans to link them. Legs the person deleted or
// reconciled are left as they are.
func (p *plan) planLinks(byID map[string]store.FeedTx, byApp map[string]AppRow, mapped map[string]store.FeedRow,
	b budget, wanted func(store.FeedTx) bool) {
	now := maps.Clone(mapped)
	for _, id := range p.round.Drop {
		delete(now, id)
	}
	for _, r := range p.round.Put {
		now[r.TransactionID] = r
	}
	// usable reports whether leg r is a row the feed may link.
	usable := func(r store.FeedRow, ok bool) bool {
		if !ok || r.State != store.FeedPushed {
			return false
		}
		if r.AppID == "" {
			return true // created in this round
		}
		a, there := byApp[r.AppID]
		return there && !a.Reconciled
	}
	seen := map[string]bool{}
	for _, id := range p.round.Done {
		t, ok := byID[id]
		if !ok || !wanted(t) {
			continue
		}
		o, ok := byID[t.OtherID]
		if !ok || !wanted(o) || b.appAccount[o.AccountID] == b.appAccount[t.AccountID] {
			continue
		}
		key := min(t.ID, o.ID)
		if seen[key] {
			continue
		}
		seen[key] = true
		ft, okT := now[t.ID]
		fo, okO := now[o.ID]
		if !usable(ft, okT) || !usable(fo, okO) {
			continue
		}
		if ft.AppID == "" && ft.TransferID == o.ID {
			continue // created as one transfer in this round
		}
		if ft.AppID != "" && fo.AppID != "" && byApp[ft.AppID].TransferID == fo.AppID {
			continue // linked already
		}
		if p.legs == nil {
			p.legs = map[string]store.FeedRow{}
		}
		p.legs[t.ID], p.legs[o.ID] = ft, fo
		p.link = append(p.link, [2]string{t.ID, o.ID})
		// A link may make a leg's row anew (YNAB), where the leg's row is.
		for _, leg := range []struct {
			tx  store.FeedTx
			row store.FeedRow
		}{{t, ft}, {o, fo}} {
			p.putsRow(leg.tx.AccountID, cmp.Or(leg.row.AppAccount, b.appAccount[leg.tx.AccountID]), leg.tx.Date)
		}
		p.report.Linked++
		p.report.Lines = append(p.report.Lines, Line{Action: "link", TransactionID: t.ID, Date: t.Date, Amount: t.Amount,
			Account: b.appName[b.appAccount[t.AccountID]], Payee: t.Description})
	}
}

// createRow plans the row of t, a transfer linked with o when o is set.
func (p *plan) createRow(t store.FeedTx, b budget, o store.FeedTx) {
	date, amount, cleared := facts(t)
	row := NewRow{ImportID: t.ID, Account: b.appAccount[t.AccountID], Date: date, Amount: amount, Cleared: cleared,
		Payee: t.Description, Notes: notes(t), Category: b.category[t.CategoryID]}
	action := "create"
	if o.ID != "" {
		row.TransferAccount = b.appAccount[o.AccountID]
		row.TransferImportID = o.ID
		row.Category = ""
		_, _, row.TransferCleared = facts(o)
		od, oa, oc := facts(o)
		p.round.Put = append(p.round.Put, store.FeedRow{TransactionID: o.ID, AppAccount: row.TransferAccount,
			Date: od, Amount: oa, Cleared: oc, TransferID: t.ID, State: store.FeedPushed})
		p.putsRow(o.AccountID, row.TransferAccount, od)
		action = "transfer"
	}
	p.putsRow(t.AccountID, row.Account, date)
	p.create = append(p.create, row)
	p.round.Put = append(p.round.Put, store.FeedRow{TransactionID: t.ID, AppAccount: row.Account,
		Date: date, Amount: amount, Cleared: cleared, TransferID: o.ID, State: store.FeedPushed})
	p.report.Created++
	if o.ID != "" {
		p.report.Created++
	}
	p.report.Lines = append(p.report.Lines, Line{Action: action, TransactionID: t.ID, Date: date, Amount: amount,
		Account: b.appName[row.Account], Payee: t.Description})
}

// adopt maps the app's row r (same import id) to t, and sets the bank's
// facts on it unless it is reconciled.
func (p *plan) adopt(t store.FeedTx, r AppRow, b budget) {
	date, amount, cleared := facts(t)
	row := store.FeedRow{TransactionID: t.ID, AppID: r.ID, AppAccount: r.Account, Date: date, Amount: amount,
		Cleared: cleared, State: store.FeedPushed}
	p.report.Adopted++
	switch {
	case r.Reconciled:
		row.State = store.FeedReconciled
		row.Date, row.Amount, row.Cleared = r.Date, r.Amount, r.Cleared
		p.report.Reconciled++
	case r.Date != date || r.Amount != amount || r.Cleared != cleared:
		p.update = append(p.update, Facts{ID: r.ID, Date: date, Amount: amount, Cleared: cleared})
		p.report.Updated++
		p.report.Lines = append(p.report.Lines, Line{Action: "update", TransactionID: t.ID, Date: date, Amount: amount,
			Account: b.appName[r.Account], Payee: t.Description})
	}
	p.round.Put = append(p.round.Put, row)
}

// keep brings a row the feed put in the app up to date with t.
func (p *plan) keep(t store.FeedTx, m store.FeedRow, byApp map[string]AppRow) {
	if m.State != store.FeedPushed {
		return
	}
	r, ok := byApp[m.AppID]
	if !ok {
		// The person deleted it in the app: never put back.
		m.State = store.FeedDeletedInApp
		p.round.Put = append(p.round.Put, m)
		p.report.DeletedInApp++
		return
	}
	if r.Reconciled {
		m.State = store.FeedReconciled
		p.round.Put = append(p.round.Put, m)
		p.report.Reconciled++
		return
	}
	date, amount, cleared := facts(t)
	if date == m.Date && amount == m.Amount && cleared == m.Cleared {
		return
	}
	p.update = append(p.update, Facts{ID: m.AppID, Date: date, Amount: amount, Cleared: cleared})
	m.Date, m.Amount, m.Cleared, m.PushedAt = date, amount, cleared, ""
	p.round.Put = append(p.round.Put, m)
	p.report.Updated++
	p.report.Lines = append(p.report.Lines, Line{Action: "update", TransactionID: t.ID, Date: date, Amount: amount,
		Payee: t.Description})
}

// remove takes out of the app the row of a transaction that is no longer
// fed (deleted or dropped at the bank). A transfer's legs go together in
// the app: when the push deletes the row, the other leg, if still fed,
// comes back as an ordinary row in the next round; when the row is
// already gone from the app, the person deleted the transfer, both legs
// with it, and the other leg stays deleted (its row is found deleted in
// the app when the bank next changes it).
func (p *plan) remove(m store.FeedRow, byApp map[string]AppRow, mapped map[string]store.FeedRow,
	byID map[string]store.FeedTx, wanted func(store.FeedTx) bool) {
	switch m.State {
	case store.FeedReconciled:
		return // never changed; check reports it
	case store.FeedDeletedInApp:
		p.round.Drop = append(p.round.Drop, m.TransactionID)
		return
	}
	r, ok := byApp[m.AppID]
	if ok && reconciledLeg(r, byApp) {
		m.State = store.FeedReconciled
		p.round.Put = append(p.round.Put, m)
		p.report.Reconciled++
		return
	}
	if ok {
		p.deleteRow(r, Line{TransactionID: m.TransactionID, Date: m.Date, Amount: m.Amount})
	}
	p.round.Drop = append(p.round.Drop, m.TransactionID)
	if ok && m.TransferID != "" {
		if om, ok := mapped[m.TransferID]; ok && om.State == store.FeedPushed {
			if p.takenOut[om.TransactionID] {
				// Its account is taken out: its record is kept, pending
				// (RecordFeedLegsGone), and the push that feeds the
				// account again puts the leg back.
				return
			}
			p.round.Drop = append(p.round.Drop, om.TransactionID)
			if o, live := byID[om.TransactionID]; live && wanted(o) {
				p.round.Pending[om.TransactionID] = "its transfer's other leg was removed"
			}
		}
	}
}

// reconciledLeg reports whether r, or its transfer's other leg, is
// reconciled: such a row is never changed, and a transfer stays whole,
// since the app deletes both legs together.
func reconciledLeg(r AppRow, byApp map[string]AppRow) bool {
	return r.Reconciled || byApp[r.TransferID].Reconciled
}

// deleteRow deletes the app's row r (and with it, the app deletes its
// transfer's other leg) and reports it as line says.
func (p *plan) deleteRow(r AppRow, line Line) {
	line.Action = "delete"
	p.delete = append(p.delete, r.ID)
	if r.TransferID != "" {
		p.legsGone = append(p.legsGone, r.TransferID)
	}
	p.report.Deleted++
	p.report.Lines = append(p.report.Lines, line)
}

// removeUnrecorded takes out of the app the row r of a transaction the
// feed does not feed (the bank deleted it, or the feed no longer covers
// it) and the mirror has no row of: one the app took in a push cut off
// before the mirror recorded it. A transfer's legs go together
// in the app: the other leg is forgotten, to come back as an ordinary
// row if still fed, and its bank id returned ("" when r was no transfer's
// leg, or the other leg carries no bank id).
func (p *plan) removeUnrecorded(r AppRow, byApp map[string]AppRow, byImport map[rowKey]AppRow, mapped map[string]store.FeedRow) string {
	if reconciledLeg(r, byApp) {
		return "" // never changed; check reports it
	}
	p.deleteRow(r, Line{TransactionID: r.ImportID, Date: r.Date, Amount: r.Amount})
	delete(byApp, r.ID)
	delete(byImport, rowKey{r.Account, r.ImportID})
	o, ok := byApp[r.TransferID]
	if !ok || r.TransferID == "" {
		return ""
	}
	delete(byApp, o.ID)
	if o.ImportID == "" {
		return ""
	}
	delete(byImport, rowKey{o.Account, o.ImportID})
	if m, ok := mapped[o.ImportID]; ok && m.State == store.FeedPushed {
		p.round.Drop = append(p.round.Drop, o.ImportID)
		delete(mapped, o.ImportID)
	}
	return o.ImportID
}

// notes is what a row's notes say: the message, and the foreign amount.
func notes(t store.FeedTx) string {
	n := t.Message
	if t.ForeignValue != "" {
		f := t.ForeignValue + " " + t.ForeignCurrency
		if n != "" {
			n += " · "
		}
		n += f
	}
	return n
}

// Run feeds every feed of the file whenever the mirror changes, until ctx
// ends: each feed on its own, retried with backoff when its app fails.
func (e *Engine) Run(ctx context.Context) error {
	look := time.NewTicker(idleLook)
	defer look.Stop()
	for {
		e.RunOnce(ctx)
		select {
		case <-ctx.Done():
			return nil
		case <-e.wake:
		case <-look.C:
		}
	}
}

const idleLook = 5 * time.Second

// idleEvery is how often a feed with nothing new in the history has a
// round: it looks at the transactions pending (a transfer's leg waiting
// for its other leg), or, with none, opens the app to see that it still
// lets the feed in.
const idleEvery = 10 * time.Minute

// recent reports whether the store time stamp at is less than d before
// now.
func recent(at string, now time.Time, d time.Duration) bool {
	t, err := time.Parse(store.TimeLayout, at)
	return err == nil && now.Sub(t) < d
}

// RunOnce gives each feed that is due a round.
func (e *Engine) RunOnce(ctx context.Context) {
	f := e.File()
	if f == nil || len(f.Feeds) == 0 {
		return
	}
	statuses, err := e.mirror.FeedStatuses(ctx, f.Names())
	if err != nil {
		e.log.Error().Err(err).Msg("feeds: read where the feeds stand")
		return
	}
	last, err := e.mirror.LastHistorySeq(ctx)
	if err != nil {
		e.log.Error().Err(err).Msg("feeds: read the history")
		return
	}
	now := e.now()
	for i := range f.Feeds {
		fd := &f.Feeds[i]
		st := statuses[i]
		if st.NextAttemptAt != "" {
			if at, err := time.Parse(store.TimeLayout, st.NextAttemptAt); err == nil && now.Before(at) {
				continue
			}
		}
		if st.Cursor >= last && st.LastError == "" && recent(st.LastPushAt, now, idleEvery) {
			// Nothing new in the history since a round less than
			// idleEvery ago: transactions pending (a transfer's leg
			// waiting for its other leg) and the app itself (a password
			// changed, a token revoked) are looked at every idleEvery
			// rather than at each look (an Actual round starts a Node
			// process).
			continue
		}
		if o := e.apps[fd.Kind].Opener; o != nil && o.Pace() > 0 && recent(st.LastPushAt, now, o.Pace()) {
			continue
		}
		if ctx.Err() != nil {
			return
		}
		rep, err := e.Push(ctx, fd, PushOptions{})
		if errors.Is(err, ErrBusy) {
			continue // another process pushes it now
		}
		if err != nil && ctx.Err() == nil {
			next := now.Add(backoff(st.FailingSince, now))
			var u *Unavailable
			if errors.As(err, &u) && u.RetryAfter.After(next) {
				next = u.RetryAfter
			}
			// Said once when the feed begins to fail (and when the failure
			// changes), not at every retry of an app that stays down.
			level := zerolog.WarnLevel
			if st.LastError == err.Error() {
				level = zerolog.DebugLevel
			}
			e.log.WithLevel(level).Err(err).Str(logfield.Feed, fd.Name).Time(logfield.NextAttemptAt, next).Msg("feed round failed")
			if rerr := e.mirror.RecordFeedFailure(context.WithoutCancel(ctx), fd.Name, err, next); rerr != nil {
				e.log.Error().Err(rerr).Msg("feeds: record a failure")
			}
		} else if err == nil && st.LastError != "" {
			e.log.Info().Str(logfield.Feed, fd.Name).Msg("feed works again")
		}
		if err == nil && rep.Changed() {
			e.log.Info().Str(logfield.Feed, fd.Name).Int(logfield.Created, rep.Created).Int(logfield.Updated, rep.Updated).
				Int(logfield.Deleted, rep.Deleted).Msg("feed pushed")
		}
		if e.AfterRound != nil {
			e.AfterRound(fd.Name, err)
		}
	}
}

// backoff is how long to wait after a failure, growing with how long the
// feed has been failing: 10 s at first, at most 10 minutes.
func backoff(failingSince string, now time.Time) time.Duration {
	since, err := time.Parse(store.TimeLayout, failingSince)
	if failingSince == "" || err != nil {
		return 10 * time.Second
	}
	d := now.Sub(since) / 4
	return min(max(d, 10*time.Second), 10*time.Minute)
}
