package mirrortest

import (
	"context"
	"database/sql"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/bankmirror/bankmirror/internal/bank"
	"github.com/bankmirror/bankmirror/internal/ptr"
	"github.com/bankmirror/bankmirror/internal/simulator"
)

// The comparisons in this file take a context and return errors rather
// than a testing.TB: the benchmarks' exactness checks use them too.

// Rendering is one of the bank's transactions as the bank renders it now:
// its id and the JSON of its TransactionResource.
type Rendering struct {
	ID  string
	Raw []byte
}

// Mismatch is how the transactions of a mirror differ from the bank's.
type Mismatch struct {
	Missing int // at the bank, not in the mirror
	Differ  int // in both, with another raw JSON, status, category or tags
	Extra   int // in the mirror, not at the bank
	// Lines describes each difference, naming the transaction.
	Lines []string
}

// String sums the mismatch up in one line; "" when there is none.
func (m Mismatch) String() string {
	var parts []string
	if m.Missing > 0 {
		parts = append(parts, fmt.Sprintf("%d transactions missing", m.Missing))
	}
	if m.Differ > 0 {
		parts = append(parts, fmt.Sprintf("%d differ from the bank", m.Differ))
	}
	if m.Extra > 0 {
		parts = append(parts, fmt.Sprintf("%d in the mirror but not at the bank", m.Extra))
	}
	return strings.Join(parts, ", ")
}

// CompareTransactions compares the transactions mirrored in db with the
// bank's renderings: the same ids, each row's raw JSON byte for byte, its
// status and category columns what the JSON says, and its tags
// (transaction_tags) those the JSON lists. It reads the mirror in two
// queries, whatever its size.
func CompareTransactions(ctx context.Context, db *sql.DB, truth []Rendering) (Mismatch, error) {
	type row struct{ raw, status, category string }
	mirror := map[string]row{}
	rows, err := db.QueryContext(ctx, "SELECT id, raw, status, coalesce(category_id, '') FROM transactions")
	if err != nil {
		return Mismatch{}, fmt.Errorf("read the mirror: %w", err)
	}
	for rows.Next() {
		var id string
		var r row
		if err := rows.Scan(&id, &r.raw, &r.status, &r.category); err != nil {
			rows.Close() //nolint:sqlclosecheck // every path closes it, before the next statement on this connection
			return Mismatch{}, fmt.Errorf("read the mirror: %w", err)
		}
		mirror[id] = r
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return Mismatch{}, fmt.Errorf("read the mirror: %w", err)
	}
	tags, err := tagsByTransaction(ctx, db)
	if err != nil {
		return Mismatch{}, err
	}
	var m Mismatch
	for _, want := range truth {
		got, ok := mirror[want.ID]
		delete(mirror, want.ID)
		switch {
		case !ok:
			m.Missing++
			m.Lines = append(m.Lines, fmt.Sprintf("transaction %s: missing from the mirror", want.ID))
			continue
		case got.raw != string(want.Raw):
			m.Differ++
			m.Lines = append(m.Lines, fmt.Sprintf("transaction %s: mirror raw differs from bank\n got: %.300s\nwant: %.300s", want.ID, got.raw, want.Raw))
			continue
		}
		parsed, err := bank.ParseTransaction(want.Raw)
		if err != nil {
			return Mismatch{}, fmt.Errorf("the bank's transaction %s: %w", want.ID, err)
		}
		differs := false
		if got.status != parsed.Status || got.category != ptr.Value(parsed.CategoryID) {
			differs = true
			m.Lines = append(m.Lines, fmt.Sprintf("transaction %s: columns status=%s category=%s, bank %s %s",
				want.ID, got.status, got.category, parsed.Status, ptr.Value(parsed.CategoryID)))
		}
		if wantTags := slices.Sorted(slices.Values(parsed.TagIDs)); !slices.Equal(tags[want.ID], wantTags) {
			differs = true
			m.Lines = append(m.Lines, fmt.Sprintf("transaction %s: tags %v, bank %v", want.ID, tags[want.ID], wantTags))
		}
		if differs {
			m.Differ++
		}
	}
	for _, id := range slices.Sorted(maps.Keys(mirror)) {
		m.Extra++
		m.Lines = append(m.Lines, fmt.Sprintf("transaction %s is in the mirror but not at the bank", id))
	}
	return m, nil
}

// tagsByTransaction reads transaction_tags: each transaction's tags,
// sorted.
func tagsByTransaction(ctx context.Context, db *sql.DB) (map[string][]string, error) {
	rows, err := db.QueryContext(ctx, "SELECT transaction_id, tag_id FROM transaction_tags ORDER BY transaction_id, tag_id")
	if err != nil {
		return nil, fmt.Errorf("read the mirror's tags: %w", err)
	}
	defer rows.Close()
	out := map[string][]string{}
	for rows.Next() {
		var id, tag string
		if err := rows.Scan(&id, &tag); err != nil {
			return nil, fmt.Errorf("read the mirror's tags: %w", err)
		}
		out[id] = append(out[id], tag)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("read the mirror's tags: %w", err)
	}
	return out, nil
}

// CompareAccounts compares the mirror's accounts with the bank's, field by
// field, balances included. It returns one line per difference.
func CompareAccounts(ctx context.Context, db *sql.DB, accounts []simulator.Account) ([]string, error) {
	type account struct {
		name, typ, owner, currency, value string
		units                             int64
		created                           string
	}
	got := map[string]account{}
	rows, err := db.QueryContext(ctx, `SELECT id, display_name, account_type, ownership_type, balance_currency, balance_value,
		balance_base_units, created_at FROM accounts`)
	if err != nil {
		return nil, fmt.Errorf("read the mirror's accounts: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var id string
		var a account
		if err := rows.Scan(&id, &a.name, &a.typ, &a.owner, &a.currency, &a.value, &a.units, &a.created); err != nil {
			return nil, fmt.Errorf("read the mirror's accounts: %w", err)
		}
		got[id] = a
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("read the mirror's accounts: %w", err)
	}
	var diffs []string
	for _, a := range accounts {
		g, ok := got[a.ID]
		delete(got, a.ID)
		want := account{a.DisplayName, a.AccountType, a.OwnershipType, a.Balance.CurrencyCode, a.Balance.Value(), a.Balance.ValueInBaseUnits, g.created}
		if !ok || g != want || !sameInstant(g.created, a.CreatedAt) {
			diffs = append(diffs, fmt.Sprintf("account %s: mirror %+v (present %v), bank %+v created %s", a.ID, g, ok, want, a.CreatedAt.Format(time.RFC3339)))
		}
	}
	for id := range got {
		diffs = append(diffs, fmt.Sprintf("account %s: in the mirror, not at the bank", id))
	}
	return diffs, nil
}
