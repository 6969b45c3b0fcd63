// Package writeback changes transactions' categories and tags at the bank
// (PATCH category, POST and DELETE tags) and mirrors the result at once.
//
// What the mirror already knows the bank would refuse (an unknown
// transaction, an unknown or parent category, a transaction that is not
// categorizable, a seventh tag, a malformed label) is refused before any
// request. A change the bank accepts is refetched and written through the
// store's normal upsert, so transaction_history gets an 'updated' row with
// the previous version. A change that is already so costs no request.
package writeback

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/rs/zerolog"

	"github.com/bankmirror/bankmirror/internal/bank"
	"github.com/bankmirror/bankmirror/internal/logfield"
	"github.com/bankmirror/bankmirror/internal/ptr"
	"github.com/bankmirror/bankmirror/internal/store"
)

// Limits checked before any request.
const (
	// MaxTags is the spec's limit of tags per transaction.
	MaxTags = 6
	// MaxLabelLength is the longest tag label accepted, in characters.
	// The spec states no limit; this is the mirror's own, so that a label
	// pasted by mistake (a whole line of a file) is not sent.
	MaxLabelLength = 64
)

// None, as a category (in any case), removes the transaction's category.
const None = "none"

// OwnershipJoint is a 2Up account's ownershipType: the bank refuses tags
// on its transactions.
const OwnershipJoint = "JOINT"

// Bank is what write-back needs of the bank client (*bank.Client): the
// changes, and whether the bank rejected the client's token (a household's
// change then goes through another person's).
type Bank interface {
	Transaction(ctx context.Context, id string) (bank.Transaction, error)
	SetCategory(ctx context.Context, txID string, categoryID *string) error
	AddTags(ctx context.Context, txID string, tags []string) error
	RemoveTags(ctx context.Context, txID string, tags []string) error
	Token() bank.TokenState
}

var _ Bank = (*bank.Client)(nil)

// Mirror is what write-back needs of the store (*store.Store).
type Mirror interface {
	TransactionLabels(ctx context.Context, ids []string) (map[string]store.Labels, error)
	TransactionAccounts(ctx context.Context, ids []string) (map[string]store.TxAccount, error)
	CategoryTree(ctx context.Context) (map[string]store.CategoryNode, error)
	UpsertTransactions(ctx context.Context, txs []bank.Transaction) (store.UpsertResult, error)
}

var _ Mirror = (*store.Store)(nil)

// Op is the kind of change.
type Op int

// The changes write-back makes.
const (
	Categorize Op = iota // set or remove the category
	AddTags              // add tag labels
	RemoveTags           // remove tag labels
)

func (o Op) String() string {
	switch o {
	case Categorize:
		return "categorize"
	case AddTags:
		return "tag add"
	default:
		return "tag remove"
	}
}

// Row is one requested change: from the command line (Line 0) or a line
// of a --from file.
type Row struct {
	Line  int    // 1-based line in the file; 0 on the command line
	TxID  string // transaction id
	Value string // category id or name, or None (Categorize); a tag label

	problem string // why the line could not be read as a row
}

// Invalid is a row refused before any request, with the reason.
type Invalid struct {
	Row
	Reason string
}

func (v Invalid) Error() string {
	if v.Line > 0 {
		return fmt.Sprintf("line %d: %s", v.Line, v.Reason)
	}
	return v.Reason
}

// Step is one request to the bank: one transaction's new category, or the
// labels to add to or remove from it.
type Step struct {
	TxID        string
	Person      string   // whose token sends it ("" for a household of one unnamed)
	Description string   // the transaction's, as mirrored
	Lines       []int    // the rows it carries out
	Category    string   // Categorize: the category wanted, "" for none
	Before      string   // Categorize: the category the mirror has, "" for none
	Labels      []string // AddTags, RemoveTags: the labels to send
	Tags        []string // AddTags, RemoveTags: the tags the mirror has
}

// Status is what became of a step.
type Status int

// Statuses of a step that was planned.
const (
	NotAttempted Status = iota // the batch stopped before it
	Applied                    // the bank accepted it
	Refused                    // the bank refused it (4xx): nothing changed
	Failed                     // no answer, or the bank failed (5xx, 401, ...)
)

