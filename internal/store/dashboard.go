package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"slices"
	"strings"
)

// What the dashboard (`bankmirror ui`) reads. Every figure of money comes
// from the views (v_monthly_spending, v_monthly_income, v_daily_balances,
// v_transactions, v_history), so the pages show what SQL against the views
// shows; months and days are the customer's (the *_month and *_date
// columns).

// CategorySpending is v_monthly_spending for one month and category,
// summed over the accounts.
type CategorySpending struct {
	Month                        string
	ParentCategory, Category     string // "Uncategorised" when none
	ParentCategoryID, CategoryID string // "" when none
	Cents                        int64  // total_spent_base_units
	Count                        int64
}

// SpendingByCategory is v_monthly_spending from month from to month to
// (YYYY-MM, inclusive), per month and category. It reads monthly_totals,
// the view summed ahead of time (0015_monthly_totals.sql), so that its time
// does not grow with the transactions.
func (s *Store) SpendingByCategory(ctx context.Context, from, to string) ([]CategorySpending, error) {
	return queryAll(ctx, s.ro, "spending by category", func(r *sql.Rows, c *CategorySpending) error {
		return r.Scan(&c.Month, &c.ParentCategory, &c.Category, &c.ParentCategoryID, &c.CategoryID, &c.Cents, &c.Count)
	}, `SELECT m.month, coalesce(pc.name, 'Uncategorised'), coalesce(c.name, 'Uncategorised'), m.parent_category_id,
		m.category_id, -sum(m.total_base_units), sum(m.count_out)
		FROM monthly_totals m
		LEFT JOIN accounts a ON a.id = m.account_id
		LEFT JOIN categories c ON c.id = nullif(m.category_id, '')
		LEFT JOIN categories pc ON pc.id = nullif(m.parent_category_id, '')
		WHERE m.month BETWEEN ? AND ? AND m.kind = 'spending' AND m.count > 0 AND a.account_type IS NOT 'HOME_LOAN'
		GROUP BY m.month, m.parent_category_id, m.category_id ORDER BY m.month`, from, to)
}

// IncomeByMonth is v_monthly_income's total_income_base_units per month
// from month from to month to (inclusive), months without income left out.
// It reads monthly_totals, as SpendingByCategory does.
func (s *Store) IncomeByMonth(ctx context.Context, from, to string) (map[string]int64, error) {
	rows, err := s.ro.QueryContext(ctx, `SELECT m.month, sum(m.total_base_units) FROM monthly_totals m
		LEFT JOIN accounts a ON a.id = m.account_id
		WHERE m.month BETWEEN ? AND ? AND m.kind = 'income' AND m.count > 0 AND a.account_type IS NOT 'HOME_LOAN'
		GROUP BY m.month`, from, to)
	if err != nil {
		return nil, fmt.Errorf("income by month: %w", err)
	}
	defer rows.Close()
	out := map[string]int64{}
	for rows.Next() {
		var m string
		var c int64
		if err := rows.Scan(&m, &c); err != nil {
			return nil, fmt.Errorf("income by month: %w", err)
		}
		out[m] = c
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("income by month: %w", err)
	}
	return out, nil
}

// AccountBalance is an account and its balance now.
type AccountBalance struct {
	ID, Name, Type, Currency string
	Cents                    int64
	// People are the names of the people who see the account
	// (v_account_people.people), sorted: whose it is in a household, where
	// two people's accounts can have the same name. Empty when none is
	// recorded.
	People []string
}

// AccountBalances lists the accounts with their balances, as the bank
// last reported them.
func (s *Store) AccountBalances(ctx context.Context) ([]AccountBalance, error) {
	return queryAll(ctx, s.ro, "account balances", func(r *sql.Rows, a *AccountBalance) error {
		var people string
		if err := r.Scan(&a.ID, &a.Name, &a.Type, &a.Currency, &a.Cents, &people); err != nil {
			return err
		}
		if people != "" {
			a.People = strings.Split(people, ",")
		}
		return nil
	}, `SELECT id, display_name, account_type, balance_currency, balance_base_units,
		coalesce((SELECT people FROM v_account_people v WHERE v.account_id = a.id), '')
		FROM accounts a ORDER BY account_type = 'HOME_LOAN', account_type = 'SAVER', display_name, id`)
}

