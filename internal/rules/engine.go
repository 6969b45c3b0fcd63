package rules

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"time"
	"unicode/utf8"

	"github.com/rs/zerolog"

	"github.com/bankmirror/bankmirror/internal/logfield"
	"github.com/bankmirror/bankmirror/internal/store"
	"github.com/bankmirror/bankmirror/internal/writeback"
)

// CursorKey is where the engine records, in daemon_state, the last
// transaction_history seq whose arrival it has handled.
const CursorKey = "rules_cursor"

// Mirror is what the engine needs of the store (*store.Store).
type Mirror interface {
	Arrivals(ctx context.Context, after int64, limit int) ([]store.Arrival, error)
	LastHistorySeq(ctx context.Context) (int64, error)
	RuleTransactions(ctx context.Context, q store.RuleQuery) ([]store.RuleTransaction, int64, error)
	PriorRuleActions(ctx context.Context, ids []string) (map[string]map[string]bool, error)
	RecordRuleApplications(ctx context.Context, apps []store.RuleApplication, cursor *store.RuleCursor) error
	RuleCursorSeq(ctx context.Context, key string) (int64, bool, error)
	PendingRuleWriteBacks(ctx context.Context, now time.Time, limit int) ([]store.RuleApplication, error)
	FinishRuleWriteBacks(ctx context.Context, outcomes []store.WriteBackOutcome) error
	FirstFullSyncEnd(ctx context.Context) (string, bool, error)
	TransactionLabels(ctx context.Context, ids []string) (map[string]store.Labels, error)
	CategoryTree(ctx context.Context) (map[string]store.CategoryNode, error)
}

var _ Mirror = (*store.Store)(nil)

// Writer carries changes out at the bank (*writeback.Writer, or one that
// picks the token of a person who sees the account).
type Writer interface {
	Run(ctx context.Context, op writeback.Op, rows []writeback.Row, opts writeback.Options) (writeback.Report, error)
}

var _ Writer = (*writeback.Writer)(nil)

// Engine applies the rules to transactions as they arrive: it follows
// transaction_history (every created or settled transaction, whoever wrote
// it: webhook, poll, sync), records what the rules do, and writes the
// category and tags back to the bank.
type Engine struct {
	mirror Mirror
	writer Writer
	zone   *time.Location
	log    zerolog.Logger
	now    func() time.Time

	set  atomic.Pointer[Set]
	wake chan struct{}
	// busy serialises rounds (Run's loop and ApplyNow in tests).
	busy sync.Mutex
	// Notifier, if set, is told of the arrivals a rule's notify names.
	Notifier Notifier
	// AfterRound, if set, is called after each round of Run (tests wait
	// on it).
	AfterRound func(err error)
}

// Notifier is told of each new arrival a rule asks to be told about:
// before the arrival is recorded as handled, so that a crash between the
// two tells again (the notifier deduplicates) rather than never.
type Notifier interface {
	Notify(ctx context.Context, notices []Notice) error
}

// Notice is one rule's notify for one transaction.
type Notice struct {
	Tx       store.RuleTransaction
	Rule     *Rule
	Channels []string
}

// NotifyWithin is how recent a transaction must be for its arrival to
// alert: an older one (a reconciliation finding it, a first sync) never
// does.
const NotifyWithin = 48 * time.Hour

// Batch sizes, and how often an idle engine looks for arrivals.
const (
	idleLook       = 2 * time.Second
	arrivalBatch   = 500
	writeBackBatch = 50
	maxAttempts    = 12
)

// NewEngine returns an engine applying set (nil: no rules yet).
func NewEngine(m Mirror, w Writer, set *Set, zone *time.Location, log zerolog.Logger) *Engine {
	if zone == nil {
		zone = time.UTC
	}
	e := &Engine{mirror: m, writer: w, zone: zone, now: time.Now, wake: make(chan struct{}, 1),
		log: log.With().Str(logfield.Component, "rules").Logger()}
	if set == nil {
		set = &Set{Channels: map[string]Channel{}}
	}
	e.set.Store(set)
	return e
}

// SetClock replaces the engine's clock (tests).
func (e *Engine) SetClock(now func() time.Time) { e.now = now }

// SetRules replaces the rules (a reload); the next arrival uses them.
func (e *Engine) SetRules(s *Set) {
	e.set.Store(s)
	e.Wake()
}

