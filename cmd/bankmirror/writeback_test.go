package main

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/bankmirror/bankmirror/internal/mirrortest"
	"github.com/bankmirror/bankmirror/internal/simulator"
)

// syncedCLI is a simulated bank and a fully synced mirror, with the
// environment of commands against them.
func syncedCLI(t *testing.T, n int) (*bankEnv, map[string]string, string) {
	t.Helper()
	b := newBank(t, n)
	db := filepath.Join(t.TempDir(), "mirror.db")
	env := cliEnv(b, db)
	wantCode(t, runCLI(t, env, "sync", "--full"), 0)
	return b, env, db
}

func findSimTx(t *testing.T, sim *simulator.Bank, ok func(simulator.Transaction) bool) simulator.Transaction {
	t.Helper()
	for _, tx := range sim.Snapshot().Transactions {
		if ok(tx) {
			return tx
		}
	}
	t.Fatal("no such transaction")
	return simulator.Transaction{}
}

func simTx(t *testing.T, sim *simulator.Bank, id string) simulator.Transaction {
	t.Helper()
	return findSimTx(t, sim, func(tx simulator.Transaction) bool { return tx.ID == id })
}

func childOtherThan(sim *simulator.Bank, c string) string {
	for _, cat := range sim.Snapshot().Categories {
		if cat.ParentID != "" && cat.ID != c {
			return cat.ID
		}
	}
	return ""
}

