package alerts_test

import (
	"context"
	"net/http/httptest"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/bankmirror/bankmirror/internal/alerts"
	"github.com/bankmirror/bankmirror/internal/bank"
	"github.com/bankmirror/bankmirror/internal/health"
	"github.com/bankmirror/bankmirror/internal/replica"
	"github.com/bankmirror/bankmirror/internal/rules"
	"github.com/bankmirror/bankmirror/internal/simulator"
	"github.com/bankmirror/bankmirror/internal/store"
)

var frozen = time.Date(2025, 6, 10, 9, 30, 0, 0, time.UTC)

// syncedBank is a simulated bank with the given extra transactions and
// a mirror of it.
func syncedBank(t *testing.T, extra ...simulator.NewTransaction) (*simulator.Bank, *store.Store) {
	t.Helper()
	sim := simulator.New(simulator.Options{Seed: 3, Transactions: 10, Token: "test-token",
		Now: func() time.Time { return frozen }, RateLimit: simulator.RateLimit{Limit: 1_000_000}})
	acc := sim.Snapshot().Accounts[0].ID
	for _, nt := range extra {
		nt.AccountID = acc
		sim.AddTransaction(nt)
	}
	srv := httptest.NewServer(sim.Handler())
	t.Cleanup(srv.Close)
	st, err := store.Open(context.Background(), filepath.Join(t.TempDir(), "mirror.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	client := bank.New(srv.URL+"/api/v1", sim.Token())
	if _, err := replica.New(client, st, zerolog.Nop(), replica.Options{}).Full(context.Background()); err != nil {
		t.Fatal(err)
	}
	return sim, st
}

func kinds(t *testing.T, st *store.Store) []string {
	t.Helper()
	all, err := st.RecentAlerts(context.Background(), 100)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, a := range all {
		out = append(out, a.Kind+" "+a.Key)
	}
	slices.Sort(out)
	return out
}

func TestBuiltInAlerts(t *testing.T) {
	ctx := context.Background()
	month := func(m int) time.Time { return time.Date(2025, time.Month(m), 5, 8, 0, 0, 0, time.UTC) }
	old := frozen.AddDate(0, 0, -9)
	_, st := syncedBank(t,
		simulator.NewTransaction{Description: "Streamflix", AmountBaseUnits: -1599, CreatedAt: month(3)},
		simulator.NewTransaction{Description: "Streamflix", AmountBaseUnits: -1599, CreatedAt: month(4)},
		simulator.NewTransaction{Description: "Streamflix", AmountBaseUnits: -1599, CreatedAt: month(5)},
		simulator.NewTransaction{Description: "Streamflix", AmountBaseUnits: -1899, CreatedAt: month(6)},
		simulator.NewTransaction{Description: "Hotel deposit", AmountBaseUnits: -20000, Held: true, CreatedAt: old},
	)
	accounts, err := st.AccountBalances(ctx)
	if err != nil {
		t.Fatal(err)
	}
	set, err := rules.Parse("rules.toml", []byte(`
[channel.phone]
url = "https://example.org/hook"
[alert.low_balance]
account = "`+accounts[0].Name+`"
below = 100000000
notify = ["phone"]
[alert.held]
days = 5
notify = ["phone"]
[alert.recurring]
notify = ["phone"]
[alert.health]
notify = ["phone"]
`), nil)
	if err != nil {
		t.Fatal(err)
	}
	d := alerts.NewDispatcher(st, nil, zerolog.Nop())
	if err := d.Configure(set, nil); err != nil {
		t.Fatal(err)
	}
	w := alerts.NewWatcher(d, st, time.UTC)
	w.SetClock(func() time.Time { return frozen })
	since := frozen.Add(-2 * time.Hour)
	w.Health = func(context.Context) ([]alerts.Condition, error) {
		return []alerts.Condition{{Key: "token:sam", Since: since, Title: "Sam's token was rejected", Message: "The bank rejected sam's token."}}, nil
	}
	for range 2 { // the second check alerts about nothing new
		if err := w.Check(ctx, set); err != nil {
			t.Fatal(err)
		}
	}
	got := kinds(t, st)
	want := []string{
		"health health:token:sam:" + since.Format(time.RFC3339),
		"held held:",
		"low_balance low_balance:" + accounts[0].ID + ":2025-06-10",
		"recurring_changed recurring_changed:Streamflix:",
	}
	if len(got) != len(want) {
		t.Fatalf("alerts %q, want %q", got, want)
	}
	for i := range want {
		if len(got[i]) < len(want[i]) || got[i][:len(want[i])] != want[i] {
			t.Fatalf("alerts %q, want %q", got, want)
		}
	}
}

// A rejected token's alert gives the advice status gives: the packaged
// unit copies a credential at start, so a new token needs a restart.
func TestTokenAlertSaysRestart(t *testing.T) {
	now := time.Date(2025, 3, 3, 12, 0, 0, 0, time.UTC)
	for _, f := range []health.Facts{
		{Now: now, TokenRejected: true, TokenRejectedAt: now},
		{Now: now, People: []health.PersonState{{Name: "sam", Token: bank.TokenState{Rejected: true, RejectedAt: now}}}},
	} {
		c := alerts.Conditions(f, health.Rules{})
		if len(c) != 1 || !strings.Contains(c[0].Message, "systemctl restart bankmirror") || strings.Contains(c[0].Message, "reload") {
			t.Fatalf("conditions %+v", c)
		}
	}
}

// The bank-outage alert shows since when as the status's DEGRADED reason
// does: in the customer's zone (BANKMIRROR_TIMEZONE) with its offset, not
// in UTC.
func TestBankOutageAlertShowsTheTimeInTheCustomersZone(t *testing.T) {
	perth, err := time.LoadLocation("Australia/Perth")
	if err != nil {
		t.Fatal(err)
	}
	now := time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)
	f := health.Facts{Now: now, LastSync: now.Add(-2 * time.Hour),
		BankOutage: replica.Outage{Since: now.Add(-61 * time.Minute), Syncs: 4, LastError: "dial tcp: connection refused"}}
	c := alerts.Conditions(f, health.Rules{Zone: perth})
	if len(c) != 1 || c[0].Key != "bank_unreachable" {
		t.Fatalf("conditions %+v, want the bank unreachable", c)
	}
	if want := "The last 4 syncs could not reach the bank, since 2026-12-01 18:59:00 +08:00: dial tcp: connection refused"; c[0].Message != want {
		t.Errorf("message %q, want %q", c[0].Message, want)
	}
}