func (s Status) String() string {
	return [...]string{"not attempted", "applied", "refused", "failed"}[s]
}

// Result is the outcome of a step.
type Result struct {
	Step
	Status Status
	Err    error // Refused, Failed: why
	// Refetch (Applied only): the transaction as the bank now has it,
	// written to the mirror; MirrorErr when it could not be.
	After     *bank.Transaction
	MirrorErr error
	// Recorded is whether the mirror recorded a change (a history row).
	Recorded bool
}

// Mismatch says how the bank's copy after an accepted change differs
// from what was asked ("" when it does not, or is unknown).
func (r Result) Mismatch(op Op) string {
	if r.After == nil {
		return ""
	}
	switch op {
	case Categorize:
		if got := ptr.Value(r.After.CategoryID); got != r.Category {
			return fmt.Sprintf("the bank shows category %s", show(got))
		}
	case AddTags:
		for _, l := range r.Labels {
			if !slices.Contains(r.After.TagIDs, l) {
				return fmt.Sprintf("the bank shows tags %s", showTags(r.After.TagIDs))
			}
		}
	case RemoveTags:
		for _, l := range r.Labels {
			if slices.Contains(r.After.TagIDs, l) {
				return fmt.Sprintf("the bank shows tags %s", showTags(r.After.TagIDs))
			}
		}
	}
	return ""
}

// Report is what a run did.
type Report struct {
	Op        Op
	Rows      int       // rows given
	Invalid   []Invalid // refused before any request
	Unchanged []Step    // already so in the mirror: no request
	Results   []Result  // one per planned step, in order
}

// Count is the number of results with status s.
func (r Report) Count(s Status) int {
	n := 0
	for _, x := range r.Results {
		if x.Status == s {
			n++
		}
	}
	return n
}

// Unmirrored is the number of applied changes the mirror could not refetch.
func (r Report) Unmirrored() int {
	n := 0
	for _, x := range r.Results {
		if x.Status == Applied && x.MirrorErr != nil {
			n++
		}
	}
	return n
}

// OK reports whether every row was valid and every change applied and
// mirrored.
func (r Report) OK() bool {
	return len(r.Invalid) == 0 && r.Count(Applied) == len(r.Results) && r.Unmirrored() == 0
}

// ErrInvalid is returned when rows are invalid and Options.SkipInvalid is
// not set: nothing was sent.
var ErrInvalid = errors.New("invalid changes; nothing was sent to the bank")

// Options tunes Run.
type Options struct {
	// SkipInvalid applies the valid rows when some are invalid, instead of
	// nothing.
	SkipInvalid bool
	// Progress, if set, is called after each step with how many of the
	// planned steps are done.
	Progress func(done, total int, r Result)
}

// Writer makes changes at the bank and in the mirror.
type Writer struct {
	people []Person
	mirror Mirror
	log    zerolog.Logger
}

// Person is a person of the household and their token's client.
type Person struct {
	Name string
	Bank Bank
}

// New returns a Writer sending every change through b.
func New(b Bank, m Mirror, log zerolog.Logger) *Writer {
	return NewHousehold([]Person{{Bank: b}}, m, log)
}

// NewHousehold returns a Writer for a household: each change goes through
// the token of a person who sees the transaction's account, the first in
// people's order whose token the bank has not rejected. An account whose
// people the mirror has not recorded goes through the first person's.
func NewHousehold(people []Person, m Mirror, log zerolog.Logger) *Writer {
	return &Writer{people: people, mirror: m, log: log.With().Str(logfield.Component, "writeback").Logger()}
}

// through picks the person whose token sends changes to account a, or
// says why none can.
func (w *Writer) through(a store.TxAccount) (Person, string) {
	if len(a.People) == 0 {
		return w.people[0], ""
	}
	var seen, rejected []string
	for _, p := range w.people {
		if p.Name != "" && !slices.Contains(a.People, p.Name) {
			continue
		}
		if p.Bank.Token().Rejected {
			rejected = append(rejected, p.Name)
			continue
		}
		return p, ""
	}
	for _, n := range a.People {
		if !slices.Contains(rejected, n) {
			seen = append(seen, n)
		}
	}
	if len(rejected) > 0 {
		return Person{}, fmt.Sprintf("the bank rejected the token of %s, who sees account %s: put a new token in place first",
			strings.Join(rejected, " and "), a.AccountID)
	}
	return Person{}, fmt.Sprintf("no configured person's token sees account %s (it is %s's)", a.AccountID, strings.Join(seen, " and "))
}

