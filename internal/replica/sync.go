// Package replica keeps the mirror equal to the bank: full listings with
// checkpoints and reconciliation, cheap incremental passes, and (elsewhere in
// this package) the webhook event worker and the schedule.
package replica

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/rs/zerolog"

	"github.com/bankmirror/bankmirror/internal/bank"
	"github.com/bankmirror/bankmirror/internal/logfield"
	"github.com/bankmirror/bankmirror/internal/store"
)

// Bank is what the syncer needs of the bank client (*bank.Client), and
// the schedule of the syncer's client: whether the bank rejected its
// token (tokenGate).
type Bank interface {
	Requests() int64
	// Budget is the state of the client's request budget, for progress
	// lines.
	Budget() bank.BudgetState
	Accounts(ctx context.Context) ([]bank.Account, error)
	Categories(ctx context.Context) ([]bank.Category, error)
	Tags(ctx context.Context) ([]bank.Tag, error)
	AttachmentsURL() string
	AttachmentsPage(ctx context.Context, pageURL string) (bank.Page[bank.Attachment], error)
	Transaction(ctx context.Context, id string) (bank.Transaction, error)
	TransactionsURL(f bank.TransactionFilter) string
	TransactionsPage(ctx context.Context, pageURL string) (bank.Page[bank.Transaction], error)
	tokenGate
}

var _ Bank = (*bank.Client)(nil)

// mirror is what the syncer needs of the store.
type mirror interface {
	LockSync() (unlock func(), err error)
	StartRun(ctx context.Context, kind string) (int64, error)
	FinishRun(ctx context.Context, id int64, requests, upserted, deleted int64, runErr error) error
	UpsertAccounts(ctx context.Context, accounts []bank.Account) (int, error)
	ReplaceCategories(ctx context.Context, cats []bank.Category) error
	ReplaceTags(ctx context.Context, tags []bank.Tag) error
	BeginAttachments(ctx context.Context) error
	SaveAttachments(ctx context.Context, atts []bank.Attachment) error
	FinishAttachments(ctx context.Context) (int64, error)
	UpsertTransactions(ctx context.Context, txs []bank.Transaction) (store.UpsertResult, error)
	DeleteTransaction(ctx context.Context, id string) (bool, error)
	HeldTransactionIDs(ctx context.Context) ([]string, error)
	NewestCreatedAt(ctx context.Context) (string, error)
	NeedsFullSync(ctx context.Context) (bool, error)
	BeginListing(ctx context.Context, name, firstURL string, notBefore time.Time) (store.Listing, error)
	RestartListing(ctx context.Context, name, firstURL string) (store.Listing, error)
	SaveListingPage(ctx context.Context, l *store.Listing, txs []bank.Transaction, next string) (store.UpsertResult, error)
	FinishListing(ctx context.Context, l *store.Listing) ([]string, error)
	ListingFailed(ctx context.Context, name string) error
	GetState(ctx context.Context, key string, v any) (time.Time, bool, error)
	PutState(ctx context.Context, key string, v any) error
}

var _ mirror = (*store.Store)(nil)

// Run kinds, as written to sync_runs.kind.
const (
	KindFull        = "full"
	KindIncremental = "incremental"
)

// Progress is reported after every page of a listing (a run lists the
// transactions, then the HELD ones again): each count is of that listing.
type Progress struct {
	Kind         string
	Pages        int // fetched so far in this listing
	Transactions int // listed so far in this listing
	Elapsed      time.Duration
	// Covered is the share of the listing's date range done, newest first
	// (back to the oldest account's opening for a full listing), or -1
	// when unknown; ETA is the time left at the pace so far (waits for the
	// bank's budget included), 0 when unknown.
	Covered float64
	ETA     time.Duration
}

// Rate is the listing speed in transactions per second.
func (p Progress) Rate() float64 {
	if p.Elapsed <= 0 {
		return 0
	}
	return float64(p.Transactions) / p.Elapsed.Seconds()
}

