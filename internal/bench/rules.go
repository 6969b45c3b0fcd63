package bench

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/bankmirror/bankmirror/internal/daemon"
	"github.com/bankmirror/bankmirror/internal/replica"
	"github.com/bankmirror/bankmirror/internal/rules"
	"github.com/bankmirror/bankmirror/internal/store"
	"github.com/bankmirror/bankmirror/internal/writeback"
)

// RulesOptions are bench rules' settings.
type RulesOptions struct {
	Transactions int // in the simulated bank, for matching and apply
	Rules        int // in the rules file
	Purchases    int // bought one at a time, for the latency on arrival
	Dir          string
}

// benchMerchants are the payees the generated rules name: the
// simulator's merchants, so that rules match what the bank has.
var benchMerchants = []string{"Woolworths", "Coles", "Aldi", "Netflix", "Spotify", "Uber", "Shell", "BP", "Bunnings",
	"JB Hi-Fi", "Kmart", "Chemist Warehouse", "Dan Murphy's", "McDonald's", "Guzman y Gomez", "Telstra", "AGL", "Qantas"}

// rulesFile writes n rules: the first few set a category or tags of
// common payees (so that some transactions change), the rest are the kind
// people keep (a payee's text, a regular expression of the raw text, an
// amount band on weekdays) matching rarely.
func rulesFile(path string, n int) error {
	var b strings.Builder
	cats := []string{"groceries", "fuel", "tv-and-music", "takeaway", "homeware-and-appliances"}
	for i := range n {
		m := benchMerchants[i%len(benchMerchants)]
		fmt.Fprintf(&b, "[[rule]]\nname = \"rule %d\"\n", i)
		switch {
		case i < 4:
			fmt.Fprintf(&b, "when = 'description contains %q'\ncategory = %q\n", m, cats[i%len(cats)])
		case i < 8:
			fmt.Fprintf(&b, "when = 'description contains %q and amount < 0'\ntags = [\"bench-%d\"]\n", m, i)
		case i%3 == 0:
			fmt.Fprintf(&b, "when = 'raw_text matches \"(?i)^%s %d\"'\ncategory = %q\n", strings.ToUpper(m[:3]), i, cats[i%len(cats)])
		case i%3 == 1:
			fmt.Fprintf(&b, "when = 'amount < -%d and amount > -%d and weekday in [1,2,3,4,5] and description startsWith \"Shop %d\"'\ntags = [\"band-%d\"]\n", 10+i, 20+i, i, i)
		default:
			fmt.Fprintf(&b, "when = 'description == \"Payee %d\" or message contains \"ref %d\"'\nexclude_from_spending = true\n", i, i)
		}
		b.WriteByte('\n')
	}
	return os.WriteFile(path, []byte(b.String()), 0o600)
}

// Rules measures the rules file's cost: (1) matching n rules against
// every mirrored transaction beside a baseline that reads the same rows,
// (2) the requests `rules apply --write-back` sends per changed
// transaction against the floor (one PATCH per category change, one POST
// per tag set), and (3) a purchase's way from the bank to the mirror by
// webhook with the worker running: applied with no rules (the baseline),
// then applied and written back with n rules, the same daemon otherwise.
func Rules(ctx context.Context, env Env, o RulesOptions) error {
	sim, done, err := env.setup(ctx, &o.Dir, o.Transactions)
	if err != nil {
		return err
	}
	defer done()
	w := env.Stdout
	fmt.Fprintf(w, "bench rules: %d rules over %d simulated transactions (simulator in a child process, %s requests/hour of headroom); %d purchases one at a time by webhook\n",
		o.Rules, o.Transactions, benchHeadroom[1], o.Purchases)
	fmt.Fprintf(w, "repeat: bankmirror bench rules --transactions %d --rules %d --purchases %d\n", o.Transactions, o.Rules, o.Purchases)
	file := filepath.Join(o.Dir, "rules.toml")
	if err := rulesFile(file, o.Rules); err != nil {
		return err
	}
	if err := rulesMatchAndApply(ctx, env, sim, file, o); err != nil {
		return err
	}
	return rulesOnArrival(ctx, env, sim, file, o)
}

