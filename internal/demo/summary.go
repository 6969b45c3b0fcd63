package demo

import (
	"context"
	"database/sql"
	"fmt"
	"time"
)

// What the household demo shows at its end, read from the mirror's views
// as a couple would query them (docs/queries.md, 19 to 22).

// Querier reads the mirror (a *sql.DB).
type Querier interface {
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
}

// PersonSpent is one person's spending in the month, from
// v_monthly_spending_by_person.
type PersonSpent struct {
	Person string // "?": joint spending whose maker is not known
	Spent  int64  // cents, money out less money in netted
	// ToOthers is the part of Spent paid to another person of the
	// household by Up to Up (household_transfers).
	ToOthers int64
}

// JointSpent is what one person paid for on the joint account in the
// month.
type JointSpent struct {
	Person    string // v_transactions.person, else performing_customer, else "?"
	Purchases int
	Spent     int64 // cents
}

// Transfer is one side of a household transfer (an Up-to-Up payment from
// one person of the household to another).
type Transfer struct {
	Created     string // created_local
	Person      string // whose account: the payer's side, the payee's side
	Account     string
	Description string
	Amount      int64 // cents, signed
}

// Household is the month of a household, as the demo prints it.
type Household struct {
	Month     string // YYYY-MM
	People    []string
	Spending  []PersonSpent
	Joint     []JointSpent
	Transfers []Transfer // the latest, newest first
}

// ReadHousehold reads the household's month (now's, in the mirror's
// zone) from the views: spending per person, who paid for what on the
// joint account, and the latest household transfers.
func ReadHousehold(ctx context.Context, db Querier, now time.Time) (Household, error) {
	h := Household{Month: now.Format("2006-01")}
	err := each(ctx, db, `SELECT name FROM people WHERE removed_at IS NULL ORDER BY name`, nil, func(r *sql.Rows) error {
		var p string
		err := r.Scan(&p)
		h.People = append(h.People, p)
		return err
	})
	if err == nil {
		err = each(ctx, db, `SELECT coalesce(person, '?') AS who, sum(total_spent_base_units),
			CAST(round(sum(household_transfers) * 100) AS INTEGER)
			FROM v_monthly_spending_by_person WHERE month = ? GROUP BY who ORDER BY who`, []any{h.Month}, func(r *sql.Rows) error {
			var s PersonSpent
			err := r.Scan(&s.Person, &s.Spent, &s.ToOthers)
			h.Spending = append(h.Spending, s)
			return err
		})
	}
	if err == nil {
		err = each(ctx, db, `SELECT coalesce(person, performing_customer, '?') AS who, count(*), -sum(amount_base_units)
			FROM v_transactions
			WHERE ownership_type = 'JOINT' AND created_month = ? AND status = 'SETTLED' AND amount_base_units < 0 AND NOT is_transfer
			GROUP BY who ORDER BY who`, []any{h.Month}, func(r *sql.Rows) error {
			var j JointSpent
			err := r.Scan(&j.Person, &j.Purchases, &j.Spent)
			h.Joint = append(h.Joint, j)
			return err
		})
	}
	if err == nil {
		err = each(ctx, db, `SELECT created_local, coalesce(person, '?'), account_name, description, amount_base_units
			FROM v_transactions WHERE household_transfer ORDER BY created_epoch DESC, amount_base_units LIMIT 2`, nil, func(r *sql.Rows) error {
			var t Transfer
			err := r.Scan(&t.Created, &t.Person, &t.Account, &t.Description, &t.Amount)
			h.Transfers = append(h.Transfers, t)
			return err
		})
	}
	if err != nil {
		return Household{}, fmt.Errorf("read the household: %w", err)
	}
	return h, nil
}

// each runs query and calls scan for each row.
func each(ctx context.Context, db Querier, query string, args []any, scan func(*sql.Rows) error) error {
	rows, err := db.QueryContext(ctx, query, args...)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		if err := scan(rows); err != nil {
			return err
		}
	}
	return rows.Err()
}

// WaitMirrored waits until the mirror has the transaction id, looking
// every interval (the demo watches its daemon's poll bring a joint
// purchase, which no event announces).
func WaitMirrored(ctx context.Context, db Querier, id string, every time.Duration) error {
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		var found bool
		err := each(ctx, db, `SELECT 1 FROM transactions WHERE id = ?`, []any{id}, func(*sql.Rows) error {
			found = true
			return nil
		})
		if err != nil {
			return fmt.Errorf("look for transaction %s: %w", id, err)
		}
		if found {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("wait for transaction %s: %w", id, ctx.Err())
		case <-t.C:
		}
	}
}