// Rules returns the rules in use.
func (e *Engine) Rules() *Set { return e.set.Load() }

// Wake makes the engine look for arrivals now (the worker and the syncs
// call it after writing).
func (e *Engine) Wake() {
	select {
	case e.wake <- struct{}{}:
	default:
	}
}

// Run applies rules to arrivals and writes back until ctx ends. At its
// very first start on a mirror it begins after the history already there:
// rules reach older transactions only through `bankmirror rules apply`.
func (e *Engine) Run(ctx context.Context) error {
	retry := time.NewTimer(0)
	defer retry.Stop()
	for {
		next, err := e.Round(ctx)
		if ctx.Err() != nil {
			return nil
		}
		if e.AfterRound != nil {
			e.AfterRound(err)
		}
		if err != nil {
			e.log.Warn().Err(err).Msg("rules round failed")
			next = e.now().Add(time.Minute)
		}
		// Arrivals come from every writer; those that do not wake the
		// engine (a poll, another process) are seen within idleLook.
		retry.Reset(min(max(time.Until(next), time.Second), idleLook))
		select {
		case <-ctx.Done():
			return nil
		case <-e.wake:
		case <-retry.C:
		}
	}
}

// Round handles every arrival so far and every write-back due, and says
// when the next write-back retry is due (far ahead when none is).
func (e *Engine) Round(ctx context.Context) (next time.Time, err error) {
	e.busy.Lock()
	defer e.busy.Unlock()
	if set := e.set.Load(); set.Unresolved {
		// Loaded before the mirror had categories: resolve them now.
		resolved := *set
		resolved.Rules = make([]*Rule, len(set.Rules))
		for i, r := range set.Rules {
			c := *r
			resolved.Rules[i] = &c
		}
		if err := resolved.ResolveIn(ctx, e.mirror); err != nil {
			e.log.Warn().Err(err).Msg("rules: categories not resolved")
		} else if !resolved.Unresolved {
			e.set.CompareAndSwap(set, &resolved)
		}
	}
	for {
		n, err := e.arrivals(ctx)
		if err != nil {
			return time.Time{}, err
		}
		if n < arrivalBatch {
			break
		}
	}
	return e.writeBacks(ctx)
}

// Drain runs rounds until no write-back is due (those that failed wait
// for their retry): what `rules apply --write-back` does before it ends.
func (e *Engine) Drain(ctx context.Context) error {
	for {
		pending, err := e.mirror.PendingRuleWriteBacks(ctx, e.now(), 1)
		if err != nil || len(pending) == 0 {
			return err
		}
		if _, err := e.Round(ctx); err != nil {
			return err
		}
		if err := ctx.Err(); err != nil {
			return err
		}
	}
}