// rulesMatchAndApply is parts 1 and 2.
func rulesMatchAndApply(ctx context.Context, env Env, sim *benchSim, file string, o RulesOptions) error {
	w := env.Stdout
	cfg, _, err := env.config(map[string]string{"API_URL": sim.apiURL, "TOKEN": sim.token})
	if err != nil {
		return err
	}
	client := daemonClient(cfg, env.Log)
	path := filepath.Join(o.Dir, "rules-apply.db")
	st, err := store.Open(ctx, path)
	if err != nil {
		return err
	}
	defer st.Close()
	if _, err := replica.New(client, st, env.Log, replica.Options{}).Full(ctx); err != nil {
		return fmt.Errorf("full sync: %w", err)
	}
	set, err := rules.Load(ctx, file, rules.Options{Categories: st})
	if err != nil {
		return err
	}
	e := rules.NewEngine(st, writeback.New(client, st, env.Log), set, time.UTC, env.Log)

	// 1. Matching, no writes, beside reading the same rows.
	var scanTimes, readTimes []float64
	var sum rules.ScanSummary
	for range 3 {
		start := time.Now()
		var read int
		for after := int64(0); ; {
			txs, last, err := st.RuleTransactions(ctx, store.RuleQuery{AfterRowID: after, Limit: 1000})
			if err != nil {
				return err
			}
			if len(txs) == 0 {
				break
			}
			read += len(txs)
			after = last
		}
		readTimes = append(readTimes, time.Since(start).Seconds())
		start = time.Now()
		if sum, err = e.Scan(ctx, "", 0, true, nil); err != nil {
			return err
		}
		scanTimes = append(scanTimes, time.Since(start).Seconds())
		if read != sum.Transactions {
			return fmt.Errorf("read %d transactions, scanned %d", read, sum.Transactions)
		}
	}
	scan, read := median(scanTimes), median(readTimes)
	fmt.Fprintf(w, "matching %d rules, no writes: %d transactions in %.2f s (%.0f tx/s), median of 3; reading the same rows alone: %.2f s; matching costs %.1fx the read\n",
		o.Rules, sum.Transactions, scan, float64(sum.Transactions)/scan, read, scan/read)

	// 2. Apply with write-back: requests per changed transaction.
	before, err := simRequests(ctx, sim)
	if err != nil {
		return err
	}
	applied, err := e.Apply(ctx, "", true, rules.StorePlace{Store: st}, nil)
	if err != nil {
		return err
	}
	if err := e.Drain(ctx); err != nil {
		return err
	}
	after, err := simRequests(ctx, sim)
	if err != nil {
		return err
	}
	floor := sum.Requests
	sent := after - before
	fmt.Fprintf(w, "rules apply --write-back: %d transactions changed, %d requests (floor %d: one PATCH per category change, one POST per tag set): %.2f requests per changed transaction, %.2fx the floor (each change is refetched into the mirror)\n",
		applied.Changed, sent, floor, float64(sent)/float64(max(applied.Changed, 1)), float64(sent)/float64(max(floor, 1)))
	return nil
}

// simRequests is how many API requests the simulator has answered.
func simRequests(ctx context.Context, sim *benchSim) (int64, error) {
	counts, err := sim.requestCounts(ctx)
	if err != nil {
		return 0, err
	}
	var n int64
	for _, c := range counts {
		n += c
	}
	return n, nil
}