// bankOf is the client of person's token.
func (w *Writer) bankOf(person string) Bank {
	for _, p := range w.people {
		if p.Name == person {
			return p.Bank
		}
	}
	return w.people[0].Bank
}

// Run checks rows against the mirror, then sends one request per
// transaction that needs a change, in order, each followed by a refetch
// into the mirror. Invalid rows make it send nothing (ErrInvalid) unless
// opts.SkipInvalid. A refusal of the bank is recorded and the run goes on;
// when the bank or the network fails, it stops and the remaining steps are
// NotAttempted. The bank client's budget paces the requests.
//
// A run of one step (a command line) is sent in the webhook lane: a person
// waits for it, and its two requests may use the reserve. Longer runs use
// the incremental lane, which leaves the reserve to the daemon's webhook
// refetches.
func (w *Writer) Run(ctx context.Context, op Op, rows []Row, opts Options) (Report, error) {
	rep := Report{Op: op, Rows: len(rows)}
	steps, unchanged, invalid, err := w.plan(ctx, op, rows)
	if err != nil {
		return rep, err
	}
	rep.Invalid, rep.Unchanged = invalid, unchanged
	if len(invalid) > 0 && !opts.SkipInvalid {
		return rep, ErrInvalid
	}
	lane := bank.LaneIncremental
	if len(steps) == 1 {
		lane = bank.LaneWebhook
	}
	ctx = bank.WithLane(ctx, lane)
	rep.Results = make([]Result, len(steps))
	stopped := false
	for i, s := range steps {
		rep.Results[i] = Result{Step: s}
		if stopped {
			continue
		}
		r := w.apply(ctx, op, s)
		rep.Results[i] = r
		if opts.Progress != nil {
			opts.Progress(i+1, len(steps), r)
		}
		if (r.Status == Failed && stops(r.Err)) || (r.MirrorErr != nil && stops(r.MirrorErr)) {
			stopped = true
		}
	}
	return rep, ctx.Err()
}

// stops reports whether err means the next requests would fail too.
func stops(err error) bool {
	return bank.Unavailable(err) || errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded)
}

// apply sends one step and mirrors the transaction the bank then has.
func (w *Writer) apply(ctx context.Context, op Op, s Step) Result {
	r := Result{Step: s}
	b := w.bankOf(s.Person)
	var err error
	switch op {
	case Categorize:
		var c *string
		if s.Category != "" {
			c = &s.Category
		}
		err = b.SetCategory(ctx, s.TxID, c)
	case AddTags:
		err = b.AddTags(ctx, s.TxID, s.Labels)
	case RemoveTags:
		err = b.RemoveTags(ctx, s.TxID, s.Labels)
	}
	if err != nil {
		r.Status, r.Err = Failed, err
		if refusal(err) {
			r.Status = Refused
		}
		w.log.Info().Str(logfield.Op, op.String()).Str(logfield.TransactionID, s.TxID).Str(logfield.Status, r.Status.String()).
			Err(err).Msg("write-back not applied")
		return r
	}
	r.Status = Applied
	t, err := b.Transaction(ctx, s.TxID)
	if err != nil {
		r.MirrorErr = fmt.Errorf("refetch: %w", err)
		return r
	}
	res, err := w.mirror.UpsertTransactions(ctx, []bank.Transaction{t})
	if err != nil {
		r.MirrorErr = fmt.Errorf("write mirror: %w", err)
		return r
	}
	r.After, r.Recorded = &t, res.Changed() > 0
	w.log.Debug().Str(logfield.Op, op.String()).Str(logfield.TransactionID, s.TxID).Msg("write-back applied")
	return r
}

// refusal reports whether err is the bank refusing the request itself (a
// 4xx other than 401 and 429): retrying it unchanged would fail again.
func refusal(err error) bool {
	var apiErr *bank.APIError
	return errors.As(err, &apiErr) && apiErr.StatusCode >= 400 && apiErr.StatusCode < 500 && !bank.Unavailable(err)
}