// arrivals handles one batch of arrivals after the cursor.
func (e *Engine) arrivals(ctx context.Context) (int, error) {
	cursor, ok, err := e.mirror.RuleCursorSeq(ctx, CursorKey)
	if err != nil {
		return 0, err
	}
	if !ok {
		last, err := e.mirror.LastHistorySeq(ctx)
		if err != nil {
			return 0, err
		}
		// A mirror that has not finished its first sync starts from the
		// beginning: that sync's transactions get the rules, unwritten.
		if _, synced, err := e.mirror.FirstFullSyncEnd(ctx); err != nil {
			return 0, err
		} else if !synced {
			last = 0
		}
		return 0, e.mirror.RecordRuleApplications(ctx, nil, &store.RuleCursor{Key: CursorKey, Seq: last})
	}
	if len(e.set.Load().Rules) == 0 {
		// No rules: nothing to decide; the cursor moves to the newest
		// arrival in one step (rules added later start from there).
		last, err := e.mirror.LastHistorySeq(ctx)
		if err != nil || last <= cursor {
			return 0, err
		}
		return 0, e.mirror.RecordRuleApplications(ctx, nil, &store.RuleCursor{Key: CursorKey, Seq: last})
	}
	arr, err := e.mirror.Arrivals(ctx, cursor, arrivalBatch)
	if err != nil || len(arr) == 0 {
		return 0, err
	}
	firstEnd, synced, err := e.mirror.FirstFullSyncEnd(ctx)
	if err != nil {
		return 0, err
	}
	ids := make([]string, 0, len(arr))
	seen := make(map[string]bool, len(arr))
	fromFirstSync := map[string]bool{}
	for _, a := range arr {
		if !seen[a.TransactionID] {
			seen[a.TransactionID] = true
			ids = append(ids, a.TransactionID)
		}
		if !synced || a.ObservedAt <= firstEnd {
			fromFirstSync[a.TransactionID] = true
		}
	}
	txs, _, err := e.mirror.RuleTransactions(ctx, store.RuleQuery{IDs: ids})
	if err != nil {
		return 0, err
	}
	apps, outcomes, err := e.Decide(ctx, txs, func(id string) (string, bool) {
		if fromFirstSync[id] {
			return store.RuleFirstSync, false
		}
		return store.RuleOnArrival, true
	})
	if err != nil {
		return 0, err
	}
	if e.Notifier != nil {
		if notices := e.notices(txs, outcomes, fromFirstSync); len(notices) > 0 {
			if err := e.Notifier.Notify(ctx, notices); err != nil {
				return 0, fmt.Errorf("queue alerts: %w", err)
			}
		}
	}
	if err := e.mirror.RecordRuleApplications(ctx, apps, &store.RuleCursor{Key: CursorKey, Seq: arr[len(arr)-1].Seq}); err != nil {
		return 0, err
	}
	if len(apps) > 0 {
		e.log.Info().Int(logfield.Applications, len(apps)).Msg("rules applied")
	}
	return len(arr), nil
}

// Decide runs the rules on txs and returns the actions not taken before
// (a rule acts on a transaction once; rules set a transaction's category
// once), each with its source and whether it is to be written back, as
// source(id) says.
func (e *Engine) Decide(ctx context.Context, txs []store.RuleTransaction, source func(id string) (string, bool)) ([]store.RuleApplication, map[string]Outcome, error) {
	set := e.set.Load()
	if len(set.Rules) == 0 || len(txs) == 0 {
		return nil, nil, nil
	}
	ids := make([]string, len(txs))
	for i := range txs {
		ids[i] = txs[i].ID
	}
	prior, err := e.mirror.PriorRuleActions(ctx, ids)
	if err != nil {
		return nil, nil, err
	}
	var apps []store.RuleApplication
	outcomes := map[string]Outcome{}
	for i := range txs {
		t := &txs[i]
		o, err := set.Evaluate(ctx, ToTransaction(t, e.zone))
		if err != nil {
			return nil, nil, err
		}
		for _, err := range o.Errors {
			e.log.Warn().Err(err).Str(logfield.TransactionID, t.ID).Msg("rule failed")
		}
		outcomes[t.ID] = o
		src, wb := source(t.ID)
		apps = append(apps, Actions(t, o, prior[t.ID], src, wb)...)
	}
	return apps, outcomes, nil
}

// notices are the rules' notify for the arrivals that may alert: not a
// first sync's, and created within NotifyWithin.
func (e *Engine) notices(txs []store.RuleTransaction, outcomes map[string]Outcome, fromFirstSync map[string]bool) []Notice {
	var out []Notice
	cutoff := e.now().Add(-NotifyWithin)
	for _, t := range txs {
		o := outcomes[t.ID]
		if len(o.Notify) == 0 || fromFirstSync[t.ID] {
			continue
		}
		if created, err := time.Parse(time.RFC3339, t.CreatedAt); err != nil || created.Before(cutoff) {
			continue
		}
		for _, r := range o.Matched {
			if len(r.Notify) > 0 {
				out = append(out, Notice{Tx: t, Rule: r, Channels: r.Notify})
			}
		}
	}
	return out
}

// Why a rule's tag stays in the mirror (rule_applications.error): the
// bank would refuse it.
const (
	JointTags  = store.KeptLocally + "the bank allows no tags on 2Up (joint) transactions"
	SeventhTag = store.KeptLocally + "a transaction carries at most 6 tags at the bank"
)