func writeFile(t *testing.T, text string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "changes.csv")
	if err := os.WriteFile(p, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestCLICategorizeAndTag(t *testing.T) {
	b, env, db := syncedCLI(t, 300)
	tx := findSimTx(t, b.sim, func(tx simulator.Transaction) bool {
		return tx.IsCategorizable && tx.CategoryID != "" && len(tx.Tags) == 0 && tx.Status == "SETTLED"
	})
	want := childOtherThan(b.sim, tx.CategoryID)

	r := runCLI(t, env, "categorize", tx.ID, want)
	wantCode(t, r, 0)
	if !strings.Contains(r.stdout, "category "+tx.CategoryID+" -> "+want+": applied; mirror updated") {
		t.Errorf("output:\n%s", r)
	}
	noLeak(t, r, b.sim.Token())
	st := openMirror(t, db)
	if got := simTx(t, b.sim, tx.ID).CategoryID; got != want {
		t.Errorf("bank category = %q", got)
	}
	if got := mirrortest.Strings(t, st.Reader(), "SELECT category_id FROM transactions WHERE id = ?", tx.ID); !slices.Equal(got, []string{want}) {
		t.Errorf("mirror category = %q", got)
	}
	if got := mirrortest.Strings(t, st.Reader(), "SELECT change FROM transaction_history WHERE transaction_id = ? ORDER BY seq", tx.ID); !slices.Equal(got, []string{"created", "updated"}) {
		t.Errorf("history = %q", got)
	}

	r = runCLI(t, env, "categorize", tx.ID, want)
	wantCode(t, r, 0)
	if !strings.Contains(r.stdout, "category is already "+want+"; nothing sent") {
		t.Errorf("rerun output:\n%s", r)
	}

	r = runCLI(t, env, "categorize", tx.ID, "none")
	wantCode(t, r, 0)
	if got := simTx(t, b.sim, tx.ID).CategoryID; got != "" {
		t.Errorf("bank category after none = %q", got)
	}

	r = runCLI(t, env, "tag", "add", tx.ID, "Holiday", "Trip, Japan")
	wantCode(t, r, 0)
	r = runCLI(t, env, "tag", "remove", tx.ID, "Holiday")
	wantCode(t, r, 0)
	if got := simTx(t, b.sim, tx.ID).Tags; !slices.Equal(got, []string{"Trip, Japan"}) {
		t.Errorf("bank tags = %q", got)
	}
	if got := mirrortest.Strings(t, st.Reader(), "SELECT tag_id FROM transaction_tags WHERE transaction_id = ?", tx.ID); !slices.Equal(got, []string{"Trip, Japan"}) {
		t.Errorf("mirror tags = %q", got)
	}
	mirrortest.AssertEqualsTruth(t, b.sim, st.Reader(), b.apiURL)
}

func TestCLIWriteBackRefusals(t *testing.T) {
	b, env, _ := syncedCLI(t, 300)
	tx := findSimTx(t, b.sim, func(tx simulator.Transaction) bool { return tx.IsCategorizable && tx.CategoryID != "" })
	transfer := findSimTx(t, b.sim, func(tx simulator.Transaction) bool { return !tx.IsCategorizable })
	six := findSimTx(t, b.sim, func(tx simulator.Transaction) bool { return len(tx.Tags) == 6 })
	jointID := ""
	for _, a := range b.sim.Snapshot().Accounts {
		if a.OwnershipType == "JOINT" {
			jointID = a.ID
		}
	}
	joint := findSimTx(t, b.sim, func(tx simulator.Transaction) bool { return tx.AccountID == jointID })
	for _, c := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"categorize", tx.ID, "good-life"}, 1, "is a parent category"},
		{[]string{"categorize", tx.ID, "nope"}, 1, `unknown category "nope"`},
		{[]string{"categorize", "no-such-tx", "groceries"}, 1, "not in the mirror"},
		{[]string{"categorize", transfer.ID, "groceries"}, 1, "is not categorizable"},
		{[]string{"tag", "add", six.ID, "seventh"}, 1, "7th tag"},
		{[]string{"tag", "add", joint.ID, "holiday"}, 1, "the bank does not allow tags on 2Up transactions"},
		{[]string{"tag", "add", tx.ID, strings.Repeat("x", 65)}, 1, "at most 64"},
		{[]string{"categorize", tx.ID}, 2, "give TX_ID and CATEGORY"},
		{[]string{"tag", "tidy", tx.ID, "x"}, 2, `unknown tag command "tidy"`},
		{[]string{"tag", "add", tx.ID}, 2, "at least one LABEL"},
		{[]string{"tag"}, 2, "tag needs a command: add, remove"},
		{[]string{"categorize", "--from", "x.csv", tx.ID, "groceries"}, 2, "not both"},
	} {
		t.Run(strings.Join(c.args, " "), func(t *testing.T) {
			before := b.sim.Requests()
			r := runCLI(t, env, c.args...)
			wantCode(t, r, c.code)
			if !strings.Contains(r.stderr, c.want) {
				t.Errorf("stderr lacks %q:\n%s", c.want, r)
			}
			if n := b.sim.Requests() - before; n != 0 {
				t.Errorf("%d requests sent", n)
			}
		})
	}
}

func TestCLIBankRefusalPrintsItsDetail(t *testing.T) {
	b, env, db := syncedCLI(t, 300)
	tx := findSimTx(t, b.sim, func(tx simulator.Transaction) bool { return len(tx.Tags) == 0 && tx.Status == "SETTLED" })
	if err := b.sim.SetTags(tx.ID, []string{"1", "2", "3", "4", "5", "6"}); err != nil {
		t.Fatal(err)
	}
	st := openMirror(t, db)
	hist := mirrortest.Int(t, st.Reader(), "SELECT count(*) FROM transaction_history")
	r := runCLI(t, env, "tag", "add", tx.ID, "seven")
	wantCode(t, r, 1)
	if !strings.Contains(r.stderr, "refused by the bank: 422 Too Many Tags: A transaction can carry at most 6 tags.; nothing changed") {
		t.Errorf("output:\n%s", r)
	}
	if n := mirrortest.Int(t, st.Reader(), "SELECT count(*) FROM transaction_history"); n != hist {
		t.Errorf("history grew from %d to %d", hist, n)
	}
	if n := mirrortest.Int(t, st.Reader(), "SELECT count(*) FROM transaction_tags WHERE transaction_id = ?", tx.ID); n != 0 {
		t.Errorf("mirror has %d tags", n)
	}
}

