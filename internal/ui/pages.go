package ui

import (
	"bytes"
	"cmp"
	"context"
	"errors"
	"fmt"
	"html/template"
	"mime"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/bankmirror/bankmirror/internal/export"
	"github.com/bankmirror/bankmirror/internal/health"
	"github.com/bankmirror/bankmirror/internal/logfield"
	"github.com/bankmirror/bankmirror/internal/receipts"
	"github.com/bankmirror/bankmirror/internal/store"
)

// pageNames are the templates in templates/, each rendered inside
// layout.html.
var pageNames = []string{"login", "error", "overview", "transactions", "transaction", "categories", "recurring"}

func parsePages() (map[string]*template.Template, error) {
	funcs := template.FuncMap{"money": money, "moneyIn": moneyIn, "monthName": monthName, "shortMonth": shortMonth,
		"plural": plural}
	out := map[string]*template.Template{}
	for _, name := range pageNames {
		t, err := template.New("layout.html").Funcs(funcs).ParseFS(templateFS, "templates/layout.html", "templates/"+name+".html")
		if err != nil {
			return nil, fmt.Errorf("dashboard template %s: %w", name, err)
		}
		out[name] = t
	}
	return out, nil
}

// render writes page name with data, whole or (on a template error) not
// at all, with the time the server took in its Server-Timing header
// (`bankmirror bench ui` reads it; a browser's developer tools show it).
func (h *Handler) render(w http.ResponseWriter, r *http.Request, status int, name string, data any) {
	var buf bytes.Buffer
	if err := h.pages[name].Execute(&buf, data); err != nil {
		h.log.Error().Err(err).Str(logfield.Page, name).Msg("dashboard: render failed")
		http.Error(w, "internal error", http.StatusInternalServerError)
		return
	}
	if start, ok := r.Context().Value(startKey{}).(time.Time); ok {
		w.Header().Set("Server-Timing", fmt.Sprintf("app;dur=%.3f", float64(time.Since(start).Microseconds())/1000))
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.WriteHeader(status)
	_, _ = w.Write(buf.Bytes())
}

// fail answers a request that could not be served: 400 for bad input, 404
// for what the mirror does not have, 500 (logged) otherwise.
func (h *Handler) fail(w http.ResponseWriter, r *http.Request, err error) {
	status, msg := http.StatusInternalServerError, "The mirror could not be read; see the log."
	var bad badInput
	switch {
	case errors.As(err, &bad):
		status, msg = http.StatusBadRequest, bad.Error()
	case errors.Is(err, store.ErrNotFound):
		status, msg = http.StatusNotFound, "The mirror has no such transaction."
	case errors.Is(err, errNoReceipt):
		status, msg = http.StatusNotFound, "No receipt of this transaction is kept where the dashboard reads them (BANKMIRROR_ATTACHMENTS_DIR)."
	case r.Context().Err() != nil:
		return
	default:
		h.log.Error().Err(err).Str(logfield.Page, r.URL.Path).Msg("dashboard: page failed")
	}
	h.render(w, r, status, "error", struct{ Title, Message string }{http.StatusText(status), msg})
}

// badInput is a request parameter the page refuses.
type badInput struct{ msg string }

func (b badInput) Error() string { return b.msg }

// months is the last n months up to and including now's, oldest first,
// in the customer's zone (YYYY-MM).
func (h *Handler) months(n int) []string {
	now := h.o.Now().In(h.o.Location)
	first := time.Date(now.Year(), now.Month(), 1, 0, 0, 0, 0, h.o.Location)
	out := make([]string, n)
	for i := range n {
		out[n-1-i] = first.AddDate(0, -i, 0).Format("2006-01")
	}
	return out
}

// monthTotal is one month's spending, as v_monthly_spending sums it.
type monthTotal struct {
	Month string
	Cents int64
	Count int64
}

type overviewData struct {
	Title                string
	Health               *healthLine
	ThisMonth, LastMonth monthTotal
	Categories           hbarChart
	Months               monthsChart
	Accounts             []accountView
	Held                 []store.TxRow
	Today                string
}

// overview is /: this month and last, by category; twelve months of
// spending and income; the accounts with their trend; what is HELD; the
// mirror's health.
func (h *Handler) overview(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	months := h.months(12)
	this, last := months[11], months[10]
	spending, err := h.m.SpendingByCategory(ctx, months[0], this)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	income, err := h.m.IncomeByMonth(ctx, months[0], this)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	d := overviewData{Title: "Overview", ThisMonth: monthTotal{Month: this}, LastMonth: monthTotal{Month: last},
		Today: h.o.Now().In(h.o.Location).Format("Monday 2 January 2006")}
	perMonth := map[string]int64{}
	var cats []hbar
	for _, c := range spending {
		perMonth[c.Month] += c.Cents
		switch c.Month {
		case this:
			d.ThisMonth.Cents += c.Cents
			d.ThisMonth.Count += c.Count
			cats = append(cats, hbar{Label: categoryLabel(c), Cents: c.Cents,
				Link: txLink(url.Values{"month": {this}, "category": {categoryParam(c.CategoryID)}, "spending": {"1"}})})
		case last:
			d.LastMonth.Cents += c.Cents
			d.LastMonth.Count += c.Count
		}
	}
	slices.SortStableFunc(cats, func(a, b hbar) int { return cmp.Compare(b.Cents, a.Cents) })
	d.Categories = newHBarChart(cats)
	d.Months = newMonthsChart(months, perMonth, income)
	if d.Accounts, err = h.accounts(ctx); err != nil {
		h.fail(w, r, err)
		return
	}
	if d.Held, err = h.m.HeldTransactions(ctx, 20); err != nil {
		h.fail(w, r, err)
		return
	}
	if h.o.Status != nil {
		d.Health = h.healthLine(ctx)
	}
	h.render(w, r, http.StatusOK, "overview", d)
}

func categoryLabel(c store.CategorySpending) string {
	if c.ParentCategoryID != "" && c.ParentCategory != c.Category {
		return c.ParentCategory + " / " + c.Category
	}
	return c.Category
}

// categoryParam is the category filter of a category id: "none" for
// uncategorised.
func categoryParam(id string) string {
	if id == "" {
		return noCategory
	}
	return id
}

const noCategory = store.NoCategory

func txLink(v url.Values) string { return "/transactions?" + v.Encode() }

// trendDays is how far back each account's balance trend goes.
const trendDays = 90

type accountView struct {
	store.AccountBalance
	Trend spark
	Days  []store.DailyBalance
}

func (h *Handler) accounts(ctx context.Context) ([]accountView, error) {
	accts, err := h.m.AccountBalances(ctx)
	if err != nil {
		return nil, err
	}
	from := h.o.Now().In(h.o.Location).AddDate(0, 0, -trendDays).Format(time.DateOnly)
	days, err := h.m.DailyBalances(ctx, from)
	if err != nil {
		return nil, err
	}
	byAccount := map[string][]store.DailyBalance{}
	for _, d := range days {
		byAccount[d.AccountID] = append(byAccount[d.AccountID], d)
	}
	out := make([]accountView, len(accts))
	for i, a := range accts {
		out[i] = accountView{AccountBalance: a, Days: byAccount[a.ID], Trend: newSpark(byAccount[a.ID])}
	}
	return out, nil
}

// healthLine is the mirror's health in one line, by the rules of
// `bankmirror status`.
type healthLine struct {
	Level, Text string
}

func (h *Handler) healthLine(ctx context.Context) *healthLine {
	s, err := h.o.Status(ctx)
	if err != nil {
		return &healthLine{Level: health.Failing.String(), Text: "FAILING: " + err.Error()}
	}
	var parts []string
	if s.Level == health.OK {
		parts = append(parts, "OK")
	} else {
		parts = append(parts, s.Level.String()+": "+s.Reason)
	}
	var last time.Time
	for _, kind := range []string{health.KindIncremental, health.KindFull} {
		if t := s.Syncs[kind].At; t.After(last) {
			last = t
		}
	}
	if last.IsZero() {
		parts = append(parts, "no successful sync yet")
	} else {
		parts = append(parts, "last sync "+health.Age(h.o.Now().Sub(last))+" ago ("+last.In(h.o.Location).Format("2 Jan 15:04")+")")
	}
	parts = append(parts, plural(s.Inbox.Pending, "event", "events")+" pending")
	switch {
	case !s.Token.Known:
		parts = append(parts, "token: no report from the daemon")
	case s.Token.Rejected:
		parts = append(parts, "token REJECTED by the bank")
	default:
		parts = append(parts, "token accepted")
	}
	return &healthLine{Level: s.Level.String(), Text: strings.Join(parts, " · ")}
}

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
	Title      string
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
}

