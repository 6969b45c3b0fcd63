package store_test

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"io"
	"net/http/httptest"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/rs/zerolog"

	"github.com/bankmirror/bankmirror/internal/bank"
	"github.com/bankmirror/bankmirror/internal/mirrortest"
	"github.com/bankmirror/bankmirror/internal/replica"
	"github.com/bankmirror/bankmirror/internal/simulator"
	"github.com/bankmirror/bankmirror/internal/store"
)

// sameJSON reports whether a and b hold the same keys and values, numbers
// compared as written.
func sameJSON(t *testing.T, a, b string) bool {
	t.Helper()
	decode := func(s string) any {
		d := json.NewDecoder(strings.NewReader(s))
		d.UseNumber()
		var v any
		if err := d.Decode(&v); err != nil {
			t.Fatalf("decode %.200s: %v", s, err)
		}
		return v
	}
	return reflect.DeepEqual(decode(a), decode(b))
}

// A full sync stores no transaction's JSON whole, and raw is each one's
// JSON as the bank sent it, byte for byte: tags, notes, attachments,
// transfers, foreign amounts, round-ups and cashback included, and a
// description that needs escapes.
func TestRawIsTheBanksJSONByteForByte(t *testing.T) {
	ctx := context.Background()
	sim := simulator.New(simulator.Options{Seed: 7, Transactions: 2000, Token: "tok", RateLimit: simulator.RateLimit{Limit: 1_000_000}})
	quoted := sim.AddTransaction(simulator.NewTransaction{Description: `Tab "A\B" & café`, AmountBaseUnits: -990,
		CategoryID: "groceries", Tags: []string{"one", "two"}, Note: ptr("line\nbreak")})
	srv := httptest.NewServer(sim.Handler())
	defer srv.Close()
	client := bank.New(srv.URL+"/api/v1", sim.Token(), bank.WithHourlyBudget(0))
	st, err := store.Open(ctx, filepath.Join(t.TempDir(), "bankmirror.db"), store.WithMigrationBackup(false))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if _, err := replica.New(client, st, zerolog.Nop(), replica.Options{}).Full(ctx); err != nil {
		t.Fatal(err)
	}
	db := st.Reader()
	for _, q := range []string{
		"SELECT count(*) FROM transactions WHERE raw_patch LIKE '%tags%'",
		"SELECT count(*) FROM transactions WHERE note IS NOT NULL",
		"SELECT count(*) FROM transactions WHERE attachment_id IS NOT NULL",
		"SELECT count(*) FROM transactions WHERE transfer_account_id IS NOT NULL",
		"SELECT count(*) FROM transactions WHERE foreign_amount_currency IS NOT NULL",
		"SELECT count(*) FROM transactions WHERE round_up_amount_currency IS NOT NULL",
		"SELECT count(*) FROM transactions WHERE cashback_amount_currency IS NOT NULL",
		"SELECT count(*) FROM transactions WHERE hold_amount_currency IS NOT NULL",
	} {
		if mirrortest.Int(t, db, q) == 0 {
			t.Errorf("%s = 0: the sample lacks a kind of transaction", q)
		}
	}
	if n := mirrortest.Int(t, db, "SELECT count(*) FROM transactions WHERE raw_full IS NOT NULL OR raw_base IS NULL"); n != 0 {
		t.Errorf("%d transactions stored whole", n)
	}
	rows, err := db.Query("SELECT id, raw FROM transactions")
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	n := 0
	for rows.Next() {
		var id, raw string
		if err := rows.Scan(&id, &raw); err != nil {
			t.Fatal(err)
		}
		want, err := sim.RenderTransaction(srv.URL+"/api/v1", id)
		if err != nil {
			t.Fatal(err)
		}
		if raw != string(want) {
			t.Errorf("raw of %s:\n got %.2000s\nwant %.2000s", id, raw, want)
		}
		n++
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	if n != 2001 {
		t.Errorf("%d transactions, want 2001", n)
	}
	if got := mirrortest.Strings(t, db, "SELECT raw->>'$.attributes.description' FROM transactions WHERE id = ?", quoted); len(got) != 1 || got[0] != `Tab "A\B" & café` {
		t.Errorf("the escaped description reads back as %q", got)
	}
}

func ptr[T any](v T) *T { return &v }

// The JSON of a transaction as the bank may also send it (fields the
// columns do not hold, nulls inside them, other escapes, another layout,
// links elsewhere) reads back from raw with the same keys and values, as
// written, through an insert, an update and the history; what a merge
// patch cannot express is kept whole.
func TestRawKeepsEveryFieldTheBankSent(t *testing.T) {
	ctx := context.Background()
	sim := simulator.New(simulator.Options{Seed: 3, Transactions: 10, Token: "tok", RateLimit: simulator.RateLimit{Limit: 1_000_000}})
	base := "https://api.example.test/api/v1"
	ids := make([]string, 0, 10)
	for _, tx := range sim.Snapshot().Transactions {
		ids = append(ids, tx.ID)
	}
	render := func(id string) string {
		b, err := sim.RenderTransaction(base, id)
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	indent := func(s string) string {
		var b bytes.Buffer
		if err := json.Indent(&b, []byte(s), "", "  "); err != nil {
			t.Fatal(err)
		}
		return b.String()
	}
	cases := []struct {
		name  string
		raw   string
		whole bool // kept in raw_full
	}{
		{"as rendered", render(ids[0]), false},
		{"an unknown attribute", strings.Replace(render(ids[1]), `"attributes":{`, `"attributes":{"newField":{"a":[1,null,{"b":null}],"n":1.50},`, 1), false},
		{"an unknown member at the top", strings.Replace(render(ids[2]), `{"type":"transactions",`, `{"meta":"x","type":"transactions",`, 1), false},
		{"a null inside a new object", strings.Replace(render(ids[3]), `"attributes":{`, `"attributes":{"newObject":{"a":null},`, 1), true},
		{"a null for a known object", strings.Replace(render(ids[4]), `"links":{"self":"`+base+`/transactions/`+ids[4]+`"}}`, `"links":null}`, 1), true},
		{"escapes the rebuild would not write", strings.ReplaceAll(render(ids[5]), `/`, `\/`), false},
		{"indented", indent(render(ids[6])), false},
		{"no links", strings.Replace(render(ids[7]), `,"links":{"self":"`+base+`/transactions/`+ids[7]+`"}}`, `}`, 1), false},
		{"a link elsewhere", strings.Replace(render(ids[8]), base+"/accounts/", "https://other.example.test/accounts/", 1), false},
	}
	s, err := store.Open(ctx, filepath.Join(t.TempDir(), "bankmirror.db"), store.WithMigrationBackup(false))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	db := s.Reader()
	check := func(id, want string, whole bool) {
		t.Helper()
		got := mirrortest.Strings(t, db, "SELECT raw FROM transactions WHERE id = ?", id)
		if len(got) != 1 || !sameJSON(t, got[0], want) {
			t.Errorf("raw of %s:\n got %.3000q\nwant %.3000q", id, got, want)
		}
		if n := mirrortest.Int(t, db, "SELECT count(*) FROM transactions WHERE id = ? AND raw_full IS NOT NULL", id); (n == 1) != whole {
			t.Errorf("raw of %s stored whole: %v, want %v", id, n == 1, whole)
		}
	}
	txs := make([]bank.Transaction, len(cases))
	for i, c := range cases {
		tx, err := bank.ParseTransaction([]byte(c.raw))
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		txs[i] = tx
	}
	if _, err := s.UpsertTransactions(ctx, txs); err != nil {
		t.Fatal(err)
	}
	for i, c := range cases {
		t.Run(c.name, func(t *testing.T) { check(txs[i].ID, c.raw, c.whole) })
	}
	// A new version of each (another note), and the previous one in the
	// history.
	var changed []bank.Transaction
	for _, c := range cases {
		raw := strings.Replace(c.raw, `"note":null`, `"note":{"text":"later"}`, 1)
		if raw == c.raw {
			raw = strings.Replace(c.raw, `"note": null`, `"note": {"text": "later"}`, 1)
		}
		tx, err := bank.ParseTransaction([]byte(raw))
		if err != nil {
			t.Fatal(err)
		}
		if tx.Note == nil {
			t.Fatalf("%s: no null note to change", c.name)
		}
		changed = append(changed, tx)
	}
	if _, err := s.UpsertTransactions(ctx, changed); err != nil {
		t.Fatal(err)
	}
	for i, c := range cases {
		t.Run(c.name+" updated", func(t *testing.T) {
			check(changed[i].ID, string(changed[i].Raw), c.whole)
			prev := mirrortest.Strings(t, db, "SELECT raw FROM transaction_history WHERE transaction_id = ? AND change = 'updated'", changed[i].ID)
			if len(prev) != 1 || !sameJSON(t, prev[0], c.raw) {
				t.Errorf("the history's previous version: %.3000q", prev)
			}
		})
	}
}

// rawByID is every transaction's raw JSON, by id.
func rawByID(t *testing.T, db interface {
	Query(string, ...any) (*sql.Rows, error)
}) map[string]string {
	t.Helper()
	rows, err := db.Query("SELECT id, raw FROM transactions")
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	out := map[string]string{}
	for rows.Next() {
		var id, raw string
		if err := rows.Scan(&id, &raw); err != nil {
			t.Fatal(err)
		}
		out[id] = raw
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// The upgrade to version 20 keeps every field of every transaction's JSON
// (byte for byte where the bank's rendering is the rebuild's), on a mirror
// whose JSON also holds fields the columns do not and nulls inside them;
// it reports its progress, leaves no free page behind, keeps the file's
// mode 0600, and one interrupted half way (its transaction never commits,
// as under kill -9) leaves a mirror that opens and finishes it.
func TestUpgradeCompactsRawKeepingEveryField(t *testing.T) {
	ctx := context.Background()
	path := store.LoadFixture(t, 19)
	db, err := sql.Open("sqlite3", "file:"+path)
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{
		`UPDATE transactions SET raw = json_set(raw, '$.attributes.newField', json('{"a":[1,null],"n":1.50}')) WHERE rowid % 4 = 1`,
		`UPDATE transactions SET raw = json_set(raw, '$.attributes.newObject', json('{"a":null}')) WHERE rowid % 4 = 2`,
		`UPDATE transactions SET raw = json_pretty(raw) WHERE rowid % 4 = 3`,
	} {
		if _, err := db.Exec(q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	before := rawByID(t, db)
	nullInside := mirrortest.Int(t, db, "SELECT count(*) FROM transactions WHERE rowid % 4 = 2")
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	if len(before) < 20 || nullInside == 0 {
		t.Fatalf("fixture too thin: %d transactions", len(before))
	}

	// Interrupted: the context ends as the compaction starts.
	stopCtx, stop := context.WithCancel(ctx)
	hook := zerolog.HookFunc(func(_ *zerolog.Event, _ zerolog.Level, msg string) {
		if strings.HasPrefix(msg, "compacting the raw JSON") {
			stop()
		}
	})
	if st, err := store.Open(stopCtx, path, store.WithLogger(zerolog.New(io.Discard).Hook(hook))); err == nil {
		_ = st.Close()
		t.Fatal("the interrupted upgrade succeeded")
	}
	stop()
	if v := userVersion(t, openRaw(t, path)); v != 19 {
		t.Fatalf("after the interrupted upgrade the mirror is version %d, want 19", v)
	}

	var log syncedLog
	st, err := store.Open(ctx, path, store.WithLogger(zerolog.New(&log)))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	r := st.Reader()
	if v := userVersion(t, r); v != store.SchemaVersion() {
		t.Fatalf("version %d, want %d", v, store.SchemaVersion())
	}
	after := rawByID(t, r)
	if len(after) != len(before) {
		t.Fatalf("%d transactions after, %d before", len(after), len(before))
	}
	same := 0
	for id, want := range before {
		got := after[id]
		if !sameJSON(t, got, want) {
			t.Errorf("raw of %s:\n got %.2000s\nwant %.2000s", id, got, want)
		}
		if got == want {
			same++
		}
	}
	if same < len(before)/4 {
		t.Errorf("only %d of %d rows byte for byte", same, len(before))
	}
	if n := mirrortest.Int(t, r, "SELECT count(*) FROM transactions WHERE raw_full IS NOT NULL"); n != nullInside {
		t.Errorf("%d rows stored whole, want %d (those with a null inside a new object)", n, nullInside)
	}
	if n := mirrortest.Int(t, r, "PRAGMA freelist_count"); n != 0 {
		t.Errorf("%d free pages after the upgrade", n)
	}
	for _, want := range []string{"compacting the raw JSON", "compacting raw JSON", "rebuilding the mirror", "rebuilt the mirror"} {
		if len(log.lines(`"message":"`+want)) == 0 {
			t.Errorf("no %q in the log:\n%q", want, log.lines(""))
		}
	}
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != 0o600 {
		t.Errorf("the mirror is mode %v, want 0600", fi.Mode().Perm())
	}
}