// Options tune a Syncer. Zero values take the defaults.
type Options struct {
	// Overlap is how far before the newest known createdAt an incremental
	// pass starts listing, to catch transactions the bank dates late.
	Overlap time.Duration
	// ResumeWindow is how old an interrupted full listing may be and still
	// be resumed rather than started over.
	ResumeWindow time.Duration
	// OnProgress, if set, is called after every page (for a terminal display).
	OnProgress func(Progress)
	// AfterRun, if set, is called when a run has ended, whatever its
	// outcome (the daemon then fetches new receipts).
	AfterRun func(Result, error)
	// LogEvery is the interval of progress log lines (default 10s).
	LogEvery time.Duration
	// StopGrace is how long the bookkeeping of a run stopped by its
	// context may take (default DefaultStopGrace): recording its outcome,
	// counting its listing's failure.
	StopGrace time.Duration
	// Requests, if set, counts the requests of every client a run may use
	// (a household's); nil counts the syncer's own client's.
	Requests func() int64
	// OnAccounts, if set, is told of the accounts each listing of them
	// returned, after they are stored (a household records whose they
	// are).
	OnAccounts func(ctx context.Context, accounts []bank.Account) error
}

// Result summarises one run.
type Result struct {
	RunID    int64
	Kind     string
	Requests int64
	Upserted int64
	Deleted  int64
	Listed   int
	Pages    int
	Resumed  bool
	Duration time.Duration
}

// Syncer runs full and incremental syncs. Runs must not overlap; the
// scheduler guarantees that in the daemon.
type Syncer struct {
	bank  Bank
	store mirror
	log   zerolog.Logger
	opts  Options
	now   func() time.Time
	// opened is when the oldest account was opened: no transaction is
	// older, so a full listing's progress is measured against it.
	opened time.Time
}

// New returns a Syncer.
func New(b Bank, s mirror, log zerolog.Logger, opts Options) *Syncer {
	if opts.Overlap == 0 {
		opts.Overlap = 3 * time.Hour
	}
	if opts.ResumeWindow == 0 {
		opts.ResumeWindow = 24 * time.Hour
	}
	if opts.LogEvery == 0 {
		opts.LogEvery = 10 * time.Second
	}
	if opts.StopGrace <= 0 {
		opts.StopGrace = DefaultStopGrace
	}
	return &Syncer{bank: b, store: s, log: log.With().Str(logfield.Component, "sync").Logger(), opts: opts, now: time.Now}
}

// RunState is a run in progress: the result it adds to, and cleanup, a
// context that outlives the run's ctx by Options.StopGrace, so that the
// bookkeeping of a stopped run (its outcome, its listing's failure) is
// written within the grace.
type RunState struct {
	Result
	cleanup context.Context
}

// requests is the requests sent so far by the clients a run may use.
func (s *Syncer) requests() int64 {
	if s.opts.Requests != nil {
		return s.opts.Requests()
	}
	return s.bank.Requests()
}

// Run wraps a sync body with its sync_runs row, the sync lock and request
// accounting: Full and Incremental run in it, and so does a household's
// sync of several clients.
func (s *Syncer) Run(ctx context.Context, kind string, body func(ctx context.Context, run *RunState) error) (Result, error) {
	cleanup, cancel := afterStop(ctx, s.opts.StopGrace)
	defer cancel()
	run := &RunState{Result: Result{Kind: kind}, cleanup: cleanup}
	r := &run.Result
	unlock, err := s.store.LockSync()
	if err != nil {
		return *r, fmt.Errorf("%s sync: %w", kind, err)
	}
	defer unlock()
	start := s.now()
	req0 := s.requests()
	id, err := s.store.StartRun(ctx, kind)
	if err != nil {
		return *r, err
	}
	r.RunID = id
	log := s.log.With().Int64(logfield.RunID, id).Str(logfield.Kind, kind).Logger()
	log.Info().Msg("sync started")

	runErr := body(ctx, run)

	r.Requests = s.requests() - req0
	r.Duration = s.now().Sub(start)
	// Record the outcome even when ctx was cancelled, so status shows it.
	if err := s.store.FinishRun(cleanup, id, r.Requests, r.Upserted, r.Deleted, runErr); err != nil {
		runErr = errors.Join(runErr, err)
	}
	s.recordOutage(cleanup, start, runErr, log)
	ev := log.Info() //nolint:zerologlint // sent below
	switch {
	case errors.Is(runErr, bank.ErrUnauthorized):
		// The daemon logs a rejected token once, as an error of its own.
		ev = log.Warn().Err(runErr) //nolint:zerologlint // sent below
	case runErr != nil:
		ev = log.Error().Err(runErr) //nolint:zerologlint // sent below
	}
	ev.Int64(logfield.Requests, r.Requests).Int64(logfield.Upserted, r.Upserted).Int64(logfield.Deleted, r.Deleted).
		Int(logfield.Listed, r.Listed).Dur(logfield.Duration, r.Duration).Msg("sync finished")
	if s.opts.AfterRun != nil {
		s.opts.AfterRun(*r, runErr)
	}
	if runErr != nil {
		return *r, fmt.Errorf("%s sync: %w", kind, runErr)
	}
	return *r, nil
}