func (h *Handler) transactions(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	q := r.URL.Query()
	f, err := txFilter(q)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	d := txPageData{Title: "Transactions", F: f, Query: q}
	if d.List, err = h.m.ListTransactions(ctx, f); err != nil {
		h.fail(w, r, err)
		return
	}
	if d.Accounts, err = h.m.AccountBalances(ctx); err != nil {
		h.fail(w, r, err)
		return
	}
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
		d.ExportPartial = f.Search != "" || f.Spending
		d.CSV = "/transactions.csv?" + e.Encode()
		d.XLSX = "/transactions.xlsx?" + e.Encode()
	}
	h.render(w, r, http.StatusOK, "transactions", d)
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

// transaction is /transactions/{id}: the transaction, its history, its
// receipt.
func (h *Handler) transaction(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("id")
	if len(id) > 200 {
		h.fail(w, r, badInput{"no such transaction id"})
		return
	}
	d, err := h.m.TransactionDetail(r.Context(), id)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	h.render(w, r, http.StatusOK, "transaction", struct {
		Title string
		T     store.TxDetail
	}{d.Description, d})
}

// imageTypes are the receipts shown in the browser, inside a sandbox; a
// PDF (which Chromium does not render in a sandboxed document) and any
// other file are downloaded.
var imageTypes = map[string]bool{"image/jpeg": true, "image/png": true, "image/gif": true, "image/webp": true}

