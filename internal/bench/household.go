package bench

import (
	"context"
	"errors"
	"fmt"
	"io"
	mrand "math/rand/v2"
	"path/filepath"
	"slices"
	"strconv"
	"time"

	"github.com/bankmirror/bankmirror/internal/bank"
	"github.com/bankmirror/bankmirror/internal/household"
	"github.com/bankmirror/bankmirror/internal/pause"
	"github.com/bankmirror/bankmirror/internal/replica"
	"github.com/bankmirror/bankmirror/internal/store"
)

// HouseholdOptions are bench household's settings.
type HouseholdOptions struct {
	Transactions int           // on each person's own accounts
	Joint        int           // on the joint account
	Interval     time.Duration // poll interval of the latency run
	Purchases    int           // joint purchases timed
	Baseline     bool          // also a single customer's first sync of the same size, for its peak RSS
	Dir          string
}

// householdPeople are the bench's people.
var householdPeople = []string{"alex", "sam"}

// Household measures a household of two sharing a joint account (the
// simulator in a child process, reporting ample headroom): the first
// sync's requests against the floor (every distinct account's pages once),
// its time and peak RSS beside a single customer's first sync of the same
// size; the requests of an idle hour (each token's incremental syncs, two
// an hour by default, and the joint account's polls); and how long a joint
// purchase takes to reach the mirror through the polls.
func Household(ctx context.Context, env Env, o HouseholdOptions) error {
	tokens := map[string]string{}
	arg := ""
	for i, p := range householdPeople {
		tokens[p] = "tok-" + p + "-" + randomHex(8)
		if i > 0 {
			arg += ","
		}
		arg += p + "=" + tokens[p]
	}
	dir := o.Dir
	sim, done, err := env.setup(ctx, &dir, o.Transactions, "--people", "alex,sam", "--token", arg,
		"--joint-transactions", strconv.Itoa(o.Joint))
	if err != nil {
		return err
	}
	defer done()
	w := env.Stdout
	fmt.Fprintf(w, "bench household: alex and sam, %d transactions each on their own accounts, %d on the joint account (simulator in a child process at %s)\n",
		o.Transactions, o.Joint, sim.apiURL)
	fmt.Fprintf(w, "repeat: bankmirror bench household --transactions %d --joint %d --interval %s --purchases %d\n",
		o.Transactions, o.Joint, o.Interval, o.Purchases)

	st, err := store.Open(ctx, filepath.Join(dir, "household.db"))
	if err != nil {
		return err
	}
	defer st.Close()
	h := household.New(st, env.Log, household.Options{PollInterval: o.Interval,
		NewClient: func(p household.Person) *bank.Client { return bank.New(sim.apiURL, p.Token) }})
	var people []household.Person
	for _, p := range householdPeople {
		people = append(people, household.Person{Name: p, Token: tokens[p]})
	}
	if err := h.SetPeople(ctx, people); err != nil {
		return err
	}

	// The first sync.
	before, err := sim.peopleRequests(ctx)
	if err != nil {
		return err
	}
	routes0, err := sim.requestCounts(ctx)
	if err != nil {
		return err
	}
	resetPeakRSS()
	start := time.Now()
	r, err := h.Full(ctx)
	if err != nil {
		return fmt.Errorf("first sync: %w", err)
	}
	took, peak := time.Since(start), procMiB("VmHWM")
	after, err := sim.peopleRequests(ctx)
	if err != nil {
		return err
	}
	routes1, err := sim.requestCounts(ctx)
	if err != nil {
		return err
	}
	floor, jointPages, n, err := accountFloor(ctx, st)
	if err != nil {
		return err
	}
	const listing = "GET /accounts/{id}/transactions 200"
	pages := routes1[listing] - routes0[listing]
	fmt.Fprintf(w, "first sync: %d transactions in %s, %d requests (alex %d, sam %d): %d pages of accounts' transactions (floor %d, the joint account's %d once: %+.1f%%) and %d for accounts, categories, tags, holds and attachments; peak RSS %.1f MiB\n",
		n, took.Round(time.Millisecond), r.Requests, after["alex"]-before["alex"], after["sam"]-before["sam"], pages, floor, jointPages,
		100*float64(pages-int64(floor))/float64(floor), r.Requests-pages, peak)
	if o.Baseline {
		if err := singleBaseline(ctx, env, o.Transactions*2+o.Joint, filepath.Join(dir, "single.db"), w); err != nil {
			return err
		}
	}

	// An idle hour: what one incremental sync and one poll cost when
	// nothing happens, times how often they run.
	before, _ = sim.peopleRequests(ctx)
	if _, err := h.Incremental(ctx); err != nil {
		return fmt.Errorf("idle incremental sync: %w", err)
	}
	mid, _ := sim.peopleRequests(ctx)
	pr, err := h.Poll(ctx)
	if err != nil {
		return fmt.Errorf("idle poll: %w", err)
	}
	incremental := mid["alex"] - before["alex"] + mid["sam"] - before["sam"]
	const syncsPerHour = 2                                    // BANKMIRROR_SYNC_SCHEDULE's default, @every 30m
	const pollsPerHour = int64(time.Hour / (5 * time.Minute)) // BANKMIRROR_POLL_INTERVAL's default
	fmt.Fprintf(w, "idle hour: an incremental sync costs %d requests (both tokens), a poll of the joint account %d: %d x %d + %d x %d = %d requests an hour at the default schedule and a 5m poll interval\n",
		incremental, pr.Requests, syncsPerHour, incremental, pollsPerHour, pr.Requests, syncsPerHour*incremental+pollsPerHour*pr.Requests)

	return jointLatency(ctx, sim, h, st, o, w)
}