// Full mirrors everything: accounts, categories, every transaction (resuming
// an interrupted listing), tags and attachments, then deletes what the
// complete listing no longer contains.
func (s *Syncer) Full(ctx context.Context) (Result, error) {
	return s.Run(ctx, KindFull, func(ctx context.Context, run *RunState) error {
		// A full listing spends the bank's budget last: webhook refetches
		// and incremental syncs go first, and the reserve is theirs.
		ctx = bank.WithLane(ctx, bank.LaneFull)
		if err := s.syncAccounts(ctx); err != nil {
			return err
		}
		cats, err := s.bank.Categories(ctx)
		if err != nil {
			return err // the client names the request
		}
		if err := s.store.ReplaceCategories(ctx, cats); err != nil {
			return err
		}
		if err := s.listAll(ctx, run); err != nil {
			return err
		}
		if err := s.reconcileHeld(ctx, KindFull, &run.Result); err != nil {
			return err
		}
		tags, err := s.bank.Tags(ctx)
		if err != nil {
			return err // the client names the request
		}
		if err := s.store.ReplaceTags(ctx, tags); err != nil {
			return err
		}
		return s.syncAttachments(ctx)
	})
}

// syncAttachments stores the attachment list a page at a time (memory stays
// that of one page however many there are), then deletes what it lacked.
func (s *Syncer) syncAttachments(ctx context.Context) error {
	return s.syncAttachmentsFrom(ctx, []Bank{s.bank}, true)
}

// syncAttachmentsFrom stores the attachment lists of every client in
// banks; when complete (every client that sees an account is among them)
// it then deletes what none listed.
func (s *Syncer) syncAttachmentsFrom(ctx context.Context, banks []Bank, complete bool) error {
	if err := s.store.BeginAttachments(ctx); err != nil {
		return err
	}
	for _, b := range banks {
		for p, err := range bank.Pages(ctx, b.AttachmentsURL(), b.AttachmentsPage) {
			if err != nil {
				return err // the client names the request
			}
			if err := s.store.SaveAttachments(ctx, p.Data); err != nil {
				return err
			}
		}
	}
	if !complete {
		return nil
	}
	_, err := s.store.FinishAttachments(ctx)
	return err
}

func (s *Syncer) syncAccounts(ctx context.Context) error {
	accounts, err := s.bank.Accounts(ctx)
	if err != nil {
		return err // the client names the request
	}
	if _, err := s.store.UpsertAccounts(ctx, accounts); err != nil {
		return err
	}
	if s.opts.OnAccounts != nil {
		if err := s.opts.OnAccounts(ctx, accounts); err != nil {
			return err
		}
	}
	s.noteOpened(accounts)
	return nil
}

// noteOpened keeps the oldest account's opening, the floor of a full
// listing's progress.
func (s *Syncer) noteOpened(accounts []bank.Account) {
	for _, a := range accounts {
		if t, err := time.Parse(time.RFC3339, a.CreatedAt); err == nil && (s.opened.IsZero() || t.Before(s.opened)) {
			s.opened = t
		}
	}
}

// fetched is one page handed from the fetcher to the writer.
type fetched struct {
	page  bank.Page[bank.Transaction]
	bytes int // its share of the queue's bytes, released once written
	err   error
}

// maxQueuedBytes bounds the raw JSON of the pages fetched ahead of the
// writer, so memory stays flat however fast the bank answers.
const maxQueuedBytes = 2 << 20

// prefetch lists pages from first on, following links.next, while the
// caller writes earlier pages: decoding and SQLite writing overlap. At most
// maxQueuedBytes of pages wait for the writer, who releases each page's
// bytes to q once it is written. The channel closes after the last page,
// the first error, or when ctx ends: the caller drains it to wait for the
// fetcher.
func (s *Syncer) prefetch(ctx context.Context, b Bank, first string, q *byteQueue) <-chan fetched {
	ch := make(chan fetched, maxBatch)
	go func() {
		defer close(ch)
		for p, err := range bank.Pages(ctx, first, b.TransactionsPage) {
			f := fetched{page: p, err: err}
			if err == nil {
				f.bytes = q.acquire(ctx, pageBytes(p))
			}
			select {
			case ch <- f:
			case <-ctx.Done():
				return
			}
		}
	}()
	return ch
}