// BankDetail is the bank's own explanation of a refusal: status, title and
// detail of each error object; err's text when it carries none.
func BankDetail(err error) string {
	var apiErr *bank.APIError
	if !errors.As(err, &apiErr) || len(apiErr.Errors) == 0 {
		return err.Error()
	}
	parts := make([]string, 0, len(apiErr.Errors))
	for _, o := range apiErr.Errors {
		s := fmt.Sprintf("%d %s", apiErr.StatusCode, o.Title)
		if o.Detail != "" {
			s += ": " + o.Detail
		}
		parts = append(parts, s)
	}
	return strings.Join(parts, "; ")
}

// plan checks every row against the mirror and groups the valid ones into
// one step per transaction. Rows that change nothing give unchanged steps.
func (w *Writer) plan(ctx context.Context, op Op, rows []Row) (steps, unchanged []Step, invalid []Invalid, err error) {
	ids := make([]string, 0, len(rows))
	for _, r := range rows {
		ids = append(ids, r.TxID)
	}
	known, err := w.mirror.TransactionLabels(ctx, ids)
	if err != nil {
		return nil, nil, nil, err
	}
	accounts, err := w.mirror.TransactionAccounts(ctx, ids)
	if err != nil {
		return nil, nil, nil, err
	}
	var tree map[string]store.CategoryNode
	if op == Categorize {
		if tree, err = w.mirror.CategoryTree(ctx); err != nil {
			return nil, nil, nil, err
		}
	}
	p := planner{op: op, known: known, tree: tree, byTx: map[string]*Step{},
		seen: map[string][]Row{}, conflicts: map[string]bool{}, accounts: accounts, through: w.through}
	for _, r := range rows {
		if op == Categorize && r.Value != "" && !isNone(r.Value) && r.problem == "" {
			id, reason := ResolveCategory(tree, r.Value)
			if reason != "" {
				p.invalid = append(p.invalid, Invalid{r, reason})
				continue
			}
			r.Value = id
		}
		if reason := p.check(r); reason != "" {
			p.invalid = append(p.invalid, Invalid{r, reason})
			continue
		}
		p.add(r)
	}
	p.dropConflicts()
	for _, id := range p.order {
		s := p.byTx[id]
		if p.changes(s) {
			steps = append(steps, *s)
		} else {
			unchanged = append(unchanged, *s)
		}
	}
	slices.SortStableFunc(p.invalid, func(a, b Invalid) int { return a.Line - b.Line })
	return steps, unchanged, p.invalid, nil
}

// planner accumulates the steps of a plan.
type planner struct {
	op      Op
	known   map[string]store.Labels
	tree    map[string]store.CategoryNode
	byTx    map[string]*Step
	order   []string
	invalid []Invalid
	// Categorize: the valid rows of each transaction, and the
	// transactions given two different categories.
	seen      map[string][]Row
	conflicts map[string]bool
	// accounts is each transaction's account; through picks the person
	// whose token changes it.
	accounts map[string]store.TxAccount
	through  func(a store.TxAccount) (Person, string)
}

// check returns why r is invalid on its own, or "".
func (p *planner) check(r Row) string {
	if r.problem != "" {
		return r.problem
	}
	if r.TxID == "" {
		return "empty transaction id"
	}
	if p.op == Categorize {
		if r.Value == "" {
			return fmt.Sprintf("empty category for transaction %s (write %q to remove its category)", r.TxID, None)
		}
	} else if reason := p.checkLabel(r.Value); reason != "" {
		return reason
	}
	l, ok := p.known[r.TxID]
	if !ok {
		return fmt.Sprintf("transaction %s is not in the mirror (a new one? run `bankmirror sync` first)", r.TxID)
	}
	a := p.accounts[r.TxID]
	if p.op == AddTags && a.Ownership == OwnershipJoint {
		return fmt.Sprintf("transaction %s (%s) is on a 2Up joint account: the bank does not allow tags on 2Up transactions", r.TxID, l.Description)
	}
	if _, why := p.through(a); why != "" {
		return fmt.Sprintf("transaction %s (%s): %s", r.TxID, l.Description, why)
	}
	if p.op != Categorize {
		return ""
	}
	if !l.IsCategorizable {
		return fmt.Sprintf("transaction %s (%s) is not categorizable: the bank allows no category on it", r.TxID, l.Description)
	}
	if isNone(r.Value) {
		return ""
	}
	c, ok := p.tree[r.Value]
	switch {
	case !ok && len(p.tree) == 0:
		return fmt.Sprintf("unknown category %q: the mirror has no categories yet (run `bankmirror sync` first)", r.Value)
	case !ok:
		return fmt.Sprintf("unknown category %q (`bankmirror categories` lists them)", r.Value)
	case c.ParentID == "" && len(c.Children) == 0:
		return fmt.Sprintf("%q is a top-level category, which the bank does not assign", r.Value)
	case c.ParentID == "":
		return fmt.Sprintf("%q is a parent category, which the bank does not assign; use one of its children: %s",
			r.Value, strings.Join(c.Children, ", "))
	}
	return ""
}