// errNoReceipt: the transaction has no kept receipt the dashboard may
// serve.
var errNoReceipt = errors.New("no receipt kept")

// receipt serves the kept file of a transaction's receipt: only the file
// receipts kept, in the attachments directory, checked by receipts.Open,
// whatever directory the mirror's local_path names.
func (h *Handler) receipt(w http.ResponseWriter, r *http.Request) {
	d, err := h.m.TransactionDetail(r.Context(), r.PathValue("id"))
	if err == nil && d.ReceiptPath == "" {
		err = store.ErrNotFound
	}
	if err != nil {
		h.fail(w, r, err)
		return
	}
	f, err := receipts.Open(h.o.AttachmentsDir, d.ReceiptPath)
	if err != nil {
		h.log.Warn().Err(err).Str(logfield.TransactionID, d.ID).Msg("dashboard: receipt refused")
		h.fail(w, r, errNoReceipt)
		return
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		h.fail(w, r, fmt.Errorf("receipt of %s: %w", d.ID, err))
		return
	}
	hd := w.Header()
	// A receipt is the bank's file, not ours: it runs nothing here.
	hd.Set("Content-Security-Policy", "sandbox; default-src 'none'; img-src 'self'; style-src 'unsafe-inline'")
	ctype, disposition := d.ReceiptType, "inline"
	switch {
	case ctype == "application/pdf":
		disposition = "attachment"
	case !imageTypes[ctype]:
		ctype, disposition = "application/octet-stream", "attachment"
	}
	hd.Set("Content-Type", ctype)
	hd.Set("Content-Disposition", mime.FormatMediaType(disposition, map[string]string{"filename": "receipt-" + d.AttachmentID + extOf(ctype)}))
	http.ServeContent(w, r, "", st.ModTime(), f)
}

func extOf(ctype string) string {
	if exts, _ := mime.ExtensionsByType(ctype); len(exts) > 0 {
		return exts[0]
	}
	return ""
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

// Categories: spending per category per month.

type catRow struct {
	Label string
	ID    string
	Cells []catCell
	Total int64
}

type catCell struct {
	Cents int64
	Set   bool
	Link  string
}

func (h *Handler) categories(w http.ResponseWriter, r *http.Request) {
	months := h.months(12)
	spending, err := h.m.SpendingByCategory(r.Context(), months[0], months[11])
	if err != nil {
		h.fail(w, r, err)
		return
	}
	index := map[string]int{}
	for i, m := range months {
		index[m] = i
	}
	rows := map[string]*catRow{}
	totals := make([]int64, len(months))
	var order []string
	for _, c := range spending {
		key := c.ParentCategoryID + "/" + c.CategoryID
		row, ok := rows[key]
		if !ok {
			row = &catRow{Label: categoryLabel(c), ID: categoryParam(c.CategoryID), Cells: make([]catCell, len(months))}
			rows[key] = row
			order = append(order, key)
		}
		i := index[c.Month]
		row.Cells[i] = catCell{Cents: c.Cents, Set: true,
			Link: txLink(url.Values{"month": {c.Month}, "category": {row.ID}, "spending": {"1"}})}
		row.Total += c.Cents
		totals[i] += c.Cents
	}
	out := make([]*catRow, 0, len(order))
	for _, k := range order {
		out = append(out, rows[k])
	}
	slices.SortStableFunc(out, func(a, b *catRow) int { return cmp.Compare(a.Label, b.Label) })
	var all int64
	for _, t := range totals {
		all += t
	}
	h.render(w, r, http.StatusOK, "categories", struct {
		Title  string
		Months []string
		Rows   []*catRow
		Totals []int64
		All    int64
	}{"Categories", months, out, totals, all})
}

// recurring is /recurring: payees paid in at least 3 of the last 6
// months with similar amounts (recurringPayees).
func (h *Handler) recurring(w http.ResponseWriter, r *http.Request) {
	months := h.months(recurringWindow)
	payments, err := h.m.Payments(r.Context(), months[0])
	if err != nil {
		h.fail(w, r, err)
		return
	}
	list := recurringPayees(payments)
	var total int64
	for _, p := range list {
		total += p.Monthly
	}
	h.render(w, r, http.StatusOK, "recurring", struct {
		Title         string
		From, To      string
		List          []payee
		Total         int64
		Window, Least int
		Tolerance     int
	}{"Recurring payments", months[0], months[len(months)-1], list, total, recurringWindow, recurringMonths, recurringTolerancePct})
}