// listAll runs (or resumes) the complete transaction listing.
func (s *Syncer) listAll(ctx context.Context, run *RunState) error {
	r := &run.Result
	l, err := s.store.BeginListing(ctx, "transactions", s.bank.TransactionsURL(bank.TransactionFilter{}), s.now().Add(-s.opts.ResumeWindow))
	if err != nil {
		return err
	}
	r.Resumed = l.Resumed
	if l.Resumed {
		s.log.Info().Int(logfield.PagesDone, l.Pages).Msg("resuming interrupted full listing")
	}
	save := func(p bank.Page[bank.Transaction]) (store.UpsertResult, error) {
		return s.store.SaveListingPage(ctx, &l, p.Data, p.Next)
	}
	pages0 := r.Pages
	err = s.consume(ctx, KindFull, l.NextURL, s.opened, r, save)
	if err != nil && l.Resumed && r.Pages == pages0 && permanent(err) {
		// The bank no longer accepts the saved cursor (cursors are opaque
		// and may expire): start the listing over rather than fail until
		// the checkpoint ages out.
		s.log.Warn().Err(err).Msg("saved listing cursor refused; starting the full listing over")
		if l, err = s.store.RestartListing(ctx, "transactions", s.bank.TransactionsURL(bank.TransactionFilter{})); err != nil {
			return err
		}
		r.Resumed = false
		err = s.consume(ctx, KindFull, l.NextURL, s.opened, r, save)
	}
	if err != nil {
		if ferr := s.store.ListingFailed(run.cleanup, l.Name); ferr != nil {
			s.log.Warn().Err(ferr).Msg("count listing failure")
		}
		return err
	}
	deleted, err := s.store.FinishListing(ctx, &l)
	if err != nil {
		return err
	}
	r.Deleted += int64(len(deleted))
	for _, id := range deleted {
		s.log.Info().Str(logfield.TransactionID, id).Msg("transaction gone from the bank; deleted")
	}
	return nil
}

// permanent reports whether a bank error will not go away by retrying the
// same request (a 4xx other than 401 and 429).
func permanent(err error) bool {
	return errors.Is(err, bank.ErrBadRequest) || errors.Is(err, bank.ErrNotFound) || errors.Is(err, bank.ErrUnprocessable)
}

// maxBatch is how many fetched pages the writer may store in one
// transaction when it has fallen behind the fetcher. A batch is stored with
// the checkpoint after its last page, so a killed sync still resumes where
// it stopped; merging pages only saves the fixed cost of each commit.
const maxBatch = 32

// consume fetches pages from first on and hands them to write, one page or,
// when the writer is behind, a few pages merged, reporting progress. floor
// is the oldest createdAt the listing can reach (zero: unknown), for the ETA.
func (s *Syncer) consume(ctx context.Context, kind, first string, floor time.Time, r *Result, write func(bank.Page[bank.Transaction]) (store.UpsertResult, error)) error {
	return s.consumeFrom(ctx, s.bank, kind, first, floor, r, write)
}

// consumeFrom is consume through the client b.
func (s *Syncer) consumeFrom(ctx context.Context, b Bank, kind, first string, floor time.Time, r *Result, write func(bank.Page[bank.Transaction]) (store.UpsertResult, error)) error {
	if first == "" {
		return nil
	}
	ctx, cancel := context.WithCancel(ctx)
	q := newByteQueue(maxQueuedBytes)
	pages := s.prefetch(ctx, b, first, q)
	// The fetcher is stopped and waited for: no request of this listing
	// outlives consume, nor the sync lock its caller holds.
	defer func() {
		cancel()
		for range pages {
			// The fetcher closes the channel when it returns.
		}
	}()
	progress := s.newProgress(kind, floor)
	pages0 := r.Pages // Progress counts this listing's pages, as its transactions
	for f := range pages {
		batch, n, held, fetchErr := drain(f, pages)
		if n == 0 {
			return fetchErr
		}
		res, err := write(batch)
		q.release(held)
		if err != nil {
			return err
		}
		r.Upserted += int64(res.Changed())
		r.Pages += n
		r.Listed += len(batch.Data)
		progress.written(r.Pages-pages0, batch.Data)
		if fetchErr != nil {
			return fetchErr
		}
	}
	return ctx.Err()
}

// progressReport tells OnProgress and, every LogEvery, the log how a
// listing goes.
type progressReport struct {
	s              *Syncer
	kind           string
	start, lastLog time.Time
	eta            etaEstimator
	listed         int
}