// DailyBalance is one row of v_daily_balances.
type DailyBalance struct {
	AccountID, Date string
	Cents           int64
}

// DailyBalances is v_daily_balances from day from (YYYY-MM-DD) on, by
// account and day.
func (s *Store) DailyBalances(ctx context.Context, from string) ([]DailyBalance, error) {
	return queryAll(ctx, s.ro, "daily balances", func(r *sql.Rows, d *DailyBalance) error {
		return r.Scan(&d.AccountID, &d.Date, &d.Cents)
	}, `SELECT account_id, date, balance_base_units FROM v_daily_balances
		WHERE date >= ? ORDER BY account_id, date`, from)
}

// TxFilter selects transactions for ListTransactions. Empty fields do not
// filter.
type TxFilter struct {
	Month    string // created_month, YYYY-MM
	Account  string // account_id
	Category string // category_id or parent_category_id; NoCategory: none
	Tag      string // a tag label
	Status   string // HELD or SETTLED
	// Search is words to find (SearchQuery) in the description, message,
	// note, raw text and tag labels.
	Search string
	// Spending keeps what v_monthly_spending counts (its WHERE clause), or
	// with Person what v_monthly_spending_by_person counts.
	Spending bool
	// Person keeps the transactions v_transactions.person says the person
	// (people.name) made.
	Person string
	// BeforeEpoch and BeforeID page: only transactions older than this
	// one (created_epoch, then id, descending). Unset when BeforeID is "".
	BeforeEpoch int64
	BeforeID    string
	Limit       int
}

// NoCategory is TxFilter.Category for transactions without a category.
const NoCategory = "none"

// TxRow is a transaction as the dashboard lists it (v_transactions).
type TxRow struct {
	ID, Local, Description, AccountID, AccountName, Status string
	CategoryID, CategoryPath, Tags, Currency               string
	Cents, Epoch                                           int64
	Person                                                 string // who made it (v_transactions.person); "" when not known
	// HouseholdTransferID is the other side of a household transfer
	// (v_transactions.household_transfer_id): money one person of the
	// household paid another. "" for any other transaction.
	HouseholdTransferID string
}

// TxList is a page of transactions, and the count and sum of all that match.
type TxList struct {
	Rows       []TxRow
	Count, Sum int64
}

const txRowColumns = `id, coalesce(created_local, created_at), description, account_id, coalesce(account_name, account_id), status,
	coalesce(category_id, ''), coalesce(category_path, ''), coalesce(tags, ''), currency, amount_base_units, coalesce(created_epoch, 0),
	coalesce(person, ''), coalesce(household_transfer_id, '')`

func scanTxRow(r *sql.Rows, t *TxRow) error {
	return r.Scan(&t.ID, &t.Local, &t.Description, &t.AccountID, &t.AccountName, &t.Status,
		&t.CategoryID, &t.CategoryPath, &t.Tags, &t.Currency, &t.Cents, &t.Epoch, &t.Person, &t.HouseholdTransferID)
}

