package store

import (
	"context"
	"database/sql"
)

// What the dashboard reads of a household (its people: People): the
// per-person views (v_monthly_spending_by_person, v_monthly_income_by_person,
// v_transactions.person).

// PersonSpendingByCategory is SpendingByCategory of one person's
// spending (v_monthly_spending_by_person).
func (s *Store) PersonSpendingByCategory(ctx context.Context, person, from, to string) ([]CategorySpending, error) {
	return queryAll(ctx, s.ro, "spending by category of a person", func(r *sql.Rows, c *CategorySpending) error {
		return r.Scan(&c.Month, &c.ParentCategory, &c.Category, &c.ParentCategoryID, &c.CategoryID, &c.Cents, &c.Count)
	}, `SELECT month, parent_category, category, coalesce(parent_category_id, ''),
		coalesce(category_id, ''), sum(total_spent_base_units), sum(count)
		FROM v_monthly_spending_by_person WHERE person = ? AND month BETWEEN ? AND ?
		GROUP BY month, parent_category_id, category_id ORDER BY month`, person, from, to)
}

// monthCents is a month's amount.
type monthCents struct {
	Month string
	Cents int64
}

// PersonIncomeByMonth is IncomeByMonth of one person's income
// (v_monthly_income_by_person).
func (s *Store) PersonIncomeByMonth(ctx context.Context, person, from, to string) (map[string]int64, error) {
	rows, err := queryAll(ctx, s.ro, "income by month of a person", func(r *sql.Rows, m *monthCents) error {
		return r.Scan(&m.Month, &m.Cents)
	}, `SELECT month, sum(total_income_base_units) FROM v_monthly_income_by_person
		WHERE person = ? AND month BETWEEN ? AND ? GROUP BY month`, person, from, to)
	if err != nil {
		return nil, err
	}
	out := make(map[string]int64, len(rows))
	for _, m := range rows {
		out[m.Month] = m.Cents
	}
	return out, nil
}

// PersonSpending is what one person spent in a month
// (v_monthly_spending_by_person); Person "" is spending whose maker is
// not known (a joint account's, before its maker is learned).
type PersonSpending struct {
	Person string
	Cents  int64
	Count  int64
}

// SpendingByPerson is each person's spending in month, by name.
func (s *Store) SpendingByPerson(ctx context.Context, month string) ([]PersonSpending, error) {
	return queryAll(ctx, s.ro, "spending by person", func(r *sql.Rows, p *PersonSpending) error {
		return r.Scan(&p.Person, &p.Cents, &p.Count)
	}, `SELECT coalesce(person, ''), sum(total_spent_base_units), sum(count) FROM v_monthly_spending_by_person
		WHERE month = ? GROUP BY person ORDER BY person IS NULL, person`, month)
}

// PersonAccounts lists the ids of the accounts person sees.
func (s *Store) PersonAccounts(ctx context.Context, person string) ([]string, error) {
	return queryAll(ctx, s.ro, "accounts of a person", func(r *sql.Rows, id *string) error { return r.Scan(id) },
		`SELECT account_id FROM account_people WHERE person = ? ORDER BY account_id`, person)
}