func (s *Syncer) newProgress(kind string, floor time.Time) *progressReport {
	now := s.now()
	return &progressReport{s: s, kind: kind, start: now, lastLog: now, eta: etaEstimator{top: now, floor: floor}}
}

// written reports that txs, newest first, were written, the listing's
// pages having reached pages.
func (pr *progressReport) written(pages int, txs []bank.Transaction) {
	s := pr.s
	pr.listed += len(txs)
	now := s.now()
	p := Progress{Kind: pr.kind, Pages: pages, Transactions: pr.listed, Elapsed: now.Sub(pr.start), Covered: -1}
	if len(txs) > 0 {
		p.Covered, p.ETA = pr.eta.update(now, txs[len(txs)-1].CreatedAt)
	}
	if s.opts.OnProgress != nil {
		s.opts.OnProgress(p)
	}
	if now.Sub(pr.lastLog) < s.opts.LogEvery {
		return
	}
	pr.lastLog = now
	ev := s.log.Info().Int(logfield.Pages, p.Pages).Int(logfield.Transactions, p.Transactions).Float64(logfield.PerSecond, p.Rate())
	if p.ETA > 0 {
		ev = ev.Dur(logfield.ETA, p.ETA.Round(time.Second))
	}
	if st := s.bank.Budget(); st.Known {
		ev = ev.Int(logfield.BudgetRemaining, st.Remaining)
	}
	ev.Msg("sync progress")
}

// etaEstimator measures a newest-first listing's progress by the dates it
// has covered, between top (when it started) and floor (the oldest date
// it can reach), and the time left at the pace since its first page.
type etaEstimator struct {
	top, floor time.Time
	t0         time.Time
	f0         float64
}

func (e *etaEstimator) update(now time.Time, oldestCreatedAt string) (covered float64, eta time.Duration) {
	c, err := time.Parse(time.RFC3339, oldestCreatedAt)
	span := e.top.Sub(e.floor)
	if err != nil || e.floor.IsZero() || span <= 0 {
		return -1, 0
	}
	f := min(max(float64(e.top.Sub(c))/float64(span), 0), 1)
	if e.t0.IsZero() {
		e.t0, e.f0 = now, f
		return f, 0
	}
	if f <= e.f0 || !now.After(e.t0) {
		return f, 0
	}
	rate := (f - e.f0) / now.Sub(e.t0).Seconds() // share per second
	return f, time.Duration((1 - f) / rate * float64(time.Second))
}

// drain merges f with the pages already waiting in the channel (up to
// maxBatch). It returns the merged page, whose Next is the last page's, the
// number of pages merged (0 when f itself failed), and the fetch error met
// after them, which the caller reports once the merged pages are stored.
func drain(f fetched, pages <-chan fetched) (batch bank.Page[bank.Transaction], n, bytes int, err error) {
	if f.err != nil {
		return f.page, 0, 0, f.err
	}
	merged, bytes := []bank.Page[bank.Transaction]{f.page}, f.bytes
more:
	for len(merged) < maxBatch && merged[len(merged)-1].Next != "" {
		select {
		case g, ok := <-pages:
			if !ok {
				break more
			}
			if g.err != nil {
				err = g.err
				break more
			}
			merged = append(merged, g.page)
			bytes += g.bytes
		default:
			break more
		}
	}
	return concat(merged), len(merged), bytes, err
}

// concat is one page holding the transactions of pages, in order, with
// the last page's Next; one allocation of the exact size.
func concat(pages []bank.Page[bank.Transaction]) bank.Page[bank.Transaction] {
	if len(pages) == 1 {
		return pages[0]
	}
	datas := make([][]bank.Transaction, len(pages))
	for i := range pages {
		datas[i] = pages[i].Data
	}
	return bank.Page[bank.Transaction]{Data: slices.Concat(datas...), Next: pages[len(pages)-1].Next}
}

// pageBytes is the size of a page's resources as received.
func pageBytes(p bank.Page[bank.Transaction]) int {
	n := 0
	for i := range p.Data {
		n += len(p.Data[i].Raw)
	}
	return n
}

// byteQueue bounds the bytes in flight between a producer and a consumer.
type byteQueue struct {
	mu    sync.Mutex
	cond  *sync.Cond
	limit int
	used  int
}

func newByteQueue(limit int) *byteQueue {
	q := &byteQueue{limit: limit}
	q.cond = sync.NewCond(&q.mu)
	return q
}

