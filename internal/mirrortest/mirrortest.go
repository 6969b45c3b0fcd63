// Package mirrortest compares a mirror with the simulated bank's truth:
// helpers for the tests that check a mirror, and the comparisons the
// benchmarks use to know when a mirror is exact (compare.go).
package mirrortest

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/bankmirror/bankmirror/internal/simulator"
)

// TB is the part of testing.TB the helpers use. Declaring it here keeps
// the testing package out of the binary, which links this package's
// comparisons through the benchmarks.
type TB interface {
	Helper()
	Error(args ...any)
	Errorf(format string, args ...any)
	Fatal(args ...any)
	Fatalf(format string, args ...any)
}

// AssertEqualsTruth checks that the mirror read through db holds exactly the
// simulator's live transactions, each byte for byte as the bank renders it
// at baseURL, with its status, category and tags, and the same accounts and
// categories.
func AssertEqualsTruth(t TB, sim *simulator.Bank, db *sql.DB, baseURL string) {
	t.Helper()
	snap := sim.Snapshot()
	truth := make([]Rendering, len(snap.Transactions))
	for i, tx := range snap.Transactions {
		raw, err := sim.RenderTransaction(baseURL, tx.ID)
		if err != nil {
			t.Fatal(err)
		}
		truth[i] = Rendering{ID: tx.ID, Raw: raw}
	}
	m, err := CompareTransactions(context.Background(), db, truth)
	if err != nil {
		t.Fatal(err)
	}
	if m.Missing+m.Extra > 0 {
		t.Errorf("mirror has %d transactions, bank has %d", len(truth)-m.Missing+m.Extra, len(truth))
	}
	const shown = 10
	for i, line := range m.Lines {
		if i == shown {
			t.Errorf("... and %d more differences", len(m.Lines)-shown)
			break
		}
		t.Error(line)
	}
	if n := Int(t, db, "SELECT count(*) FROM accounts"); n != len(snap.Accounts) {
		t.Errorf("accounts = %d, bank has %d", n, len(snap.Accounts))
	}
	if n := Int(t, db, "SELECT count(*) FROM categories"); n != len(snap.Categories) {
		t.Errorf("categories = %d, bank has %d", n, len(snap.Categories))
	}
}

// Strings runs a query whose rows are one string each.
func Strings(t TB, db *sql.DB, q string, args ...any) []string {
	t.Helper()
	rows, err := db.Query(q, args...)
	if err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var s string
		if err := rows.Scan(&s); err != nil {
			t.Fatal(err)
		}
		out = append(out, s)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// Int runs a query returning one integer.
func Int(t TB, db *sql.DB, q string, args ...any) int {
	t.Helper()
	var n int
	if err := db.QueryRow(q, args...).Scan(&n); err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	return n
}

// The comparisons below report differences instead of failing, so that a
// test can decide per transaction what the mirror must already know (a
// randomized convergence test checks in phases: after the event stream,
// after an incremental sync, after a full sync).

// Row is a mirrored transaction: every column derived from the bank's
// resource (bookkeeping columns such as fetched_at are left out) and its
// tags from transaction_tags, sorted.
type Row struct {
	Raw     string
	Columns map[string]any // column name -> value as scanned: nil, int64 or string
	Tags    []string
	Zone    string // the mirror's time zone (mirror_settings), of the local-time columns
}

// localColumns are the transactions columns derived from a timestamp of
// the resource in the mirror's zone: X_epoch, X_local, X_date, X_month.
var localColumns = []struct{ prefix, path string }{
	{"created", "attributes.createdAt"},
	{"settled", "attributes.settledAt"},
}

// localValues are the four local-time columns of an RFC 3339 text in zone.
func localValues(text any, zone string) ([4]any, error) {
	s, ok := text.(string)
	if !ok {
		return [4]any{}, nil
	}
	at, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return [4]any{}, err
	}
	loc, err := time.LoadLocation(zone)
	if err != nil {
		return [4]any{}, err
	}
	l := at.In(loc)
	return [4]any{at.Unix(), l.Format(time.DateTime), l.Format(time.DateOnly), l.Format("2006-01")}, nil
}

var localSuffixes = [4]string{"_epoch", "_local", "_date", "_month"}