func TestCLIBatchBadLineDoesNothing(t *testing.T) {
	b, env, _ := syncedCLI(t, 300)
	tx := findSimTx(t, b.sim, func(tx simulator.Transaction) bool { return tx.IsCategorizable && tx.CategoryID != "" })
	file := writeFile(t, fmt.Sprintf("id,category\n%s,%s\nno-such-tx,groceries\n%s,good-life,extra\n", tx.ID, childOtherThan(b.sim, tx.CategoryID), tx.ID))
	before := b.sim.Requests()
	r := runCLI(t, env, "categorize", "--from", file)
	wantCode(t, r, 1)
	for _, want := range []string{"line 3: transaction no-such-tx is not in the mirror", "line 4: 3 fields", "2 of 3 lines invalid; nothing was sent"} {
		if !strings.Contains(r.stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, r)
		}
	}
	if b.sim.Requests() != before || simTx(t, b.sim, tx.ID).CategoryID != tx.CategoryID {
		t.Error("a batch with bad lines changed the bank")
	}

	r = runCLI(t, env, "categorize", "--from", file, "--skip-invalid")
	wantCode(t, r, 1) // some lines were skipped
	if !strings.Contains(r.stdout, "3 lines: 1 applied, 0 already so, 0 refused by the bank, 0 failed, 0 not attempted, 2 invalid") {
		t.Errorf("output:\n%s", r)
	}
	if simTx(t, b.sim, tx.ID).CategoryID == tx.CategoryID {
		t.Error("--skip-invalid did not apply the valid line")
	}
}

func TestCLIBatch150(t *testing.T) {
	b, env, db := syncedCLI(t, 600)
	var lines []string
	want := map[string]string{}
	for _, tx := range b.sim.Snapshot().Transactions {
		if tx.IsCategorizable && len(lines) < 150 {
			c := childOtherThan(b.sim, tx.CategoryID)
			lines = append(lines, tx.ID+","+c)
			want[tx.ID] = c
		}
	}
	file := writeFile(t, strings.Join(lines, "\n")+"\n")
	r := runCLI(t, env, "categorize", "--from", file)
	wantCode(t, r, 0)
	if !strings.Contains(r.stdout, "[150/150] line 150: ") || !strings.Contains(r.stdout, "150 lines: 150 applied, 0 already so") {
		t.Errorf("output:\n%.2000s", r)
	}
	for _, tx := range b.sim.Snapshot().Transactions {
		if c, ok := want[tx.ID]; ok && tx.CategoryID != c {
			t.Errorf("bank: %s is %q, want %q", tx.ID, tx.CategoryID, c)
		}
	}
	st := openMirror(t, db)
	mirrortest.AssertEqualsTruth(t, b.sim, st.Reader(), b.apiURL)
	if n := mirrortest.Int(t, st.Reader(), "SELECT count(*) FROM transaction_history WHERE change = 'updated'"); n != 150 {
		t.Errorf("%d updated history rows", n)
	}

	// A rerun sends nothing.
	before := b.sim.Requests()
	r = runCLI(t, env, "categorize", "--from", file)
	wantCode(t, r, 0)
	if b.sim.Requests() != before || !strings.Contains(r.stdout, "150 lines: 0 applied, 150 already so") {
		t.Errorf("rerun made %d requests:\n%.2000s", b.sim.Requests()-before, r)
	}
}

