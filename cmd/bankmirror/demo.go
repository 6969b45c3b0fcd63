package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"text/tabwriter"
	"time"

	"github.com/bankmirror/bankmirror/internal/simulator"
	"github.com/bankmirror/bankmirror/internal/store"
)

func cmdDemo(ctx context.Context, a *app, args []string) error {
	fs := a.flags("demo", "[--db PATH] [--transactions N] [--seed S]")
	dbPath := fs.String("db", "bankmirror-demo.db", "mirror file to write (replaced if it exists)")
	n := fs.Int("transactions", 5000, "number of transactions in the simulated bank")
	seed := fs.Uint64("seed", 1, "seed of the simulated bank's data")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *n < 0 {
		return fmt.Errorf("%w: --transactions must not be negative", errUsage)
	}
	// The demo's mirror belongs to this run's simulated bank: start afresh.
	for _, suffix := range []string{"", "-wal", "-shm"} {
		if err := os.Remove(*dbPath + suffix); err != nil && !errors.Is(err, os.ErrNotExist) {
			return fmt.Errorf("remove old demo mirror: %w", err)
		}
	}

	sim := simulator.New(simulator.Options{Seed: *seed, Transactions: *n})
	srv, err := startServer("127.0.0.1:0", sim.Handler())
	if err != nil {
		return err
	}
	defer srv.shutdown()
	apiURL := srv.baseURL + "/api/v1"
	fmt.Fprintf(a.stdout, "Simulated bank with %d transactions at %s\n", *n, apiURL)

	st, err := a.openStore(ctx, *dbPath)
	if err != nil {
		return err
	}
	defer st.Close()
	// The simulator is local: no request budget.
	client := a.client(apiURL, sim.Token(), 0)
	if _, err := client.Ping(ctx); err != nil {
		return fmt.Errorf("ping simulated bank: %w", err)
	}
	res, err := runSync(ctx, a, client, st, true)
	if err != nil {
		return err
	}
	printResult(a.stdout, res)
	if err := printSummary(ctx, a.stdout, st, time.Now()); err != nil {
		return err
	}
	fmt.Fprintf(a.stdout, `
The mirror is a plain SQLite file. Try:
  sqlite3 %[1]s "SELECT created_at, description, amount, category_name, tags FROM v_transactions ORDER BY created_at DESC LIMIT 10"
  sqlite3 %[1]s "SELECT month, parent_category, round(sum(total_spent), 2) FROM v_monthly_spending GROUP BY 1, 2 ORDER BY 1 DESC, 3 DESC LIMIT 12"
  sqlite3 %[1]s "SELECT display_name, balance_value, balance_currency FROM accounts ORDER BY display_name"
`, *dbPath)
	return nil
}

// printSummary prints accounts, transaction counts and this month's spending
// by category, read back from the mirror.
func printSummary(ctx context.Context, w io.Writer, st *store.Store, now time.Time) error {
	db := st.Reader()
	rows, err := db.QueryContext(ctx, `SELECT a.display_name, a.account_type, a.ownership_type, a.balance_value,
		(SELECT count(*) FROM transactions t WHERE t.account_id = a.id) FROM accounts a ORDER BY a.display_name`)
	if err != nil {
		return fmt.Errorf("summary: %w", err)
	}
	defer rows.Close()
	fmt.Fprintln(w, "\nAccounts:")
	tw := tabwriter.NewWriter(w, 2, 4, 2, ' ', 0)
	for rows.Next() {
		var name, typ, own, bal string
		var count int
		if err := rows.Scan(&name, &typ, &own, &bal, &count); err != nil {
			return fmt.Errorf("summary: %w", err)
		}
		fmt.Fprintf(tw, "  %s\t%s\t%s\t%s AUD\t%d transactions\n", name, typ, own, bal, count)
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("summary: %w", err)
	}
	tw.Flush()

	var total, held int
	if err := db.QueryRowContext(ctx, "SELECT count(*), count(*) FILTER (WHERE status = 'HELD') FROM transactions").Scan(&total, &held); err != nil {
		return fmt.Errorf("summary: %w", err)
	}
	fmt.Fprintf(w, "Transactions: %d (%d HELD)\n", total, held)

	month := now.Format("2006-01")
	rows2, err := db.QueryContext(ctx, `SELECT parent_category, category, total_spent, count FROM v_monthly_spending
		WHERE month = ? ORDER BY total_spent DESC LIMIT 10`, month)
	if err != nil {
		return fmt.Errorf("summary: %w", err)
	}
	defer rows2.Close()
	fmt.Fprintf(w, "\nSpending this month (%s), top categories:\n", month)
	tw = tabwriter.NewWriter(w, 2, 4, 2, ' ', tabwriter.AlignRight)
	for rows2.Next() {
		var parent, cat string
		var spent float64
		var count int
		if err := rows2.Scan(&parent, &cat, &spent, &count); err != nil {
			return fmt.Errorf("summary: %w", err)
		}
		fmt.Fprintf(tw, "  %s / %s\t%.2f AUD\t%d\t\n", parent, cat, spent, count)
	}
	if err := rows2.Err(); err != nil {
		return fmt.Errorf("summary: %w", err)
	}
	return tw.Flush()
}
