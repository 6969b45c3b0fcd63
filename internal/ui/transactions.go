package ui

import (
	"cmp"
	"context"
	"mime"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/bankmirror/bankmirror/internal/export"
	"github.com/bankmirror/bankmirror/internal/store"
)

// The transactions list.

// pageSize is how many transactions a page lists.
const pageSize = 50

var (
	monthRE  = regexp.MustCompile(`^\d{4}-(0[1-9]|1[0-2])$`)
	beforeRE = regexp.MustCompile(`^(-?\d{1,19})\.(.{1,200})$`)
)

// txFilter reads the list's filters from q; badInput when one is malformed.
func txFilter(q url.Values) (store.TxFilter, error) {
	f := store.TxFilter{Month: q.Get("month"), Account: q.Get("account"), Category: q.Get("category"),
		Tag: q.Get("tag"), Status: strings.ToUpper(q.Get("status")), Search: q.Get("q"), Limit: pageSize}
	f.Spending = q.Get("spending") == "1"
	if f.Month != "" && !monthRE.MatchString(f.Month) {
		return f, badInput{"month must be YYYY-MM"}
	}
	if f.Status != "" && f.Status != "HELD" && f.Status != "SETTLED" {
		return f, badInput{"status must be HELD or SETTLED"}
	}
	for _, v := range []string{f.Account, f.Category, f.Tag, f.Search} {
		if len(v) > 200 {
			return f, badInput{"a filter is longer than 200 characters"}
		}
	}
	if b := q.Get("before"); b != "" {
		m := beforeRE.FindStringSubmatch(b)
		if m == nil {
			return f, badInput{"before must be EPOCH.ID"}
		}
		epoch, err := strconv.ParseInt(m[1], 10, 64)
		if err != nil {
			return f, badInput{"before must be EPOCH.ID"}
		}
		f.BeforeEpoch, f.BeforeID = epoch, m[2]
	}
	return f, nil
}

type catOption struct{ ID, Label string }

type txPageData struct {
	F          store.TxFilter
	Query      url.Values
	Accounts   []store.AccountBalance
	Categories []catOption
	List       store.TxList
	Next       string
	CSV, XLSX  string
	// ExportPartial: the export holds the list without its search or
	// spending filter, which the exporter does not know.
	ExportPartial bool
	Filtered      bool
	// Who: the list says who made each transaction, and the accounts
	// whose they are (a household of several people); Whose is the
	// latter by account id.
	Who   bool
	Whose map[string]string
}

func (h *Handler) transactions(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	q := r.URL.Query()
	f, err := txFilter(q)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	at := whereOf(ctx)
	f.Person = at.Person
	d := txPageData{F: f, Query: q, Who: len(at.People) > 1}
	if d.List, err = h.m.ListTransactions(ctx, f); err != nil {
		h.fail(w, r, err)
		return
	}
	if d.Accounts, err = h.m.AccountBalances(ctx); err != nil {
		h.fail(w, r, err)
		return
	}
	d.Whose = accountsWhose(at.People, d.Accounts)
	if d.Categories, err = h.categoryOptions(ctx); err != nil {
		h.fail(w, r, err)
		return
	}
	if n := len(d.List.Rows); n == pageSize {
		last := d.List.Rows[n-1]
		next := cloneValues(q)
		next.Set("before", strconv.FormatInt(last.Epoch, 10)+"."+last.ID)
		d.Next = txLink(next)
	}
	d.Filtered = f.Month != "" || f.Account != "" || f.Category != "" || f.Tag != "" || f.Status != "" || f.Search != "" || f.Spending
	if h.o.Export != nil {
		e := cloneValues(q)
		e.Del("before")
		e.Del("q")
		e.Del("spending")
		d.ExportPartial = f.Search != "" || f.Spending || f.Person != ""
		d.CSV = "transactions.csv?" + e.Encode()
		d.XLSX = "transactions.xlsx?" + e.Encode()
	}
	h.render(w, r, http.StatusOK, "transactions", "Transactions", d)
}

func cloneValues(v url.Values) url.Values {
	out := url.Values{}
	for k, vs := range v {
		out[k] = slices.Clone(vs)
	}
	return out
}

// categoryOptions lists the categories for the filter: each parent, then
// its children.
func (h *Handler) categoryOptions(ctx context.Context) ([]catOption, error) {
	tree, err := h.m.CategoryTree(ctx)
	if err != nil {
		return nil, err
	}
	var parents []store.CategoryNode
	for _, c := range tree {
		if c.ParentID == "" {
			parents = append(parents, c)
		}
	}
	slices.SortFunc(parents, func(a, b store.CategoryNode) int { return cmp.Compare(a.Name, b.Name) })
	out := []catOption{{noCategory, "Uncategorised"}}
	for _, p := range parents {
		out = append(out, catOption{p.ID, p.Name})
		for _, id := range p.Children {
			out = append(out, catOption{id, p.Name + " / " + tree[id].Name})
		}
	}
	return out, nil
}

// exportList writes the list's transactions (v_ledger, the list's
// month, account, category, tag and status) as CSV or XLSX through the
// exporter.
func (h *Handler) exportList(w http.ResponseWriter, r *http.Request) {
	if h.o.Export == nil {
		http.NotFound(w, r)
		return
	}
	q := r.URL.Query()
	f, err := txFilter(q)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	format := export.CSV
	if strings.HasSuffix(r.URL.Path, ".xlsx") {
		format = export.XLSX
	}
	ef := export.Filter{Since: f.Month, Until: f.Month, Account: f.Account, Tag: f.Tag, Status: f.Status}
	if f.Category != noCategory {
		ef.Category = f.Category
	}
	plan, err := export.Prepare(r.Context(), h.o.Export, export.Request{Format: format, Filter: ef, Location: h.o.Location})
	if err != nil {
		if export.IsInvalid(err) {
			err = badInput{err.Error()}
		}
		h.fail(w, r, err)
		return
	}
	name := "transactions"
	if f.Month != "" {
		name += "-" + f.Month
	}
	hd := w.Header()
	if format == export.XLSX {
		hd.Set("Content-Type", "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet")
	} else {
		hd.Set("Content-Type", "text/csv; charset=utf-8; header=present")
	}
	hd.Set("Content-Disposition", mime.FormatMediaType("attachment", map[string]string{"filename": name + "." + string(format)}))
	if _, err := plan.Write(r.Context(), h.o.Export, w); err != nil {
		h.log.Warn().Err(err).Msg("dashboard: export failed")
		panic(http.ErrAbortHandler) // a short file must not look complete
	}
}