func TestCLITagBatch(t *testing.T) {
	b, env, _ := syncedCLI(t, 300)
	var ids []string
	for _, tx := range b.sim.Snapshot().Transactions {
		if len(tx.Tags) == 0 && len(ids) < 2 {
			ids = append(ids, tx.ID)
		}
	}
	file := writeFile(t, fmt.Sprintf("id,tag\n%[1]s,Holiday\n%[2]s,Holiday\n%[1]s,\"Trip, Japan\"\n", ids[0], ids[1]))
	r := runCLI(t, env, "tag", "add", "--from", file)
	wantCode(t, r, 0)
	if !strings.Contains(r.stdout, "lines 2, 4: "+ids[0]) || !strings.Contains(r.stdout, "3 lines: 2 applied") {
		t.Errorf("output:\n%s", r)
	}
	if got := simTx(t, b.sim, ids[0]).Tags; !slices.Equal(got, []string{"Holiday", "Trip, Japan"}) {
		t.Errorf("bank tags = %q", got)
	}
	r = runCLI(t, env, "tag", "remove", "--from", file)
	wantCode(t, r, 0)
	if got := simTx(t, b.sim, ids[0]).Tags; len(got) != 0 {
		t.Errorf("bank tags after remove = %q", got)
	}
}

func TestCLIWriteBackNeedsAMirror(t *testing.T) {
	b := newBank(t, 10)
	db := filepath.Join(t.TempDir(), "none.db")
	r := runCLI(t, cliEnv(b, db), "categorize", "tx", "groceries")
	wantCode(t, r, 1)
	if !strings.Contains(r.stderr, "no mirror at "+db) {
		t.Errorf("output:\n%s", r)
	}
	if _, err := os.Stat(db); err == nil {
		t.Error("an empty mirror was created")
	}
	if b.sim.Requests() != 0 {
		t.Errorf("%d requests", b.sim.Requests())
	}
}

// categorize takes a category's name, ignoring case, as the user sees it
// in their banking app; categories lists what it accepts.
func TestCLICategorizeByNameAndCategories(t *testing.T) {
	b, env, _ := syncedCLI(t, 300)
	tx := findSimTx(t, b.sim, func(tx simulator.Transaction) bool {
		return tx.IsCategorizable && tx.CategoryID != "takeaway" && tx.Status == "SETTLED"
	})
	r := runCLI(t, env, "categorize", tx.ID, "Takeaway")
	wantCode(t, r, 0)
	if !strings.Contains(r.stdout, " -> takeaway: applied; mirror updated") {
		t.Errorf("output:\n%s", r)
	}
	if got := simTx(t, b.sim, tx.ID).CategoryID; got != "takeaway" {
		t.Errorf("bank category = %q", got)
	}

	before := b.sim.Requests()
	r = runCLI(t, env, "categorize", tx.ID, "Café")
	wantCode(t, r, 1)
	if !strings.Contains(r.stderr, `unknown category "Café": no category has that id or name (`+"`bankmirror categories`"+` lists them)`) ||
		strings.Contains(r.stderr, "SELECT") {
		t.Errorf("unknown name:\n%s", r)
	}
	if n := b.sim.Requests() - before; n != 0 {
		t.Errorf("an unknown name sent %d requests", n)
	}

	r = runCLI(t, env, "categories")
	wantCode(t, r, 0)
	lines := strings.Split(strings.TrimSpace(r.stdout), "\n")
	if got := strings.Fields(lines[0]); !slices.Equal(got, []string{"ID", "NAME", "PARENT"}) {
		t.Errorf("header = %q", lines[0])
	}
	takeaway := regexp.MustCompile(`(?m)^takeaway +Takeaway +good-life$`)
	parent := regexp.MustCompile(`(?m)^good-life +Good Life +-$`)
	if !takeaway.MatchString(r.stdout) || !parent.MatchString(r.stdout) {
		t.Errorf("categories:\n%s", r)
	}
	if want := len(b.sim.Snapshot().Categories) + 1; len(lines) != want {
		t.Errorf("%d lines, want %d (a header and one per category)", len(lines), want)
	}

	// Without a mirror: one line saying so.
	env["BANKMIRROR_DB"] = filepath.Join(t.TempDir(), "none.db")
	r = runCLI(t, env, "categories")
	wantCode(t, r, 1)
	if !strings.Contains(r.stderr, "no mirror at") {
		t.Errorf("categories without a mirror:\n%s", r)
	}
}
