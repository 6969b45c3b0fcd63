package store

import (
	"context"
	"database/sql"
	"fmt"
	"time"
)

// PaymentOut is one payment out, for finding recurring payments.
type PaymentOut struct {
	ID, Description, Date, Currency string // Date: YYYY-MM-DD in the customer's zone
	Cents                           int64  // positive: the amount paid
}

// PaymentsOut lists the money paid out on or after the local date from
// (HELD or SETTLED, not transfers between own accounts nor between the
// household's people), oldest first.
func (s *Store) PaymentsOut(ctx context.Context, from string) ([]PaymentOut, error) {
	// Through created_epoch, which is indexed, from a day before from in
	// UTC (no zone is further from UTC), then exactly by the local date.
	day, err := time.Parse("2006-01-02", from)
	if err != nil {
		return nil, fmt.Errorf("payments from %q: %w", from, err)
	}
	return queryAll(ctx, s.ro, "payments", func(r *sql.Rows, p *PaymentOut) error {
		return r.Scan(&p.ID, &p.Description, &p.Date, &p.Currency, &p.Cents)
	}, `SELECT id, description, created_date, amount_currency, -amount_base_units FROM transactions
		WHERE created_epoch >= ? AND created_date >= ? AND amount_base_units < 0 AND transfer_account_id IS NULL
			AND household_transfer_id IS NULL
		ORDER BY created_epoch, id`, day.AddDate(0, 0, -1).Unix(), from)
}