// accountFloor is the pages of 100 every distinct account's transactions
// fill once (one for an empty account), the joint account's among them,
// and the transactions mirrored.
func accountFloor(ctx context.Context, st *store.Store) (floor, joint, n int, err error) {
	accounts, err := st.AccountsWithPeople(ctx)
	if err != nil {
		return 0, 0, 0, err
	}
	for _, a := range accounts {
		var c int
		if err := st.Reader().QueryRowContext(ctx, "SELECT count(*) FROM transactions WHERE account_id = ?", a.AccountID).Scan(&c); err != nil {
			return 0, 0, 0, err
		}
		pages := max(1, (c+99)/100)
		floor += pages
		n += c
		if a.OwnershipType == "JOINT" {
			joint += pages
		}
	}
	return floor, joint, n, nil
}

// singleBaseline runs a single customer's first sync of n transactions,
// for its peak RSS and time.
func singleBaseline(ctx context.Context, env Env, n int, path string, w io.Writer) error {
	sim, err := env.startSim(ctx, n)
	if err != nil {
		return err
	}
	defer sim.stop()
	resetPeakRSS()
	start := time.Now()
	r, err := benchSync(ctx, bank.New(sim.apiURL, sim.token), path, env.Log, func(replica.Progress) {}, 5*time.Minute, 0, false, "")
	if err != nil {
		return fmt.Errorf("baseline sync: %w", err)
	}
	fmt.Fprintf(w, "baseline, one customer: %d transactions in %s, %d requests, peak RSS %.1f MiB\n",
		r.Listed, time.Since(start).Round(time.Millisecond), r.Requests, procMiB("VmHWM"))
	return nil
}

// jointLatency makes joint purchases at random moments while the poller
// runs, and times each from the bank's answer to its row in the mirror.
func jointLatency(ctx context.Context, sim *benchSim, h *household.Household, st *store.Store, o HouseholdOptions, w io.Writer) error {
	joint := ""
	accounts, err := st.AccountsWithPeople(ctx)
	if err != nil {
		return err
	}
	for _, a := range accounts {
		if a.OwnershipType == "JOINT" {
			joint = a.AccountID
		}
	}
	if joint == "" {
		return errors.New("no joint account")
	}
	pctx, stop := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() { defer close(done); h.RunPoller(pctx) }()
	defer func() { stop(); <-done }()
	rng := mrand.New(mrand.NewPCG(1, 2))
	var lat []time.Duration
	for i := range o.Purchases {
		if err := pause.For(ctx, time.Duration(rng.Int64N(int64(o.Interval)))); err != nil {
			return err
		}
		var out struct {
			IDs []string `json:"ids"`
		}
		err := sim.control(ctx, "POST", "/transactions", map[string]any{"accountId": joint, "person": householdPeople[i%2],
			"amountBaseUnits": -(100 + rng.IntN(10000))}, &out)
		if err != nil {
			return err
		}
		ids := out.IDs
		made := time.Now()
		for {
			var c int
			if err := st.Reader().QueryRowContext(ctx, "SELECT count(*) FROM transactions WHERE id = ?", ids[0]).Scan(&c); err != nil {
				return err
			}
			if c == 1 {
				break
			}
			if time.Since(made) > 2*o.Interval+time.Minute {
				return fmt.Errorf("joint purchase %s not mirrored after %s", ids[0], time.Since(made))
			}
			if err := pause.For(ctx, 10*time.Millisecond); err != nil {
				return err
			}
		}
		lat = append(lat, time.Since(made))
	}
	slices.Sort(lat)
	fmt.Fprintf(w, "joint purchase to mirror, %d purchases at random moments, poll interval %s: p50 %s, max %s (bound: the interval plus 10 s)\n",
		len(lat), o.Interval, lat[len(lat)/2].Round(time.Millisecond), lat[len(lat)-1].Round(time.Millisecond))
	return nil
}

// peopleRequests is each person's API requests so far, by name.
func (s *benchSim) peopleRequests(ctx context.Context) (map[string]int64, error) {
	var people struct {
		Data []struct {
			Name     string `json:"name"`
			Requests int64  `json:"requests"`
		} `json:"data"`
	}
	if err := s.control(ctx, "GET", "/people", nil, &people); err != nil {
		return nil, err
	}
	out := map[string]int64{}
	for _, p := range people.Data {
		out[p.Name] = p.Requests
	}
	return out, nil
}
