package store

import (
	"context"
	"database/sql"
	"errors"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/bankmirror/bankmirror/internal/bank"
)

// household makes a household of two: alex (a spending account and a
// saver) and sam (a spending account), who share a 2Up joint account.
func household(t *testing.T) *Store {
	t.Helper()
	s, _ := mustOpen(t)
	ctx := context.Background()
	joint := account("joint", "2Up Spending", "TRANSACTIONAL", 50000)
	joint.OwnershipType = "JOINT"
	if _, err := s.UpsertAccounts(ctx, []bank.Account{
		account("alex-spend", "Alex Spending", "TRANSACTIONAL", 1000), account("alex-saver", "Alex Saver", "SAVER", 9000),
		account("sam-spend", "Sam Spending", "TRANSACTIONAL", 2000), joint,
	}); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{"alex", "sam"} {
		if err := s.UpsertPerson(ctx, PersonUpdate{Name: p, TokenState: TokenOK}); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.RecordPersonAccounts(ctx, "alex", []string{"alex-spend", "alex-saver", "joint"}); err != nil {
		t.Fatal(err)
	}
	if err := s.RecordPersonAccounts(ctx, "sam", []string{"sam-spend", "joint"}); err != nil {
		t.Fatal(err)
	}
	return s
}

const (
	mar1  = "2026-03-01T10:00:00+11:00"
	mar1b = "2026-03-01T10:00:30+11:00" // 30 s later
	mar1c = "2026-03-01T10:04:00+11:00" // 4 min later
	mar1d = "2026-03-01T10:20:00+11:00" // 20 min later: outside the window
	mar2  = "2026-03-02T12:00:00+11:00"
)

// householdRows are the household's transactions: each person's own
// purchases, joint purchases by each and by someone unknown, and alex
// paying sam $50 (Up to Up), with a refund of $50 on alex's saver close
// by, which is not a household transfer (the same person's accounts).
func householdRows() []spec {
	return []spec{
		{id: "a1", account: "alex-spend", desc: "Cafe", cents: -500, created: mar2, performer: "Alex", category: "restaurants-and-cafes", parent: "good-life"},
		{id: "a2", account: "alex-spend", desc: "Bakery", cents: -700, created: mar2, performer: "Alex"},
		{id: "s1", account: "sam-spend", desc: "Books", cents: -2000, created: mar2, performer: "Sam"},
		{id: "j1", account: "joint", desc: "Woolworths", cents: -8000, created: mar2, performer: "Alex", category: "groceries", parent: "home"},
		{id: "j2", account: "joint", desc: "Coles", cents: -6000, created: mar2, performer: "Sam", category: "groceries", parent: "home"},
		{id: "j3", account: "joint", desc: "Pharmacy", cents: -1500, created: mar2, performer: "Robin"},
		{id: "pay-out", account: "alex-spend", desc: "Sam Smith", cents: -5000, created: mar1, performer: "Alex", typ: "Transfer"},
		{id: "pay-in", account: "sam-spend", desc: "Alex Jones", cents: 5000, created: mar1b, performer: "Sam", typ: "Osko Payment Received"},
		{id: "refund", account: "alex-saver", desc: "Refund", cents: 5000, created: mar1b, performer: "Alex"},
	}
}

// pairs lists id=household_transfer_id for every paired transaction.
func pairs(t *testing.T, s *Store) []string {
	t.Helper()
	var out []string
	for _, r := range rows(t, s.Reader(), "SELECT id, household_transfer_id FROM transactions WHERE household_transfer_id IS NOT NULL ORDER BY id") {
		out = append(out, r[0]+"="+r[1])
	}
	return out
}

func TestHouseholdViewsSayWhoSpentIt(t *testing.T) {
	s := household(t)
	ctx := context.Background()
	upsert(t, s, householdRows()...)
	db := s.Reader()

	// Before the display names are known, a joint transaction has no person.
	wantRows(t, db, [][]string{{"a1", "alex", "alex"}, {"j1", "NULL", "alex,sam"}, {"s1", "sam", "sam"}},
		"SELECT id, person, people FROM v_transactions WHERE id IN ('a1', 'j1', 's1') ORDER BY id")
	learned, err := s.LearnDisplayNames(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(learned, []string{"alex", "sam"}) {
		t.Errorf("LearnDisplayNames changed %v, want alex and sam", learned)
	}
	if again, err := s.LearnDisplayNames(ctx); err != nil || len(again) != 0 {
		t.Errorf("learning again changed %v (%v)", again, err)
	}
	people, err := s.People(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(people) != 2 || people[0].DisplayName != "Alex" || people[1].DisplayName != "Sam" || people[0].TokenState != TokenOK {
		t.Errorf("people %+v", people)
	}

	wantRows(t, db, [][]string{
		{"a1", "alex", "alex", "0", "NULL"},
		{"a2", "alex", "alex", "0", "NULL"},
		{"j1", "alex", "alex,sam", "0", "NULL"},
		{"j2", "sam", "alex,sam", "0", "NULL"},
		{"j3", "NULL", "alex,sam", "0", "NULL"}, // Robin is nobody of the household: performing_customer stays
		{"pay-in", "sam", "sam", "1", "pay-out"},
		{"pay-out", "alex", "alex", "1", "pay-in"},
		{"refund", "alex", "alex", "0", "NULL"}, // alex's own saver: not between two people
		{"s1", "sam", "sam", "0", "NULL"},
	}, "SELECT id, coalesce(person, 'NULL'), people, household_transfer, household_transfer_id FROM v_transactions ORDER BY id")
	wantRows(t, db, [][]string{{"Robin"}}, "SELECT performing_customer FROM v_transactions WHERE id = 'j3'")

	// The household's spending counts each joint purchase once and not
	// the $50 alex paid sam; its income leaves out what sam received.
	wantRows(t, db, [][]string{{"187", "6"}},
		"SELECT sum(total_spent), sum(count) FROM v_monthly_spending WHERE month IN ('2026-03')")
	wantRows(t, db, [][]string{{"NULL"}}, "SELECT sum(total_income) FROM v_monthly_income WHERE account_id = 'sam-spend'")
	// Per person, the payment is alex's spending and sam's income.
	wantRows(t, db, [][]string{{"NULL", "15"}, {"alex", "142"}, {"sam", "80"}},
		"SELECT coalesce(person, 'NULL'), sum(total_spent) FROM v_monthly_spending_by_person GROUP BY person ORDER BY person")
	wantRows(t, db, [][]string{{"alex", "50", "1"}},
		"SELECT person, household_transfers, household_transfer_count FROM v_monthly_spending_by_person WHERE household_transfer_count > 0")
	wantRows(t, db, [][]string{{"alex", "alex-saver", "50", "0"}, {"sam", "sam-spend", "50", "1"}},
		"SELECT person, account_id, total_income, household_transfer_count FROM v_monthly_income_by_person ORDER BY person")
	// Summed over people, spending is the household's plus what moved between them.
	wantRows(t, db, [][]string{{"1"}}, `SELECT (SELECT sum(total_spent) FROM v_monthly_spending_by_person)
		= (SELECT sum(total_spent) FROM v_monthly_spending) + 50`)
	// v_ledger has person and household_transfer after the columns of
	// earlier versions (and before excluded_from_spending, of version 18).
	cols := columns(t, db, "v_ledger")
	if !slices.Equal(cols[len(cols)-4:len(cols)-1], []string{"offsets_spending", "person", "household_transfer"}) {
		t.Errorf("v_ledger ends with %q", cols[len(cols)-4:])
	}
	wantRows(t, db, [][]string{{"alex", "1"}}, "SELECT person, household_transfer FROM v_ledger WHERE id = 'pay-out'")
}

// The new columns come last in v_transactions: the columns of version 11
// keep their positions.
func TestTransactionsViewKeepsItsColumnOrder(t *testing.T) {
	s, _ := mustOpen(t)
	cols := columns(t, s.Reader(), "v_transactions")
	i := slices.Index(cols, "offsets_spending")
	if i < 0 || !slices.Equal(cols[i:i+5], []string{"offsets_spending", "person", "people", "household_transfer", "household_transfer_id"}) {
		t.Errorf("v_transactions columns from offsets_spending: %q", cols[max(i, 0):])
	}
	if cols[0] != "id" || i < 1 || cols[i-1] != "is_interest" {
		t.Errorf("v_transactions columns %q", cols)
	}
	// The rules' columns come after the household's.
	if !slices.Equal(cols[i+5:], []string{"category_rule", "excluded_from_spending", "excluded_by_rule", "rule_note", "rule_tags_local"}) {
		t.Errorf("v_transactions ends with %q", cols[i+5:])
	}
}

// The pairs follow every write: a deleted side unpairs the other, a side
// listed again pairs again, a changed amount or a transferAccount set
// breaks the pair, and a side that is too late never pairs.
func TestHouseholdTransfersFollowEveryWrite(t *testing.T) {
	s := household(t)
	ctx := context.Background()
	rowsBy := householdRows()
	upsert(t, s, rowsBy...)
	want := []string{"pay-in=pay-out", "pay-out=pay-in"}
	if got := pairs(t, s); !slices.Equal(got, want) {
		t.Fatalf("pairs %v, want %v", got, want)
	}
	if _, err := s.DeleteTransaction(ctx, "pay-in"); err != nil {
		t.Fatal(err)
	}
	if got := pairs(t, s); got != nil {
		t.Errorf("after deleting a side: %v", got)
	}
	// The surviving side is spending again, at household level.
	wantRows(t, s.Reader(), [][]string{{"57", "2"}}, `SELECT total_spent, count FROM v_monthly_spending
		WHERE month = '2026-03' AND category_id IS NULL AND account_id = 'alex-spend'`)
	// Tombstoned, it stays deleted: write the same payment again under a new id.
	in2 := spec{id: "pay-in-2", account: "sam-spend", desc: "Alex Jones", cents: 5000, created: mar1c, performer: "Sam"}
	upsert(t, s, in2)
	if got := pairs(t, s); !slices.Equal(got, []string{"pay-in-2=pay-out", "pay-out=pay-in-2"}) {
		t.Errorf("after the other side came: %v", got)
	}
	// An amount changed breaks the pair.
	in2.cents = 4999
	upsert(t, s, in2)
	if got := pairs(t, s); got != nil {
		t.Errorf("after the amount changed: %v", got)
	}
	in2.cents = 5000
	upsert(t, s, in2)
	if got := pairs(t, s); len(got) != 2 {
		t.Errorf("after the amount came back: %v", got)
	}
	// A side made a transfer between own accounts is not paired.
	out := rowsBy[6]
	out.transfer = "sam-spend"
	upsert(t, s, out)
	if got := pairs(t, s); got != nil {
		t.Errorf("after transferAccount was set: %v", got)
	}
	out.transfer = ""
	upsert(t, s, out)
	// Too late: 20 minutes after.
	upsert(t, s, spec{id: "late", account: "sam-spend", desc: "Alex Jones", cents: -5000, created: mar1d})
	upsert(t, s, spec{id: "late-in", account: "alex-spend", desc: "Sam Smith", cents: 5000, created: "2026-03-01T10:50:00+11:00"})
	if got := pairs(t, s); !slices.Equal(got, []string{"pay-in-2=pay-out", "pay-out=pay-in-2"}) {
		t.Errorf("with transactions outside the window: %v", got)
	}
}

// When several equal amounts move within the window, each transaction
// pairs with its nearest candidate only if that one's nearest is it, so
// nothing is paired twice, and the result is the same whatever order the
// rows arrive in.
func TestHouseholdTransferAmbiguityIsDeterministic(t *testing.T) {
	base := []spec{
		{id: "o1", account: "alex-spend", desc: "To Sam", cents: -2500, created: "2026-03-01T10:00:00+11:00"},
		{id: "i1", account: "sam-spend", desc: "From Alex", cents: 2500, created: "2026-03-01T10:00:05+11:00"},
		{id: "o2", account: "joint", desc: "To Alex", cents: -2500, created: "2026-03-01T10:00:08+11:00"},
		{id: "i2", account: "joint", desc: "From Sam", cents: 2500, created: "2026-03-01T10:03:00+11:00"},
		{id: "o3", account: "sam-spend", desc: "To Alex", cents: -2500, created: "2026-03-01T10:03:00+11:00"},
		{id: "i3", account: "alex-spend", desc: "From Sam", cents: 2500, created: "2026-03-01T10:03:00+11:00"},
	}
	var first []string
	for _, order := range [][]int{{0, 1, 2, 3, 4, 5}, {5, 4, 3, 2, 1, 0}, {2, 0, 4, 1, 5, 3}} {
		s := household(t)
		for _, i := range order {
			upsert(t, s, base[i])
		}
		got := pairs(t, s)
		if first == nil {
			first = got
		} else if !slices.Equal(got, first) {
			t.Errorf("order %v pairs %v, order 0 %v", order, got, first)
		}
		seen := map[string]bool{}
		for _, p := range got {
			if seen[p[:2]] {
				t.Errorf("%s paired twice: %v", p[:2], got)
			}
			seen[p[:2]] = true
		}
		// A full repair finds the same pairs.
		if err := s.InTx(context.Background(), func(tx *sql.Tx) error {
			_, err := tx.Exec("UPDATE transactions SET household_transfer_id = NULL; " + repairHouseholdTransfers)
			return err
		}); err != nil {
			t.Fatal(err)
		}
		if again := pairs(t, s); !slices.Equal(again, got) {
			t.Errorf("repair pairs %v, triggers %v", again, got)
		}
	}
	// i1 (10:00:05) is nearest to o2 (3 s), so o1 stays unpaired; o3 is
	// as near to i2 as to i3 (the same second): the smaller id, i2,
	// wins, and i3 stays unpaired.
	want := []string{"i1=o2", "i2=o3", "o2=i1", "o3=i2"}
	if !slices.Equal(first, want) {
		t.Errorf("pairs %v, want %v", first, want)
	}
}

// A household of one pairs nothing, and the triggers do no work.
func TestNoHouseholdTransfersForOnePerson(t *testing.T) {
	s, _ := mustOpen(t)
	ctx := context.Background()
	joint := account("joint", "2Up Spending", "TRANSACTIONAL", 0)
	joint.OwnershipType = "JOINT"
	if _, err := s.UpsertAccounts(ctx, []bank.Account{account("spend", "Spending", "TRANSACTIONAL", 0), joint}); err != nil {
		t.Fatal(err)
	}
	if err := s.UpsertPerson(ctx, PersonUpdate{Name: "me"}); err != nil {
		t.Fatal(err)
	}
	if err := s.RecordPersonAccounts(ctx, "me", []string{"spend", "joint"}); err != nil {
		t.Fatal(err)
	}
	upsert(t, s,
		spec{id: "out", account: "spend", desc: "To the joint", cents: -1000, created: mar1, performer: "Bobby"},
		spec{id: "in", account: "joint", desc: "From Bobby", cents: 1000, created: mar1b, performer: "Bobby"},
		spec{id: "j", account: "joint", desc: "Partner's lunch", cents: -900, created: mar1b, performer: "Alex"})
	if got := pairs(t, s); got != nil {
		t.Errorf("pairs %v", got)
	}
	if _, err := s.LearnDisplayNames(ctx); err != nil {
		t.Fatal(err)
	}
	// The joint account's transactions are the person's only when they made them.
	wantRows(t, s.Reader(), [][]string{{"in", "me"}, {"j", "NULL"}, {"out", "me"}},
		"SELECT id, coalesce(person, 'NULL') FROM v_transactions ORDER BY id")
}

// Who sees which account: an account one person stops listing stays
// another's; one nobody lists any more keeps its rows and is gone until
// listed again; removing a person makes their own accounts gone.
func TestAccountPeopleAndGoneAccounts(t *testing.T) {
	s := household(t)
	ctx := context.Background()
	upsert(t, s, householdRows()...)
	accounts := func() map[string]string {
		t.Helper()
		list, err := s.AccountsWithPeople(ctx)
		if err != nil {
			t.Fatal(err)
		}
		out := map[string]string{}
		for _, a := range list {
			gone := ""
			if a.GoneAt != "" {
				gone = " gone"
			}
			out[a.AccountID] = a.OwnershipType + " " + join(a.ListedBy) + "/" + join(a.People) + gone
		}
		return out
	}
	want := map[string]string{
		"alex-spend": "INDIVIDUAL alex/alex", "alex-saver": "INDIVIDUAL alex/alex",
		"sam-spend": "INDIVIDUAL sam/sam", "joint": "JOINT alex,sam/alex,sam",
	}
	if got := accounts(); !reflect.DeepEqual(got, want) {
		t.Errorf("accounts %v, want %v", got, want)
	}
	// alex's token no longer lists the joint account; sam's does.
	if err := s.RecordPersonAccounts(ctx, "alex", []string{"alex-spend", "alex-saver"}); err != nil {
		t.Fatal(err)
	}
	want["joint"] = "JOINT sam/sam"
	// sam's spending account closes: nobody lists it, it keeps its history.
	if err := s.RecordPersonAccounts(ctx, "sam", []string{"joint"}); err != nil {
		t.Fatal(err)
	}
	want["sam-spend"] = "INDIVIDUAL /sam gone"
	if got := accounts(); !reflect.DeepEqual(got, want) {
		t.Errorf("accounts %v, want %v", got, want)
	}
	// Its transactions are still sam's, and the payment still a pair.
	wantRows(t, s.Reader(), [][]string{{"sam", "1"}}, "SELECT person, household_transfer FROM v_transactions WHERE id = 'pay-in'")
	// Listed again, it is back.
	if err := s.RecordPersonAccounts(ctx, "sam", []string{"joint", "sam-spend"}); err != nil {
		t.Fatal(err)
	}
	want["sam-spend"] = "INDIVIDUAL sam/sam"
	if got := accounts(); !reflect.DeepEqual(got, want) {
		t.Errorf("accounts %v, want %v", got, want)
	}
	// alex leaves the household: their accounts are gone, their history theirs.
	if err := s.UpsertPerson(ctx, PersonUpdate{Name: "alex", Removed: true}); err != nil {
		t.Fatal(err)
	}
	want["alex-spend"], want["alex-saver"] = "INDIVIDUAL /alex gone", "INDIVIDUAL /alex gone"
	if got := accounts(); !reflect.DeepEqual(got, want) {
		t.Errorf("accounts %v, want %v", got, want)
	}
	wantRows(t, s.Reader(), [][]string{{"alex"}}, "SELECT person FROM v_transactions WHERE id = 'a1'")
	// Configured again, they are back when their token lists them.
	if err := s.UpsertPerson(ctx, PersonUpdate{Name: "alex"}); err != nil {
		t.Fatal(err)
	}
	people, err := s.People(ctx)
	if err != nil || people[0].RemovedAt != "" {
		t.Errorf("alex configured again: %+v (%v)", people, err)
	}
	if err := s.RecordPersonAccounts(ctx, "nobody", nil); !errors.Is(err, ErrNotFound) {
		t.Errorf("accounts of an unknown person: %v", err)
	}
	if err := s.UpsertPerson(ctx, PersonUpdate{Name: "Alex!"}); !errors.Is(err, ErrPersonName) {
		t.Errorf("a bad name: %v", err)
	}
	if err := s.PersonSynced(ctx, "sam"); err != nil {
		t.Fatal(err)
	}
	if people, _ := s.People(ctx); people[1].LastSyncAt == "" {
		t.Errorf("sam's last sync not recorded: %+v", people[1])
	}
}

func join(names []string) string { return strings.Join(names, ",") }

// A mirror of one token from before households (the fixture of schema
// version 11) becomes a household of one at its first start: every
// account and webhook is the person's, nothing else changes.
func TestSingleTokenMirrorBecomesAHouseholdOfOne(t *testing.T) {
	s := openAt(t, LoadFixture(t, 11), WithMigrationBackup(false))
	ctx := context.Background()
	before := queryInt(t, s, "SELECT count(*) FROM transactions")
	accounts := queryInt(t, s, "SELECT count(*) FROM accounts")
	if accounts == 0 || before == 0 {
		t.Fatal("the fixture has no accounts or transactions")
	}
	if err := s.UpsertPerson(ctx, PersonUpdate{Name: "me"}); err != nil {
		t.Fatal(err)
	}
	claimed, err := s.ClaimSingleTokenMirror(ctx, "me")
	if err != nil || !claimed {
		t.Fatalf("claim: %v, %v", claimed, err)
	}
	if n := queryInt(t, s, "SELECT count(*) FROM account_people WHERE person = 'me' AND listed"); n != accounts {
		t.Errorf("%d of %d accounts are me's", n, accounts)
	}
	if n := queryInt(t, s, "SELECT count(*) FROM webhooks WHERE person IS NOT 'me'"); n != 0 {
		t.Errorf("%d webhooks without a person", n)
	}
	if n := queryInt(t, s, "SELECT count(*) FROM v_transactions WHERE people = 'me'"); n != before {
		t.Errorf("%d of %d transactions seen by me", n, before)
	}
	if n := queryInt(t, s, "SELECT count(*) FROM transactions WHERE household_transfer_id IS NOT NULL"); n != 0 {
		t.Errorf("%d household transfers in a household of one", n)
	}
	// Only once: a second start claims nothing.
	if claimed, err := s.ClaimSingleTokenMirror(ctx, "me"); err != nil || claimed {
		t.Errorf("second claim: %v, %v", claimed, err)
	}
}

// The monthly views, the household's and each person's, read a month from
// transactions_month_money alone, never from the table's wide rows; the
// spending views, the household's and per person, need no sort to group.
func TestMonthlyViewsReadTheMonthIndex(t *testing.T) {
	s := household(t)
	upsert(t, s, householdRows()...)
	for _, view := range []string{"v_monthly_spending", "v_monthly_income", "v_monthly_spending_by_person", "v_monthly_income_by_person"} {
		plan := queryPlan(t, s, "SELECT * FROM "+view+" WHERE month = '2026-03'")
		if !strings.Contains(plan, "SEARCH t USING COVERING INDEX "+monthIndex+" (created_month=?)") {
			t.Errorf("%s does not read %s alone: %s", view, monthIndex, plan)
		}
		if strings.HasPrefix(view, "v_monthly_spending") && strings.Contains(plan, "TEMP B-TREE") {
			t.Errorf("%s sorts: %s", view, plan)
		}
	}
}

// A bulk load makes transactions_month_money again as the last version to
// define it (14: with performing_customer and household_transfer_id) did,
// not as version 10 did.
func TestBulkLoadMakesTheLatestMonthIndex(t *testing.T) {
	s, _ := mustOpen(t)
	var made string
	if err := s.Reader().QueryRow("SELECT sql FROM sqlite_schema WHERE type = 'index' AND name = ?", monthIndex).Scan(&made); err != nil {
		t.Fatal(err)
	}
	for _, o := range bulkDeferred {
		if o.name != monthIndex {
			continue
		}
		norm := func(s string) string {
			return strings.Join(strings.Fields(strings.ReplaceAll(s, "IF NOT EXISTS ", "")), " ")
		}
		if norm(o.sql) != norm(made) || !strings.Contains(o.sql, "category_id, performing_customer") || !strings.Contains(o.sql, "household_transfer_id") {
			t.Errorf("a bulk load makes\n%q\na new mirror has\n%q", norm(o.sql), norm(made))
		}
		return
	}
	t.Fatal("a bulk load does not drop the month index")
}

// The triggers' statements find what they re-pair through indexes: none
// scans the transactions, whose rows are wide.
func TestHouseholdTriggersScanNothing(t *testing.T) {
	s := household(t)
	upsert(t, s, householdRows()...)
	for _, name := range []string{"household_transfer_insert", "household_transfer_delete", "household_transfer_update"} {
		trigger := sqlStatement(householdViews, "CREATE TRIGGER IF NOT EXISTS "+name+" ")
		body := trigger[strings.Index(trigger, "\nBEGIN\n")+7 : strings.LastIndex(trigger, "\nEND")]
		body = strings.NewReplacer("new.id", "'x'", "new.amount_base_units", "(-500)", "old.amount_base_units", "(-500)",
			"new.created_epoch", "1000", "old.created_epoch", "1000").Replace(strings.TrimSuffix(strings.TrimSpace(body), ";"))
		if strings.Contains(body, "new.") || strings.Contains(body, "old.") {
			t.Fatalf("%s: %s", name, body)
		}
		plan := queryPlan(t, s, body)
		for _, step := range strings.Split(plan, "; ") {
			if strings.HasPrefix(step, "SCAN ") && !strings.Contains(step, "account_people") && !strings.Contains(step, "subquery") {
				t.Errorf("%s scans: %s\n%s", name, step, plan)
			}
		}
	}
}

// v_monthly_spending_by_person gives each group the person v_transactions
// gives each of its transactions.
func TestSpendingByPersonAgreesWithTransactions(t *testing.T) {
	s := household(t)
	upsert(t, s, householdRows()...)
	upsert(t, s, spec{id: "j4", account: "joint", desc: "Coles", cents: -1200, created: mar2, performer: "Sam", category: "groceries", parent: "home"})
	for range 2 { // before the display names are learned, and after
		want := rows(t, s.Reader(), `SELECT created_month, coalesce(person, '?'), account_id, coalesce(category_id, '-'), -sum(amount_base_units), count(*)
			FROM v_transactions WHERE status = 'SETTLED' AND NOT is_transfer AND NOT is_interest AND account_type IS NOT 'HOME_LOAN'
				AND (amount_base_units < 0 OR offsets_spending)
			GROUP BY 1, 2, 3, 4 ORDER BY 1, 2, 3, 4`)
		wantRows(t, s.Reader(), want, `SELECT month, coalesce(person, '?'), account_id, coalesce(category_id, '-'),
			sum(total_spent_base_units), sum(count + refund_count)
			FROM v_monthly_spending_by_person GROUP BY 1, 2, 3, 4 ORDER BY 1, 2, 3, 4`)
		if _, err := s.LearnDisplayNames(context.Background()); err != nil {
			t.Fatal(err)
		}
	}
}