// checkLabel returns why a row's label cannot be sent, or "". A label to
// remove need only be non-empty: one the transaction carries (however it
// got there) can always be removed, and one it lacks costs no request.
func (p *planner) checkLabel(l string) string {
	if p.op == RemoveTags && l != "" {
		return ""
	}
	return CheckLabel(l)
}

// add merges a valid row into its transaction's step.
func (p *planner) add(r Row) {
	s, ok := p.byTx[r.TxID]
	if !ok {
		l := p.known[r.TxID]
		who, _ := p.through(p.accounts[r.TxID])
		s = &Step{TxID: r.TxID, Person: who.Name, Description: l.Description, Before: l.CategoryID, Tags: l.Tags}
		if p.op == Categorize {
			s.Category = categoryOf(r.Value)
		}
		p.byTx[r.TxID] = s
		p.order = append(p.order, r.TxID)
	}
	s.Lines = append(s.Lines, r.Line)
	if p.op != Categorize {
		p.addLabel(s, r)
		return
	}
	p.seen[r.TxID] = append(p.seen[r.TxID], r)
	if categoryOf(r.Value) != s.Category {
		p.conflicts[r.TxID] = true
	}
}

// addLabel adds r's label to the labels s sends, or refuses it as a
// seventh tag. Labels the transaction already has (add) or lacks
// (remove) need no request.
func (p *planner) addLabel(s *Step, r Row) {
	has := slices.Contains(s.Tags, r.Value)
	if slices.Contains(s.Labels, r.Value) {
		return
	}
	switch p.op {
	case AddTags:
		if has {
			return
		}
		if n := len(s.Tags) + len(s.Labels); n >= MaxTags {
			s.Lines = s.Lines[:len(s.Lines)-1]
			all := append(slices.Clone(s.Tags), s.Labels...)
			p.invalid = append(p.invalid, Invalid{r, fmt.Sprintf("%q would be a 7th tag on transaction %s, which would have %s; a transaction carries at most %d",
				r.Value, r.TxID, showTags(all), MaxTags)})
			return
		}
		s.Labels = append(s.Labels, r.Value)
	case RemoveTags:
		if has {
			s.Labels = append(s.Labels, r.Value)
		}
	}
}

// dropConflicts refuses every row of a transaction given two different
// categories: which one was meant is not known.
func (p *planner) dropConflicts() {
	for id := range p.conflicts {
		rows := p.seen[id]
		lines := make([]string, len(rows))
		for i, r := range rows {
			lines[i] = fmt.Sprintf("%s (line %d)", r.Value, r.Line)
		}
		for _, r := range rows {
			p.invalid = append(p.invalid, Invalid{r, fmt.Sprintf("transaction %s is given different categories: %s",
				id, strings.Join(lines, ", "))})
		}
		delete(p.byTx, id)
		p.order = slices.DeleteFunc(p.order, func(x string) bool { return x == id })
	}
}

// changes reports whether s needs a request.
func (p *planner) changes(s *Step) bool {
	if p.op == Categorize {
		return s.Category != s.Before
	}
	return len(s.Labels) > 0
}

func categoryOf(v string) string {
	if isNone(v) {
		return ""
	}
	return v
}