// Actions turns one transaction's outcome into the actions to record,
// leaving out those prior (PriorRuleActions' set) says were taken before.
func Actions(t *store.RuleTransaction, o Outcome, prior map[string]bool, source string, writeBack bool) []store.RuleApplication {
	var apps []store.RuleApplication
	add := func(r *Rule, action, value string, wb bool, note string) {
		if prior[store.PriorKey(r.Name, action, value)] {
			return
		}
		apps = append(apps, store.RuleApplication{TransactionID: t.ID, Rule: r.Name, Action: action, Value: value,
			Source: source, WriteBack: wb, Error: note})
	}
	if o.CategorySet && !o.CategoryRule.unresolved() && !prior[store.PriorKey("", store.RuleCategory, "")] && t.IsCategorizable && o.CategoryID != t.CategoryID {
		add(o.CategoryRule, store.RuleCategory, o.CategoryID, writeBack, "")
		apps[len(apps)-1].Previous = t.CategoryID
	}
	// The bank's tags and those the rules write back before this one
	// count against the bank's limit; a tag past it stays in the mirror.
	atBank := len(t.Tags)
	for _, tag := range o.Tags {
		if slices.Contains(t.Tags, tag) {
			continue
		}
		switch {
		case t.Ownership == "JOINT":
			add(o.TagRules[tag], store.RuleTag, tag, false, JointTags)
		case prior[store.PriorKey(o.TagRules[tag].Name, store.RuleTag, tag)]:
		case atBank >= writeback.MaxTags:
			add(o.TagRules[tag], store.RuleTag, tag, false, SeventhTag)
		default:
			add(o.TagRules[tag], store.RuleTag, tag, writeBack, "")
			atBank++
		}
	}
	if o.Exclude != nil {
		add(o.ExcludeRule, store.RuleExclude, boolValue(*o.Exclude), false, "")
	}
	if o.Note != nil {
		add(o.NoteRule, store.RuleNote, *o.Note, false, "")
	}
	return apps
}

func boolValue(b bool) string {
	if b {
		return "1"
	}
	return "0"
}

// ToTransaction is what a rule sees of a mirrored transaction.
func ToTransaction(t *store.RuleTransaction, zone *time.Location) *Transaction {
	amount, _ := strconv.ParseFloat(t.AmountValue, 64)
	out := &Transaction{
		ID: t.ID, Description: clip(t.Description), RawText: clip(t.RawText), Message: clip(t.Message), Amount: amount,
		Currency: t.Currency, ForeignCurrency: t.ForeignCurrency, Account: t.AccountName, AccountType: t.AccountType,
		Ownership: t.Ownership, Person: t.Person, Status: t.Status, Category: t.CategoryID,
		ParentCategory: t.ParentCategoryID, Tags: t.Tags, CardPurchaseMethod: t.CardPurchase,
		AccountID: t.AccountID, AccountPeople: t.AccountPeople, PerformingCustomer: clip(t.PerformingCustomer),
		TransactionType: clip(t.TransactionType), IsTransfer: t.TransferAccountID != "", TransferAccount: t.TransferAccountName,
		HouseholdTransfer: t.HouseholdTransferID != "", HouseholdTransferPerson: t.HouseholdTransferPerson,
	}
	if out.Tags == nil {
		out.Tags = []string{}
	}
	if out.AccountPeople == nil {
		out.AccountPeople = []string{}
	}
	local, err := time.ParseInLocation("2006-01-02 15:04:05", t.CreatedLocal, zone)
	if err != nil {
		if c, err2 := time.Parse(time.RFC3339, t.CreatedAt); err2 == nil {
			local = c.In(zone)
		}
	}
	out.Weekday, out.Hour = int(local.Weekday()), local.Hour()
	return out
}

// MaxText is how much of the bank's text (description, raw_text,
// message) rules see, in bytes: far more than the bank writes, and a bound
// on what a rule's regular expression costs whatever the bank sends.
const MaxText = 1000