// acquire waits until n more bytes fit (a page larger than the limit waits
// for an empty queue) and returns what it took; it gives up, taking
// nothing, when ctx ends.
func (q *byteQueue) acquire(ctx context.Context, n int) int {
	stop := context.AfterFunc(ctx, func() {
		q.mu.Lock()
		defer q.mu.Unlock()
		q.cond.Broadcast()
	})
	defer stop()
	q.mu.Lock()
	defer q.mu.Unlock()
	for q.used > 0 && q.used+n > q.limit {
		if ctx.Err() != nil {
			return 0
		}
		q.cond.Wait()
	}
	q.used += n
	return n
}

func (q *byteQueue) release(n int) {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.used -= n
	q.cond.Broadcast()
}

// Incremental fetches only what can have changed since the last run: new
// transactions (since the newest known createdAt less the overlap), every
// locally HELD transaction (settled, changed or gone), and account balances.
// When no full sync has completed yet (or one was interrupted) it runs, or
// resumes, a full sync instead.
func (s *Syncer) Incremental(ctx context.Context) (Result, error) {
	need, err := s.store.NeedsFullSync(ctx)
	if err != nil {
		return Result{}, err
	}
	newest, err := s.store.NewestCreatedAt(ctx)
	if err != nil {
		return Result{}, err
	}
	if need || newest == "" {
		// Never completed a full listing, or one was interrupted: an
		// incremental pass would leave the older history missing.
		s.log.Info().Msg("no complete full sync yet; running (or resuming) one")
		return s.Full(ctx)
	}
	since, err := time.Parse(time.RFC3339, newest)
	if err != nil {
		return Result{}, fmt.Errorf("parse newest createdAt %q: %w", newest, err)
	}
	since = since.Add(-s.opts.Overlap)
	return s.Run(ctx, KindIncremental, func(ctx context.Context, run *RunState) error {
		r := &run.Result
		ctx = bank.WithLane(ctx, bank.LaneIncremental)
		if err := s.syncAccounts(ctx); err != nil {
			return err
		}
		upsert := func(p bank.Page[bank.Transaction]) (store.UpsertResult, error) {
			return s.store.UpsertTransactions(ctx, p.Data)
		}
		if err := s.consume(ctx, KindIncremental, s.bank.TransactionsURL(bank.TransactionFilter{Since: since}), since, r, upsert); err != nil {
			return err
		}
		return s.reconcileHeld(ctx, KindIncremental, r)
	})
}

// reconcileHeld lists what the bank holds now (one or two pages), then
// fetches each locally HELD transaction the bank no longer lists as held:
// it has settled (or changed), or it is gone (404: deleted). Holds can
// vanish without an event, and a listing that saw a hold before it was
// deleted cannot notice, so both kinds of sync end with this.
func (s *Syncer) reconcileHeld(ctx context.Context, kind string, r *Result) error {
	heldNow := map[string]bool{}
	err := s.consume(ctx, kind, s.bank.TransactionsURL(bank.TransactionFilter{Status: "HELD"}), time.Time{}, r,
		func(p bank.Page[bank.Transaction]) (store.UpsertResult, error) {
			for _, t := range p.Data {
				heldNow[t.ID] = true
			}
			return s.store.UpsertTransactions(ctx, p.Data)
		})
	if err != nil {
		return err
	}
	local, err := s.store.HeldTransactionIDs(ctx)
	if err != nil {
		return err
	}
	for _, id := range local {
		if heldNow[id] {
			continue
		}
		if err := s.Refetch(ctx, id, r); err != nil {
			return err
		}
	}
	return nil
}

// Refetch makes the mirror's copy of one transaction equal to the bank's:
// upserted if the bank has it, deleted if the bank answers 404.
func (s *Syncer) Refetch(ctx context.Context, id string, r *Result) error {
	return s.refetchFrom(ctx, s.bank, id, r)
}

// refetchFrom is Refetch through the client b, which must see the
// transaction's account: its 404 deletes the transaction.
func (s *Syncer) refetchFrom(ctx context.Context, b Bank, id string, r *Result) error {
	t, err := b.Transaction(ctx, id)
	if errors.Is(err, bank.ErrNotFound) {
		gone, err := s.store.DeleteTransaction(ctx, id)
		if err != nil {
			return err
		}
		if gone {
			r.Deleted++
			s.log.Info().Str(logfield.TransactionID, id).Msg("transaction gone from the bank; deleted")
		}
		return nil
	}
	if err != nil {
		return err
	}
	res, err := s.store.UpsertTransactions(ctx, []bank.Transaction{t})
	if err != nil {
		return err
	}
	r.Upserted += int64(res.Changed())
	return nil
}
