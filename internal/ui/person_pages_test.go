package ui_test

import (
	"context"
	"database/sql"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/bankmirror/bankmirror/internal/store"
	"github.com/bankmirror/bankmirror/internal/ui"
)

// couple is a household of two in a copy of the test mirror: alex sees
// Spending and 2Up Spending, sam the other accounts, one of which is also
// named "Spending"; each has a HELD transaction on an account only they
// see; and alex paid sam 56.78 (a household transfer, paired by the
// mirror's triggers).
type couple struct {
	*dashboard
	alexSpending, samSpending string // the two accounts named "Spending"
	alexHeld, samHeld         string // a HELD transaction of each
	paid, received            string // the two sides of the household transfer
}

func newCouple(t *testing.T) *couple {
	t.Helper()
	ctx := context.Background()
	path, w := copyMirror(t)
	accts, err := w.AccountBalances(ctx)
	if err != nil {
		t.Fatal(err)
	}
	c := &couple{}
	seen := map[string][]string{}
	for _, a := range accts {
		switch a.Name {
		case "Spending":
			c.alexSpending = a.ID
			seen["alex"] = append(seen["alex"], a.ID)
		case "2Up Spending":
			seen["alex"] = append(seen["alex"], a.ID)
			seen["sam"] = append(seen["sam"], a.ID)
		default:
			if c.samSpending == "" && a.Type == "SAVER" {
				c.samSpending = a.ID
			}
			seen["sam"] = append(seen["sam"], a.ID)
		}
	}
	if c.alexSpending == "" || c.samSpending == "" {
		t.Fatalf("the test mirror lacks a Spending and a saver: %+v", accts)
	}
	for _, p := range []string{"alex", "sam"} {
		if err := w.UpsertPerson(ctx, store.PersonUpdate{Name: p}); err != nil {
			t.Fatal(err)
		}
		if err := w.RecordPersonAccounts(ctx, p, seen[p]); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}

	// What the bank could send a couple, written as SQLite would store
	// it: the triggers pair the transfer.
	db, err := sql.Open("sqlite3", "file:"+path+"?_foreign_keys=on")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	exec := func(q string, args ...any) {
		t.Helper()
		if _, err := db.Exec(q, args...); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	exec(`UPDATE accounts SET display_name = 'Spending' WHERE id = ?`, c.samSpending)
	// The stored columns: raw, generated from them, is not one.
	var cols string
	if err := db.QueryRow(`SELECT group_concat(name, ', ') FROM pragma_table_info('transactions')`).Scan(&cols); err != nil {
		t.Fatal(err)
	}
	c.alexHeld, c.samHeld, c.paid, c.received = "couple-alex-held", "couple-sam-held", "couple-paid", "couple-received"
	base := func(id, account string, cents int64, status string, at time.Time) {
		t.Helper()
		exec(`CREATE TEMP TABLE IF NOT EXISTS copy AS SELECT * FROM transactions LIMIT 0`)
		exec(`DELETE FROM temp.copy`)
		exec(`INSERT INTO temp.copy SELECT * FROM transactions WHERE account_id = ? AND transfer_account_id IS NULL
			ORDER BY id LIMIT 1`, c.alexSpending)
		exec(`UPDATE temp.copy SET id = ?, account_id = ?, amount_base_units = ?, amount_value = printf('%.2f', ?/100.0),
			status = ?, settled_at = NULL, created_at = ?, created_epoch = ?, created_local = ?, created_date = ?, created_month = ?,
			description = ?, household_transfer_id = NULL, category_id = NULL, parent_category_id = NULL, transaction_type = NULL,
			card_purchase_method = NULL`,
			id, account, cents, cents, status, at.Format(time.RFC3339), at.Unix(), at.In(melbourne).Format(time.DateTime),
			at.In(melbourne).Format(time.DateOnly), at.In(melbourne).Format("2006-01"), "Couple "+id)
		exec(`INSERT INTO transactions (` + cols + `) SELECT ` + cols + ` FROM temp.copy`)
	}
	at := simNow.Add(-2 * time.Hour)
	base(c.alexHeld, c.alexSpending, -1111, "HELD", at)
	base(c.samHeld, c.samSpending, -2222, "HELD", at.Add(time.Minute))
	base(c.paid, c.alexSpending, -5678, "SETTLED", at.Add(-time.Hour))
	base(c.received, c.samSpending, 5678, "SETTLED", at.Add(-time.Hour+time.Second))
	var other string
	if err := db.QueryRow(`SELECT coalesce(household_transfer_id, '') FROM transactions WHERE id = ?`, c.paid).Scan(&other); err != nil || other != c.received {
		t.Fatalf("the payment from alex to sam is paired with %q (%v), want %q", other, err, c.received)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}

	st, err := store.OpenReadOnly(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	h, err := ui.New(st, ui.Options{Token: testToken, Location: melbourne, Now: func() time.Time { return simNow }})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(h.Close)
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	c.dashboard = &dashboard{url: srv.URL, st: st, h: h}
	return c
}

// section is the part of page from the element with id to the end of its
// table.
func section(page, id string) string {
	return regexp.MustCompile(`(?s)id="` + id + `".*?</table>`).FindString(page)
}

// A person's overview lists what waits to settle on the accounts they
// see, never the partner's alone; the household's lists both, with who
// made each.
func TestPersonOverviewShowsOnlyTheirHolds(t *testing.T) {
	c := newCouple(t)
	b := c.browser(t)
	_, _, page := get(t, b, c.base+"/")
	held := section(page, "held")
	for _, id := range []string{c.alexHeld, c.samHeld} {
		if !strings.Contains(held, `href="transactions/`+id+`"`) {
			t.Errorf("the household's Waiting to settle lacks %s: %s", id, held)
		}
	}
	if !strings.Contains(held, "<th>Who</th>") || !strings.Contains(held, `<td class="text who"><bdi>sam</bdi>`) {
		t.Errorf("the household's Waiting to settle does not say who made each: %s", held)
	}
	for p, want := range map[string][2]string{"alex": {c.alexHeld, c.samHeld}, "sam": {c.samHeld, c.alexHeld}} {
		code, _, page := get(t, b, c.base+"/p/"+p+"/")
		if code != http.StatusOK {
			t.Fatalf("%s's overview: %d", p, code)
		}
		held := section(page, "held")
		if !strings.Contains(held, `href="transactions/`+want[0]+`"`) {
			t.Errorf("%s's Waiting to settle lacks their own hold %s: %s", p, want[0], held)
		}
		if strings.Contains(held, want[1]) {
			t.Errorf("%s's Waiting to settle shows %s, on an account only the other sees: %s", p, want[1], held)
		}
	}
}

// Two accounts of the same name are told apart: the accounts table says
// whose each is, and so do the lists and the account filter.
func TestAccountsSayWhoseTheyAre(t *testing.T) {
	c := newCouple(t)
	b := c.browser(t)
	_, _, page := get(t, b, c.base+"/")
	accounts := section(page, "accounts")
	for id, who := range map[string]string{c.alexSpending: "alex", c.samSpending: "sam"} {
		row := regexp.MustCompile(`(?s)<tr>\s*<td class="text"><a href="transactions\?account=` + id + `">.*?</tr>`).FindString(accounts)
		if !strings.Contains(row, `<bdi>Spending</bdi>`) || !strings.Contains(row, `<td class="text whose"><bdi>`+who+`</bdi></td>`) {
			t.Errorf("the accounts table's row of %s's Spending does not say whose: %q", who, row)
		}
	}
	if !strings.Contains(accounts, "<bdi>alex &amp; sam</bdi>") {
		t.Errorf("the accounts table does not say 2Up Spending is alex's and sam's: %s", accounts)
	}

	_, _, list := get(t, b, c.base+"/transactions?q=Couple")
	for id, who := range map[string]string{c.alexSpending: "alex", c.samSpending: "sam"} {
		if !strings.Contains(list, `<option value="`+id+`">Spending (`+who+`)</option>`) {
			t.Errorf("the account filter does not tell %s's Spending apart", who)
		}
	}
	row := regexp.MustCompile(`(?s)<tr[^>]*>\s*<td class="when">[^<]*(<small>HELD</small>)?</td>\s*<td class="text desc"><a href="transactions/` + c.samHeld + `">.*?</tr>`).FindString(list)
	if !strings.Contains(row, `<bdi>Spending</bdi> <small class="whose"><bdi>sam</bdi></small>`) {
		t.Errorf("the list's row of sam's hold does not say whose its Spending is: %q", row)
	}
}

// A household transfer says so in the lists and on its page, and links
// the other side.
func TestHouseholdTransferMarkedAndLinked(t *testing.T) {
	c := newCouple(t)
	b := c.browser(t)
	_, _, list := get(t, b, c.base+"/transactions?q=Couple")
	for id, other := range map[string]string{c.paid: c.received, c.received: c.paid} {
		row := regexp.MustCompile(`(?s)<td class="text desc"><a href="transactions/` + id + `">.*?</td>`).FindString(list)
		if !strings.Contains(row, `household transfer · <a href="transactions/`+other+`">the other side</a>`) {
			t.Errorf("the list's row of %s does not say it is a household transfer with %s: %q", id, other, row)
		}
	}
	_, _, page := get(t, b, c.base+"/transactions/"+c.paid)
	dd := regexp.MustCompile(`(?s)<dd id="household-transfer">.*?</dd>`).FindString(page)
	if !strings.Contains(dd, `<a href="transactions/`+c.received+`">The other side</a>`) ||
		!strings.Contains(dd, "<bdi>Couple "+c.received+"</bdi>") || !strings.Contains(dd, "(<bdi>sam</bdi>)") {
		t.Errorf("the page of alex's payment does not link sam's side: %q", dd)
	}
	// Not every transaction is one.
	_, _, held := get(t, b, c.base+"/transactions/"+c.alexHeld)
	if strings.Contains(held, "household-transfer") {
		t.Error("a hold that is no household transfer is marked as one")
	}
	// On a person's pages too.
	_, _, mine := get(t, b, c.base+"/p/alex/transactions?q=Couple")
	if !strings.Contains(mine, `household transfer · <a href="transactions/`+c.received+`">`) {
		t.Error("alex's list does not mark the payment to sam")
	}
}