// clip is s cut to at most MaxText bytes, at a character's start.
func clip(s string) string {
	if len(s) <= MaxText {
		return s
	}
	n := MaxText
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

// writeBacks sends the pending write-backs that are due, one batch.
func (e *Engine) writeBacks(ctx context.Context) (time.Time, error) {
	now := e.now()
	pending, err := e.mirror.PendingRuleWriteBacks(ctx, now, writeBackBatch)
	if err != nil {
		return time.Time{}, err
	}
	far := now.Add(time.Hour)
	if len(pending) == 0 {
		return far, nil
	}
	ids := make([]string, 0, len(pending))
	for _, p := range pending {
		ids = append(ids, p.TransactionID)
	}
	labels, err := e.mirror.TransactionLabels(ctx, ids)
	if err != nil {
		return time.Time{}, err
	}
	var outcomes []store.WriteBackOutcome
	var cats, tags []store.RuleApplication
	for _, p := range pending {
		l, ok := labels[p.TransactionID]
		switch {
		case !ok:
			outcomes = append(outcomes, store.WriteBackOutcome{ID: p.ID, Err: "the transaction is no longer in the mirror"})
		case p.Action == store.RuleCategory && l.CategoryID == p.Value:
			outcomes = append(outcomes, store.WriteBackOutcome{ID: p.ID, Done: true})
		case p.Action == store.RuleCategory && l.CategoryID != p.Previous:
			// The person (or the bank) changed the category since the
			// rule decided: theirs stands.
			outcomes = append(outcomes, store.WriteBackOutcome{ID: p.ID,
				Err: fmt.Sprintf("the category changed to %q since the rule decided; that change stands", l.CategoryID)})
		case p.Action == store.RuleCategory:
			cats = append(cats, p)
		default:
			tags = append(tags, p)
		}
	}
	for _, batch := range []struct {
		op   writeback.Op
		apps []store.RuleApplication
	}{{writeback.Categorize, cats}, {writeback.AddTags, tags}} {
		if len(batch.apps) == 0 {
			continue
		}
		outcomes = append(outcomes, e.send(ctx, batch.op, batch.apps)...)
	}
	if err := e.mirror.FinishRuleWriteBacks(ctx, outcomes); err != nil {
		return time.Time{}, err
	}
	next := far
	for _, o := range outcomes {
		if !o.Done && !o.RetryAt.IsZero() && o.RetryAt.Before(next) {
			next = o.RetryAt
		}
	}
	if len(pending) == writeBackBatch {
		next = now
	}
	return next, nil
}

// send writes one kind of change back and says what became of each.
func (e *Engine) send(ctx context.Context, op writeback.Op, apps []store.RuleApplication) []store.WriteBackOutcome {
	rows := make([]writeback.Row, len(apps))
	for i, a := range apps {
		v := a.Value
		if op == writeback.Categorize && v == "" {
			v = writeback.None
		}
		rows[i] = writeback.Row{Line: i + 1, TxID: a.TransactionID, Value: v}
	}
	rep, err := e.writer.Run(ctx, op, rows, writeback.Options{SkipInvalid: true})
	out := make([]store.WriteBackOutcome, len(apps))
	for i, a := range apps {
		out[i] = store.WriteBackOutcome{ID: a.ID, Err: "not attempted", RetryAt: e.retryAt(a.Attempts)}
	}
	set := func(line int, o store.WriteBackOutcome) {
		if line >= 1 && line <= len(out) {
			o.ID = apps[line-1].ID
			out[line-1] = o
		}
	}
	for _, inv := range rep.Invalid {
		set(inv.Line, store.WriteBackOutcome{Err: inv.Reason})
	}
	for _, s := range rep.Unchanged {
		for _, l := range s.Lines {
			set(l, store.WriteBackOutcome{Done: true})
		}
	}
	for _, r := range rep.Results {
		for _, l := range r.Lines {
			switch r.Status {
			case writeback.Applied:
				set(l, store.WriteBackOutcome{Done: true})
			case writeback.Refused:
				set(l, store.WriteBackOutcome{Err: writeback.BankDetail(r.Err)})
			default:
				msg := "not attempted"
				if r.Err != nil {
					msg = r.Err.Error()
				}
				set(l, store.WriteBackOutcome{Err: msg, RetryAt: e.retryAt(apps[l-1].Attempts)})
			}
		}
	}
	if err != nil {
		e.log.Warn().Err(err).Str(logfield.Op, op.String()).Msg("rules write-back stopped")
	}
	return out
}

// retryAt is when to try again after attempts failures: 1, 2, 4 ... 60
// minutes; the zero time gives up.
func (e *Engine) retryAt(attempts int) time.Time {
	if attempts+1 >= maxAttempts {
		return time.Time{}
	}
	d := time.Minute << min(attempts, 6)
	return e.now().Add(min(d, time.Hour))
}