// ListTransactions is the transactions f selects, newest first, at most
// f.Limit of them, with the count and sum of every match.
func (s *Store) ListTransactions(ctx context.Context, f TxFilter) (TxList, error) {
	var where []string
	var args []any
	add := func(cond string, a ...any) { where = append(where, cond); args = append(args, a...) }
	if f.Month != "" {
		add("created_month = ?", f.Month)
	}
	if f.Account != "" {
		add("account_id = ?", f.Account)
	}
	switch f.Category {
	case "":
	case NoCategory:
		add("category_id IS NULL")
	default:
		add("(category_id = ? OR parent_category_id = ?)", f.Category, f.Category)
	}
	if f.Tag != "" {
		add("id IN (SELECT transaction_id FROM transaction_tags WHERE tag_id = ?)", f.Tag)
	}
	if f.Status != "" {
		add("status = ?", strings.ToUpper(f.Status))
	}
	if f.Spending {
		add(`status = 'SETTLED' AND NOT is_transfer AND NOT is_interest
			AND NOT excluded_from_spending AND account_type IS NOT 'HOME_LOAN' AND (amount_base_units < 0 OR offsets_spending)`)
		if f.Person == "" {
			// The household's spending leaves out what one person pays
			// another (v_monthly_spending); a person's counts it
			// (v_monthly_spending_by_person).
			add("NOT household_transfer")
		}
	}
	if f.Person != "" {
		add("person = ?", f.Person)
	}
	// The count, the sum and the page's ids read the table, unless a
	// condition needs a column of the view: its joins and tag lists cost
	// more than the rows they count. Only the page's rows are read from
	// the view.
	from := "transactions"
	if f.Spending || f.Person != "" {
		from = "v_transactions"
	}
	q := SearchQuery(f.Search)
	search := q != ""
	if search {
		match := "rowid IN (SELECT rowid FROM transactions_search WHERE transactions_search MATCH ?)"
		if from != "transactions" {
			match = "id IN (SELECT id FROM transactions WHERE " + match + ")"
		}
		add(match, q)
	}
	cond := "true"
	if len(where) > 0 {
		cond = strings.Join(where, " AND ")
	}
	limit := f.Limit
	if limit <= 0 {
		limit = 50
	}
	before := ""
	var beforeArgs []any
	if f.BeforeID != "" {
		before = " AND (coalesce(created_epoch, 0) < ? OR (coalesce(created_epoch, 0) = ? AND id < ?))"
		beforeArgs = []any{f.BeforeEpoch, f.BeforeEpoch, f.BeforeID}
	}
	var out TxList
	var err error
	switch {
	case search && len(where) == 1 && s.hasSearchKeys() && keysWords(f.Search): // the search is the only condition
		var ok bool
		if out, ok, err = s.searchKeysPage(ctx, q, f, before, beforeArgs, limit); err == nil && !ok {
			out, err = s.searchMoneyPage(ctx, q, f, before, beforeArgs, limit)
		}
	case search && len(where) == 1 && s.hasSearchMoney():
		out, err = s.searchMoneyPage(ctx, q, f, before, beforeArgs, limit)
	case search:
		out, err = s.searchPage(ctx, from, cond, args, before, beforeArgs, limit)
	default:
		out, err = s.listPage(ctx, from, cond, args, before, beforeArgs, limit)
	}
	return out, err
}

// txOrder is the order of a page of transactions: newest first.
const txOrder = " ORDER BY created_epoch DESC, id DESC"

// listPage counts and sums what cond selects of from, then reads the
// page's ids through the index on created_epoch.
func (s *Store) listPage(ctx context.Context, from, cond string, args []any, before string, beforeArgs []any, limit int) (TxList, error) {
	var out TxList
	// #nosec G202 -- the conditions are ListTransactions' constants; values are arguments
	if err := s.ro.QueryRowContext(ctx, "SELECT count(*), coalesce(sum(amount_base_units), 0) FROM "+from+" WHERE "+cond, args...).
		Scan(&out.Count, &out.Sum); err != nil {
		return out, fmt.Errorf("list transactions: %w", err)
	}
	var err error
	// #nosec G202 -- as above
	out.Rows, err = queryAll(ctx, s.ro, "list transactions", scanTxRow, "SELECT "+txRowColumns+" FROM v_transactions WHERE id IN (SELECT id FROM "+
		from+" WHERE "+cond+before+txOrder+" LIMIT ?)"+txOrder, slices.Concat(args, beforeArgs, []any{limit})...)
	return out, err
}

