package ui_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/bankmirror/bankmirror/internal/store"
	"github.com/bankmirror/bankmirror/internal/ui"
)

// householdDashboard serves a copy of the test mirror made a household of
// two: alex sees Spending, sam the other accounts, and both see
// 2Up Spending (joint: who made its transactions is not known).
func householdDashboard(t *testing.T) *dashboard {
	t.Helper()
	ctx := context.Background()
	path, w := copyMirror(t)
	accts, err := w.AccountBalances(ctx)
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string][]string{}
	for _, a := range accts {
		switch a.Name {
		case "Spending":
			seen["alex"] = append(seen["alex"], a.ID)
		case "2Up Spending":
			seen["alex"] = append(seen["alex"], a.ID)
			seen["sam"] = append(seen["sam"], a.ID)
		default:
			seen["sam"] = append(seen["sam"], a.ID)
		}
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
	return &dashboard{url: srv.URL, st: st, h: h}
}

// A household of several people gets a person switch on every page; the
// household's overview shows what each spent this month, each person's
// pages read the per-person views, and the lists say who made each
// transaction.
func TestHouseholdPersonSwitch(t *testing.T) {
	d := householdDashboard(t)
	c := d.browser(t)
	month := simNow.In(melbourne).Format("2006-01")
	sum := func(q string, args ...any) int64 {
		t.Helper()
		var n int64
		if err := d.st.Reader().QueryRow(q, args...).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}

	_, _, body := get(t, c, d.base+"/")
	sw := regexp.MustCompile(`(?s)<nav class="people" id="person-switch".*?</nav>`).FindString(body)
	for _, want := range []string{`aria-current="page" class="current"><bdi>Household`, `href="` + strings.TrimPrefix(d.base, d.url) + `/p/alex/"`, `/p/sam/"`} {
		if !strings.Contains(sw, want) {
			t.Errorf("the overview's person switch %q lacks %q", sw, want)
		}
	}
	if got, want := cents(t, body, "this-month"), viewSpending(t, d.st, month); got != want {
		t.Errorf("the household's overview: %d spent this month, v_monthly_spending %d", got, want)
	}
	table := regexp.MustCompile(`(?s)id="by-person".*?</table>`).FindString(body)
	for _, p := range []string{"alex", "sam"} {
		want := sum(`SELECT coalesce(sum(total_spent_base_units), 0) FROM v_monthly_spending_by_person WHERE month = ? AND person = ?`, month, p)
		if !regexp.MustCompile(`<bdi>` + p + `</bdi></a></td><td class="num" data-cents="` + strconv.FormatInt(want, 10) + `"`).MatchString(table) {
			t.Errorf("by person: %s's %d cents not shown in %s", p, want, table)
		}
	}

	for _, p := range []string{"alex", "sam"} {
		code, _, page := get(t, c, d.base+"/p/"+p+"/")
		if code != http.StatusOK {
			t.Fatalf("%s's overview: %d", p, code)
		}
		want := sum(`SELECT coalesce(sum(total_spent_base_units), 0) FROM v_monthly_spending_by_person WHERE month = ? AND person = ?`, month, p)
		if got := cents(t, page, "this-month"); got != want {
			t.Errorf("%s's overview: %d spent this month, v_monthly_spending_by_person %d", p, got, want)
		}
		if !strings.Contains(page, `<base href="`+strings.TrimPrefix(d.base, d.url)+`/p/`+p+`/">`) {
			t.Errorf("%s's pages do not link below /p/%s/", p, p)
		}
		_, _, list := get(t, c, d.base+"/p/"+p+"/transactions")
		if got, want := regexp.MustCompile(`data-count="(\d+)"`).FindStringSubmatch(list), sum(`SELECT count(*) FROM v_transactions WHERE person = ?`, p); got == nil || got[1] != strconv.FormatInt(want, 10) || want == 0 {
			t.Errorf("%s's transactions: %v listed, v_transactions has %d", p, got, want)
		}
		other := map[string]string{"alex": "sam", "sam": "alex"}[p]
		if strings.Contains(list, `<td class="text who"><bdi>`+other+`</bdi>`) || !strings.Contains(list, `<td class="text who"><bdi>`+p+`</bdi>`) {
			t.Errorf("%s's list shows another's transactions, or does not say who made them", p)
		}
	}
	if code, _, _ := get(t, c, d.base+"/p/nobody/"); code != http.StatusNotFound {
		t.Errorf("a person the household does not have: %d, want 404", code)
	}

	// A household of one has no switch.
	one := newDashboard(t)
	oc := one.browser(t)
	if _, _, page := get(t, oc, one.base+"/"); strings.Contains(page, "person-switch") || strings.Contains(page, `id="by-person"`) {
		t.Error("a household of one shows a person switch")
	}
}
