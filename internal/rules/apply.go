package rules

import (
	"context"
	"fmt"
	"strings"

	"github.com/bankmirror/bankmirror/internal/store"
)

// applyStateKey is where `rules apply` records how far it has come, so
// that an interrupted run resumes.
const applyStateKey = "rules_apply"

// Change is what the rules would do to one transaction.
type Change struct {
	Tx      store.RuleTransaction
	Actions []store.RuleApplication
}

// Requests is how many requests to the bank the change costs: one PATCH
// for a category, one POST for its tags (and write-back's refetch of each).
func (c Change) Requests() (changes int) {
	cat, tag := false, false
	for _, a := range c.Actions {
		if !a.WriteBack {
			continue
		}
		switch a.Action {
		case store.RuleCategory:
			cat = true
		case store.RuleTag:
			tag = true
		}
	}
	if cat {
		changes++
	}
	if tag {
		changes++
	}
	return changes
}

// Local is how many of the change's categories and tags stay in the
// mirror only because the bank cannot take them.
func (c Change) Local() int {
	n := 0
	for _, a := range c.Actions {
		if !a.WriteBack && strings.HasPrefix(a.Error, store.KeptLocally) {
			n++
		}
	}
	return n
}

// ScanSummary counts what a scan saw.
type ScanSummary struct {
	Transactions int
	Changed      int
	Actions      int
	// Requests is the number of changes the bank must make (PATCH or
	// POST); write-back refetches each, doubling the requests sent.
	Requests int
	// Local counts the categories and tags kept in the mirror only
	// because the bank cannot take them (a tag on 2Up, a 7th tag).
	Local int
	// Matches counts, per rule, the transactions it matched.
	Matches map[string]int
}

// scanBatch is how many transactions a scan reads at a time.
const scanBatch = 1000

// Scan runs the rules over the mirrored transactions created on or after
// since (a local date, YYYY-MM-DD; "" for all), in rowid order after
// afterRowID, and calls fn with each batch's changes (actions not taken
// before), the number of transactions scanned and the rowid it reached. writeBack says whether category and
// tag changes are meant for the bank.
func (e *Engine) Scan(ctx context.Context, since string, afterRowID int64, writeBack bool,
	fn func(changes []Change, scanned int, reached int64) error) (ScanSummary, error) {
	sum := ScanSummary{Matches: map[string]int{}}
	for {
		txs, last, err := e.mirror.RuleTransactions(ctx, store.RuleQuery{SinceDate: since, AfterRowID: afterRowID, Limit: scanBatch})
		if err != nil {
			return sum, err
		}
		if len(txs) == 0 {
			return sum, nil
		}
		sum.Transactions += len(txs)
		apps, outcomes, err := e.Decide(ctx, txs, func(string) (string, bool) { return store.RuleApplyRun, writeBack })
		if err != nil {
			return sum, err
		}
		for _, o := range outcomes {
			for _, r := range o.Matched {
				sum.Matches[r.Name]++
			}
		}
		byTx := map[string][]store.RuleApplication{}
		for _, a := range apps {
			byTx[a.TransactionID] = append(byTx[a.TransactionID], a)
		}
		var changes []Change
		for _, t := range txs {
			if acts := byTx[t.ID]; len(acts) > 0 {
				c := Change{Tx: t, Actions: acts}
				changes = append(changes, c)
				sum.Changed++
				sum.Actions += len(acts)
				sum.Requests += c.Requests()
				sum.Local += c.Local()
			}
		}
		if fn != nil {
			if err := fn(changes, len(txs), last); err != nil {
				return sum, err
			}
		}
		afterRowID = last
	}
}

// ApplyProgress is what `rules apply` reports as it goes.
type ApplyProgress struct {
	Done    int // transactions scanned
	Changed int
	Queued  int // write-backs queued for the bank
}

// applyState is an interrupted run's place.
type applyState struct {
	Since      string `json:"since"`
	AfterRowID int64  `json:"after_rowid"`
	WriteBack  bool   `json:"write_back"`
}

// Apply applies the rules to history: every transaction created on or
// after since, recording each action (and queueing the write-backs when
// writeBack), batch by batch, resumable: a run of the same since and
// writeBack after an interruption goes on from where it stopped; place
// keeps where. The write-backs go through
// the engine's queue, within the budget, and are sent by Run.
func (e *Engine) Apply(ctx context.Context, since string, writeBack bool, place Place, progress func(ApplyProgress)) (ScanSummary, error) {
	st := applyState{Since: since, WriteBack: writeBack}
	var prev applyState
	if ok, err := place.Load(ctx, applyStateKey, &prev); err != nil {
		return ScanSummary{}, err
	} else if ok && prev.Since == since && prev.WriteBack == writeBack {
		st.AfterRowID = prev.AfterRowID
	}
	var p ApplyProgress
	sum, err := e.Scan(ctx, since, st.AfterRowID, writeBack, func(changes []Change, scanned int, reached int64) error {
		var apps []store.RuleApplication
		for _, c := range changes {
			apps = append(apps, c.Actions...)
			p.Changed++
			p.Queued += c.Requests()
		}
		if err := e.mirror.RecordRuleApplications(ctx, apps, nil); err != nil {
			return err
		}
		st.AfterRowID = reached
		if err := place.Save(ctx, applyStateKey, st); err != nil {
			return fmt.Errorf("record apply progress: %w", err)
		}
		p.Done += scanned
		if progress != nil {
			progress(p)
		}
		return nil
	})
	if err != nil {
		return sum, err
	}
	if err := place.Save(ctx, applyStateKey, applyState{}); err != nil {
		return sum, err
	}
	e.Wake()
	return sum, nil
}

// Place keeps a long run's place (daemon_state through the store).
type Place interface {
	Load(ctx context.Context, key string, v any) (bool, error)
	Save(ctx context.Context, key string, v any) error
}

// StorePlace keeps places in the store's daemon_state.
type StorePlace struct{ Store *store.Store }

// Load reads the place under key into v.
func (p StorePlace) Load(ctx context.Context, key string, v any) (bool, error) {
	_, ok, err := p.Store.GetState(ctx, key, v)
	return ok, err
}

// Save records v under key.
func (p StorePlace) Save(ctx context.Context, key string, v any) error {
	return p.Store.PutState(ctx, key, v)
}