// ResolveCategory finds the category v names in tree: its id, or else its
// name, ignoring case ("Takeaway", "restaurants & cafes"). It returns the
// id, or why v names none or more than one (the reason lists them);
// tree's own problems (a parent category) are for the caller.
func ResolveCategory(tree map[string]store.CategoryNode, v string) (id, reason string) {
	if _, ok := tree[v]; ok || len(tree) == 0 {
		return v, "" // an id, or nothing to resolve against: check says so
	}
	want := strings.TrimSpace(v)
	var byID, byName, near []store.CategoryNode
	for _, c := range tree {
		switch {
		case strings.EqualFold(c.ID, want):
			byID = append(byID, c)
		case strings.EqualFold(c.Name, want):
			byName = append(byName, c)
		case want != "" && (containsFold(c.Name, want) || containsFold(c.ID, want)):
			near = append(near, c)
		}
	}
	for _, found := range [][]store.CategoryNode{byID, byName} {
		switch len(found) {
		case 0:
			continue
		case 1:
			return found[0].ID, ""
		}
		return "", fmt.Sprintf("category %q is ambiguous: it names %s; give the id", v, describeCategories(found))
	}
	reason = fmt.Sprintf("unknown category %q: no category has that id or name (`bankmirror categories` lists them)", v)
	if len(near) > 0 && len(near) <= 5 {
		reason += "; did you mean " + describeCategories(near) + "?"
	}
	return "", reason
}

// ListCategories orders tree for people: each top-level category by name,
// followed by its children by name.
func ListCategories(tree map[string]store.CategoryNode) []store.CategoryNode {
	byName := func(a, b store.CategoryNode) int {
		if c := strings.Compare(strings.ToLower(a.Name), strings.ToLower(b.Name)); c != 0 {
			return c
		}
		return strings.Compare(a.ID, b.ID)
	}
	var top []store.CategoryNode
	children := map[string][]store.CategoryNode{}
	for _, c := range tree {
		if _, ok := tree[c.ParentID]; ok && c.ParentID != "" {
			children[c.ParentID] = append(children[c.ParentID], c)
		} else {
			top = append(top, c)
		}
	}
	slices.SortFunc(top, byName)
	out := make([]store.CategoryNode, 0, len(tree))
	for _, c := range top {
		out = append(out, c)
		kids := children[c.ID]
		slices.SortFunc(kids, byName)
		out = append(out, kids...)
	}
	return out
}

// describeCategories lists categories as `id ("Name", in parent)`, by id.
func describeCategories(cs []store.CategoryNode) string {
	slices.SortFunc(cs, func(a, b store.CategoryNode) int { return strings.Compare(a.ID, b.ID) })
	parts := make([]string, len(cs))
	for i, c := range cs {
		parts[i] = fmt.Sprintf("%s (%q", c.ID, c.Name)
		if c.ParentID != "" {
			parts[i] += ", in " + c.ParentID
		}
		parts[i] += ")"
	}
	return strings.Join(parts, ", ")
}

func containsFold(s, sub string) bool {
	return strings.Contains(strings.ToLower(s), strings.ToLower(sub))
}

// isNone reports whether a category given is None, in any case.
func isNone(v string) bool { return strings.EqualFold(v, None) }

// CheckLabel returns why a tag label cannot be sent, or "".
func CheckLabel(l string) string {
	switch {
	case l == "":
		return "empty tag label"
	case !utf8.ValidString(l):
		return fmt.Sprintf("tag label %q is not valid UTF-8", l)
	case utf8.RuneCountInString(l) > MaxLabelLength:
		return fmt.Sprintf("tag label %q is %d characters long; at most %d are allowed", l, utf8.RuneCountInString(l), MaxLabelLength)
	case strings.ContainsFunc(l, unicode.IsControl):
		return fmt.Sprintf("tag label %q contains a control character", l)
	case strings.TrimSpace(l) != l:
		return fmt.Sprintf("tag label %q starts or ends with a space", l)
	}
	return ""
}

// show is a category for messages: "none" for no category.
func show(c string) string {
	if c == "" {
		return None
	}
	return c
}

func showTags(tags []string) string {
	if len(tags) == 0 {
		return "none"
	}
	q := make([]string, len(tags))
	for i, t := range tags {
		q[i] = fmt.Sprintf("%q", t)
	}
	return strings.Join(q, ", ")
}