// searchPage is listPage for a search, whose matches are a part of the
// table in no useful order: each match is read once, its id, time and
// amount kept aside, and the count, the sum and the page's ids are taken
// from them.
func (s *Store) searchPage(ctx context.Context, from, cond string, args []any, before string, beforeArgs []any, limit int) (TxList, error) {
	var out TxList
	var ids []string
	// #nosec G202 -- as in listPage
	rows, err := s.ro.QueryContext(ctx, `WITH m AS MATERIALIZED (SELECT id, created_epoch, amount_base_units FROM `+from+` WHERE `+cond+`)
		SELECT n, total, id FROM (SELECT count(*) AS n, coalesce(sum(amount_base_units), 0) AS total FROM m)
		LEFT JOIN (SELECT id FROM m WHERE true`+before+txOrder+` LIMIT ?) ON true`, slices.Concat(args, beforeArgs, []any{limit})...)
	if err != nil {
		return out, fmt.Errorf("search transactions: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var id sql.NullString
		if err := rows.Scan(&out.Count, &out.Sum, &id); err != nil {
			return out, fmt.Errorf("search transactions: %w", err)
		}
		if id.Valid {
			ids = append(ids, id.String)
		}
	}
	if err := rows.Err(); err != nil {
		return out, fmt.Errorf("search transactions: %w", err)
	}
	if len(ids) == 0 {
		return out, nil
	}
	list, err := jsonArg(ids)
	if err != nil {
		return out, err
	}
	out.Rows, err = queryAll(ctx, s.ro, "search transactions", scanTxRow,
		"SELECT "+txRowColumns+" FROM v_transactions WHERE id IN (SELECT value FROM json_each(?))"+txOrder, list)
	return out, err
}

// SearchQuery turns words typed by a person into an FTS5 query: each word
// (split at spaces) quoted, so that no character of it is FTS5 syntax, and
// matched as a prefix; all of them must match. "" when there is no word.
func SearchQuery(words string) string {
	var terms []string
	for _, w := range strings.Fields(words) {
		if len(terms) == 16 {
			break
		}
		terms = append(terms, `"`+strings.ReplaceAll(w, `"`, `""`)+`"*`)
	}
	return strings.Join(terms, " AND ")
}

// TxDetail is one transaction with its history and receipt.
type TxDetail struct {
	TxRow
	Live                                                 bool // false: deleted at the bank, known from history
	Message, Note, RawText, Settled, Type, CardMethod    string
	ForeignAmount, ForeignCurrency, TransferAccount      string
	History                                              []HistoryRow
	ReceiptPath, ReceiptType, ReceiptError, AttachmentID string
}

// HistoryRow is one change of a transaction (v_history).
type HistoryRow struct {
	Change, ObservedLocal, Status, Description string
	Cents                                      sql.NullInt64
}

// TransactionDetail reads the transaction id (v_transactions), its
// history (v_history) and its attachment. ErrNotFound when the mirror has
// neither the transaction nor any history of it.
func (s *Store) TransactionDetail(ctx context.Context, id string) (TxDetail, error) {
	var d TxDetail
	err := s.ro.QueryRowContext(ctx, "SELECT "+txRowColumns+`, coalesce(message, ''), coalesce(note, ''), coalesce(raw_text, ''),
		coalesce(settled_local, ''), coalesce(transaction_type, ''), coalesce(card_purchase_method, ''),
		coalesce(foreign_amount_value, ''), coalesce(foreign_amount_currency, ''), coalesce(transfer_account_name, ''),
		coalesce(attachment_id, '') FROM v_transactions WHERE id = ?`, id).Scan(
		&d.ID, &d.Local, &d.Description, &d.AccountID, &d.AccountName, &d.Status,
		&d.CategoryID, &d.CategoryPath, &d.Tags, &d.Currency, &d.Cents, &d.Epoch, &d.Person, &d.HouseholdTransferID,
		&d.Message, &d.Note, &d.RawText, &d.Settled, &d.Type, &d.CardMethod,
		&d.ForeignAmount, &d.ForeignCurrency, &d.TransferAccount, &d.AttachmentID)
	switch {
	case err == nil:
		d.Live = true
	case !errors.Is(err, sql.ErrNoRows):
		return d, fmt.Errorf("transaction %s: %w", id, err)
	}
	d.History, err = queryAll(ctx, s.ro, "transaction history", func(r *sql.Rows, h *HistoryRow) error {
		return r.Scan(&h.Change, &h.ObservedLocal, &h.Status, &h.Description, &h.Cents)
	}, `SELECT change, coalesce(observed_local, observed_at), coalesce(status, ''),
		coalesce(description, ''), amount_base_units FROM v_history WHERE transaction_id = ? ORDER BY seq`, id)
	if err != nil {
		return d, err
	}
	if !d.Live && len(d.History) == 0 {
		return d, ErrNotFound
	}
	if !d.Live {
		d.ID = id
		last := d.History[len(d.History)-1]
		d.Description, d.Status = last.Description, "DELETED"
		d.Cents = last.Cents.Int64
	}
	err = s.ro.QueryRowContext(ctx, `SELECT id, coalesce(local_path, ''), coalesce(file_content_type, ''), coalesce(download_error, '')
		FROM attachments WHERE transaction_id = ? ORDER BY id LIMIT 1`, id).Scan(&d.AttachmentID, &d.ReceiptPath, &d.ReceiptType, &d.ReceiptError)
	if err != nil && !errors.Is(err, sql.ErrNoRows) {
		return d, fmt.Errorf("transaction %s attachment: %w", id, err)
	}
	return d, nil
}

// HeldTransactions lists up to n HELD transactions, oldest first.
func (s *Store) HeldTransactions(ctx context.Context, n int) ([]TxRow, error) {
	// The ids first, in the order of transactions_held_created: the
	// view's tag lists and joins would be computed for every HELD
	// transaction before the sort.
	const oldest = " ORDER BY " + heldOrder
	return queryAll(ctx, s.ro, "held transactions", scanTxRow, "SELECT "+txRowColumns+` FROM v_transactions
		WHERE id IN (SELECT id FROM transactions WHERE status = 'HELD'`+oldest+` LIMIT ?)`+oldest, n)
}

// PersonHeldTransactions lists up to n HELD transactions on the accounts
// person sees (account_people), oldest first: theirs and, on an account
// they share, the other's.
func (s *Store) PersonHeldTransactions(ctx context.Context, person string, n int) ([]TxRow, error) {
	const oldest = " ORDER BY " + heldOrder
	return queryAll(ctx, s.ro, "held transactions of a person", scanTxRow, "SELECT "+txRowColumns+` FROM v_transactions
		WHERE id IN (SELECT id FROM transactions WHERE status = 'HELD'
			AND account_id IN (SELECT account_id FROM account_people WHERE person = ?)`+oldest+` LIMIT ?)`+oldest, person, n)
}

// Payment is what was paid to one payee (a description) in one month at
// one amount: Count payments of Cents each (positive: money out).
type Payment struct {
	Description, Month string
	Cents, Count       int64
}

// Payments lists money paid out from month from on (HELD or SETTLED, not
// transfers between the customer's own accounts), grouped by description,
// month and amount.
func (s *Store) Payments(ctx context.Context, from string) ([]Payment, error) {
	return queryAll(ctx, s.ro, "payments", func(r *sql.Rows, p *Payment) error {
		return r.Scan(&p.Description, &p.Month, &p.Cents, &p.Count)
	}, `SELECT description, created_month, -amount_base_units, count(*) FROM transactions
		WHERE created_month >= ? AND amount_base_units < 0 AND transfer_account_id IS NULL
		GROUP BY description, created_month, amount_base_units`, from)
}