// rowColumns are the transactions columns that mirror a field of the
// resource, each with the JSON path it comes from (under data) and the kind
// of value: "s" string, "i" integer, "b" boolean (stored 0/1).
var rowColumns = []struct{ column, path, kind string }{
	{"account_id", "relationships.account.data.id", "s"},
	{"status", "attributes.status", "s"},
	{"raw_text", "attributes.rawText", "s"},
	{"description", "attributes.description", "s"},
	{"message", "attributes.message", "s"},
	{"is_categorizable", "attributes.isCategorizable", "b"},
	{"amount_currency", "attributes.amount.currencyCode", "s"},
	{"amount_value", "attributes.amount.value", "s"},
	{"amount_base_units", "attributes.amount.valueInBaseUnits", "i"},
	{"foreign_amount_currency", "attributes.foreignAmount.currencyCode", "s"},
	{"foreign_amount_value", "attributes.foreignAmount.value", "s"},
	{"foreign_amount_base_units", "attributes.foreignAmount.valueInBaseUnits", "i"},
	{"hold_amount_currency", "attributes.holdInfo.amount.currencyCode", "s"},
	{"hold_amount_value", "attributes.holdInfo.amount.value", "s"},
	{"hold_amount_base_units", "attributes.holdInfo.amount.valueInBaseUnits", "i"},
	{"hold_foreign_amount_currency", "attributes.holdInfo.foreignAmount.currencyCode", "s"},
	{"hold_foreign_amount_value", "attributes.holdInfo.foreignAmount.value", "s"},
	{"hold_foreign_amount_base_units", "attributes.holdInfo.foreignAmount.valueInBaseUnits", "i"},
	{"round_up_amount_currency", "attributes.roundUp.amount.currencyCode", "s"},
	{"round_up_amount_value", "attributes.roundUp.amount.value", "s"},
	{"round_up_amount_base_units", "attributes.roundUp.amount.valueInBaseUnits", "i"},
	{"round_up_boost_currency", "attributes.roundUp.boostPortion.currencyCode", "s"},
	{"round_up_boost_value", "attributes.roundUp.boostPortion.value", "s"},
	{"round_up_boost_base_units", "attributes.roundUp.boostPortion.valueInBaseUnits", "i"},
	{"cashback_description", "attributes.cashback.description", "s"},
	{"cashback_amount_currency", "attributes.cashback.amount.currencyCode", "s"},
	{"cashback_amount_value", "attributes.cashback.amount.value", "s"},
	{"cashback_amount_base_units", "attributes.cashback.amount.valueInBaseUnits", "i"},
	{"card_purchase_method", "attributes.cardPurchaseMethod.method", "s"},
	{"card_number_suffix", "attributes.cardPurchaseMethod.cardNumberSuffix", "s"},
	{"settled_at", "attributes.settledAt", "s"},
	{"created_at", "attributes.createdAt", "s"},
	{"transaction_type", "attributes.transactionType", "s"},
	{"note", "attributes.note.text", "s"},
	{"performing_customer", "attributes.performingCustomer.displayName", "s"},
	{"deep_link_url", "attributes.deepLinkURL", "s"},
	{"transfer_account_id", "relationships.transferAccount.data.id", "s"},
	{"category_id", "relationships.category.data.id", "s"},
	{"parent_category_id", "relationships.parentCategory.data.id", "s"},
	{"attachment_id", "relationships.attachment.data.id", "s"},
}