// rulesOnArrival is part 3: a daemon without rules, then one with them.
func rulesOnArrival(ctx context.Context, env Env, sim *benchSim, file string, o RulesOptions) error {
	noRules := filepath.Join(o.Dir, "empty-rules.toml")
	if err := os.WriteFile(noRules, nil, 0o600); err != nil {
		return err
	}
	base, err := arrivalLatencies(ctx, env, sim, noRules, "base.db", o.Purchases, false)
	if err != nil {
		return err
	}
	with, err := arrivalLatencies(ctx, env, sim, file, "rules.db", o.Purchases, true)
	if err != nil {
		return err
	}
	slices.Sort(base)
	slices.Sort(with)
	ms := func(v []float64, q float64) float64 { return 1000 * v[min(len(v)-1, int(q*float64(len(v))))] }
	fmt.Fprintf(env.Stdout, "a purchase by webhook, bank to mirror: applied with no rules p50 %.1f ms, p99 %.1f ms (baseline); applied and written back with %d rules p50 %.1f ms, p99 %.1f ms; added p50 %.1f ms, p99 %.1f ms\n",
		ms(base, .5), ms(base, .99), o.Rules, ms(with, .5), ms(with, .99), ms(with, .5)-ms(base, .5), ms(with, .99)-ms(base, .99))
	return nil
}

// arrivalLatencies runs a daemon with the rules file and makes n
// purchases one at a time, each timed from its creation at the bank to
// its event applied (written=false) or its category written back
// (written=true).
func arrivalLatencies(ctx context.Context, env Env, sim *benchSim, file, db string, n int, written bool) ([]float64, error) {
	cfg, _, err := env.config(map[string]string{"API_URL": sim.apiURL, "TOKEN": sim.token, "LISTEN": "127.0.0.1:0",
		"ADMIN_LISTEN": "off", "DB": filepath.Join(filepath.Dir(file), db), "RULES_FILE": file})
	if err != nil {
		return nil, err
	}
	var mu sync.Mutex
	applied := map[string]chan struct{}{}
	waitFor := func(id string) chan struct{} {
		mu.Lock()
		defer mu.Unlock()
		if applied[id] == nil {
			applied[id] = make(chan struct{})
		}
		return applied[id]
	}
	d := daemon.New(cfg, env.Log)
	d.OnEventApplied = func(e store.InboxEvent, _ store.Change) {
		ch := waitFor(e.TransactionID)
		select {
		case <-ch:
		default:
			close(ch)
		}
	}
	if err := openDaemon(ctx, d); err != nil {
		return nil, err
	}
	defer d.Close()
	<-d.InitialSyncDone
	hook, err := d.Bank.CreateWebhook(ctx, d.URL()+"/webhook", nil)
	if err != nil {
		return nil, fmt.Errorf("register the webhook: %w", err)
	}
	defer func() { _ = d.Bank.DeleteWebhook(context.WithoutCancel(ctx), hook.ID) }()
	if err := d.Store.SaveWebhook(ctx, store.Webhook{ID: hook.ID, URL: hook.URL, SecretKey: hook.SecretKey, CreatedAt: hook.CreatedAt}); err != nil {
		return nil, err
	}
	// One purchase first, not counted: the rules engine goes through the
	// first sync's transactions (recorded, not written back) before it
	// reaches new ones, which the figures are not about.
	var out []float64
	for i := -1; i < n; i++ {
		start := time.Now()
		var created struct {
			IDs []string `json:"ids"`
		}
		// Woolworths: the first generated rule sets its category.
		if err := sim.control(ctx, http.MethodPost, "/transactions", map[string]any{
			"description": fmt.Sprintf("Woolworths %d", i+1), "amountBaseUnits": -1234 - i}, &created); err != nil {
			return nil, err
		}
		id := created.IDs[0]
		select {
		case <-waitFor(id):
		case <-time.After(time.Minute):
			return nil, fmt.Errorf("purchase %s not applied within a minute", id)
		}
		for written {
			var ws struct {
				Data []any `json:"data"`
			}
			if err := sim.control(ctx, http.MethodGet, "/writes?transaction="+id, nil, &ws); err != nil {
				return nil, err
			}
			if len(ws.Data) > 0 {
				break
			}
			if time.Since(start) > time.Minute {
				return nil, fmt.Errorf("purchase %s not written back within a minute", id)
			}
			time.Sleep(time.Millisecond)
		}
		if i >= 0 {
			out = append(out, time.Since(start).Seconds())
		}
	}
	return out, nil
}