// ReadTransactions reads every mirrored transaction by id.
func ReadTransactions(t TB, db *sql.DB) map[string]Row {
	t.Helper()
	cols := make([]string, len(rowColumns))
	for i, c := range rowColumns {
		cols[i] = c.column
	}
	for _, c := range localColumns {
		for _, suffix := range localSuffixes {
			cols = append(cols, c.prefix+suffix)
		}
	}
	var zone string
	if err := db.QueryRow("SELECT value FROM mirror_settings WHERE key = 'timezone'").Scan(&zone); err != nil {
		t.Fatalf("the mirror's time zone: %v", err)
	}
	rows, err := db.Query("SELECT id, raw, " + strings.Join(cols, ", ") + " FROM transactions")
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]Row{}
	for rows.Next() {
		var id string
		r := Row{Columns: make(map[string]any, len(cols)), Zone: zone}
		vals := make([]any, len(cols))
		dest := []any{&id, &r.Raw}
		for i := range vals {
			dest = append(dest, &vals[i])
		}
		if err := rows.Scan(dest...); err != nil {
			t.Fatal(err)
		}
		for i, c := range cols {
			if b, ok := vals[i].([]byte); ok {
				vals[i] = string(b)
			}
			r.Columns[c] = vals[i]
		}
		out[id] = r
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	rows.Close()
	tags, err := db.Query("SELECT transaction_id, tag_id FROM transaction_tags ORDER BY transaction_id, tag_id")
	if err != nil {
		t.Fatal(err)
	}
	defer tags.Close()
	for tags.Next() {
		var id, tag string
		if err := tags.Scan(&id, &tag); err != nil {
			t.Fatal(err)
		}
		r, ok := out[id]
		if !ok {
			t.Fatalf("transaction_tags row (%s, %s) without its transaction", id, tag)
		}
		r.Tags = append(r.Tags, tag)
		out[id] = r
	}
	if err := tags.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// RowDiffs compares a mirrored row with a TransactionResource as the bank
// rendered it (the JSON of one resource, not a document): raw byte for
// byte, then every column and the tags, each against the field of the JSON
// it mirrors, decoded here independently of the daemon's parser. It returns
// one line per difference.
//
// One raw difference is not one: the order of relationships.tags.data.
// Tags are a set; the daemon recognises an unchanged transaction by a hash
// of its fields and its tag set (content_hash), so when the bank only
// reorders a transaction's tags the row, raw included, keeps the earlier
// rendering.
func RowDiffs(got Row, want []byte) []string {
	var diffs []string
	if got.Raw != string(want) && !sameButTagOrder([]byte(got.Raw), want) {
		diffs = append(diffs, fmt.Sprintf("raw differs\n   got: %.400s\n  want: %.400s", got.Raw, want))
	}
	dec := json.NewDecoder(bytes.NewReader(want))
	dec.UseNumber()
	var doc map[string]any
	if err := dec.Decode(&doc); err != nil {
		return append(diffs, fmt.Sprintf("bank JSON does not decode: %v", err))
	}
	for _, c := range rowColumns {
		v := jsonPath(doc, c.path)
		var w any
		switch x := v.(type) {
		case nil:
		case string:
			w = x
		case bool:
			w = int64(0)
			if x {
				w = int64(1)
			}
		case json.Number:
			n, err := x.Int64()
			if err != nil {
				return append(diffs, fmt.Sprintf("%s: bank sent %v, not an integer", c.path, x))
			}
			w = n
		default:
			return append(diffs, fmt.Sprintf("%s: bank sent %T", c.path, v))
		}
		if g := got.Columns[c.column]; g != w {
			diffs = append(diffs, fmt.Sprintf("column %s = %s, bank %s = %s", c.column, show(g), c.path, show(w)))
		}
	}
	for _, c := range localColumns {
		want, err := localValues(jsonPath(doc, c.path), got.Zone)
		if err != nil {
			diffs = append(diffs, fmt.Sprintf("%s: %v", c.path, err))
			continue
		}
		for i, suffix := range localSuffixes {
			if g := got.Columns[c.prefix+suffix]; g != want[i] {
				diffs = append(diffs, fmt.Sprintf("column %s = %s, bank %s in %s = %s", c.prefix+suffix, show(g), c.path, got.Zone, show(want[i])))
			}
		}
	}
	var wantTags []string
	if data, ok := jsonPath(doc, "relationships.tags.data").([]any); ok {
		for _, d := range data {
			if m, ok := d.(map[string]any); ok {
				if id, ok := m["id"].(string); ok {
					wantTags = append(wantTags, id)
				}
			}
		}
	}
	slices.Sort(wantTags)
	if !slices.Equal(got.Tags, wantTags) {
		diffs = append(diffs, fmt.Sprintf("tags %q, bank %q", got.Tags, wantTags))
	}
	return diffs
}

// sameButTagOrder reports whether two renderings of a resource are equal
// once the tags of each are sorted (and keys put in one order).
func sameButTagOrder(a, b []byte) bool {
	canonical := func(raw []byte) ([]byte, bool) {
		dec := json.NewDecoder(bytes.NewReader(raw))
		dec.UseNumber()
		var doc map[string]any
		if dec.Decode(&doc) != nil {
			return nil, false
		}
		if data, ok := jsonPath(doc, "relationships.tags.data").([]any); ok {
			slices.SortFunc(data, func(x, y any) int {
				return strings.Compare(fmt.Sprint(x), fmt.Sprint(y))
			})
		}
		out, err := json.Marshal(doc)
		return out, err == nil
	}
	ca, okA := canonical(a)
	cb, okB := canonical(b)
	return okA && okB && bytes.Equal(ca, cb)
}

func jsonPath(doc map[string]any, path string) any {
	var v any = doc
	for _, k := range strings.Split(path, ".") {
		m, ok := v.(map[string]any)
		if !ok {
			return nil
		}
		v = m[k]
	}
	return v
}

func show(v any) string {
	if v == nil {
		return "NULL"
	}
	return fmt.Sprintf("%#v", v)
}

// TruthDiffs compares everything a complete reconciliation mirrors with the
// simulator's truth, field by field: every live transaction (RowDiffs, and
// no row the bank does not have), every account (names, types, balance,
// creation time), the category tree, the tags in use, and every attachment
// (owner, creation time, file type; the download link is temporary). It
// returns one line per difference, each naming what differs.
func TruthDiffs(t TB, sim *simulator.Bank, db *sql.DB, baseURL string) []string {
	t.Helper()
	snap := sim.Snapshot()
	var diffs []string
	mirror := ReadTransactions(t, db)
	inUse := map[string]bool{}
	for _, tx := range snap.Transactions {
		for _, tag := range tx.Tags {
			inUse[tag] = true
		}
		want, err := sim.RenderTransaction(baseURL, tx.ID)
		if err != nil {
			t.Fatal(err)
		}
		got, ok := mirror[tx.ID]
		if !ok {
			diffs = append(diffs, fmt.Sprintf("transaction %s (%s %s): missing from the mirror", tx.ID, tx.Status, tx.Description))
			continue
		}
		delete(mirror, tx.ID)
		for _, d := range RowDiffs(got, want) {
			diffs = append(diffs, fmt.Sprintf("transaction %s: %s", tx.ID, d))
		}
	}
	for _, id := range slices.Sorted(maps.Keys(mirror)) {
		diffs = append(diffs, fmt.Sprintf("transaction %s (%v): in the mirror, not at the bank", id, mirror[id].Columns["status"]))
	}
	diffs = append(diffs, AccountDiffs(t, snap, db)...)

	type category struct{ name, parent string }
	cats := map[string]category{}
	rows, err := db.Query("SELECT id, name, coalesce(parent_id, '') FROM categories")
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var id string
		var c category
		if err := rows.Scan(&id, &c.name, &c.parent); err != nil {
			t.Fatal(err)
		}
		cats[id] = c
	}
	rows.Close()
	for _, c := range snap.Categories {
		if got, ok := cats[c.ID]; !ok || got != (category{c.Name, c.ParentID}) {
			diffs = append(diffs, fmt.Sprintf("category %s: mirror %+v (present %v), bank %q parent %q", c.ID, got, ok, c.Name, c.ParentID))
		}
		delete(cats, c.ID)
	}
	for id := range cats {
		diffs = append(diffs, fmt.Sprintf("category %s: in the mirror, not at the bank", id))
	}

	tags := Strings(t, db, "SELECT id FROM tags ORDER BY id")
	if want := slices.Sorted(maps.Keys(inUse)); !slices.Equal(tags, want) {
		diffs = append(diffs, fmt.Sprintf("tags table %q, tags in use at the bank %q", tags, want))
	}

	type attachment struct{ tx, created, ext, typ string }
	atts := map[string]attachment{}
	rows, err = db.Query("SELECT id, transaction_id, coalesce(created_at, ''), coalesce(file_extension, ''), coalesce(file_content_type, '') FROM attachments")
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var id string
		var a attachment
		if err := rows.Scan(&id, &a.tx, &a.created, &a.ext, &a.typ); err != nil {
			t.Fatal(err)
		}
		atts[id] = a
	}
	rows.Close()
	for _, a := range snap.Attachments {
		got, ok := atts[a.ID]
		delete(atts, a.ID)
		if !ok {
			diffs = append(diffs, fmt.Sprintf("attachment %s: missing from the mirror", a.ID))
			continue
		}
		if got.tx != a.TransactionID || got.ext != a.FileExtension || got.typ != a.FileContentType || !sameInstant(got.created, a.CreatedAt) {
			diffs = append(diffs, fmt.Sprintf("attachment %s: mirror %+v, bank %+v", a.ID, got, a))
		}
	}
	for id := range atts {
		diffs = append(diffs, fmt.Sprintf("attachment %s: in the mirror, not at the bank", id))
	}
	return diffs
}

// AccountDiffs compares the mirror's accounts with the bank's, field by
// field, balances included.
func AccountDiffs(t TB, snap simulator.Snapshot, db *sql.DB) []string {
	t.Helper()
	diffs, err := CompareAccounts(context.Background(), db, snap.Accounts)
	if err != nil {
		t.Fatal(err)
	}
	return diffs
}

// sameInstant reports whether an RFC 3339 text the bank sent is t, to the
// second (the bank sends whole seconds).
func sameInstant(text string, t time.Time) bool {
	got, err := time.Parse(time.RFC3339, text)
	return err == nil && got.Equal(t.Truncate(time.Second))
}
