package ui

import (
	"cmp"
	"net/http"
	"net/url"
	"slices"
)

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
	slices.Reverse(months) // newest first: this month and the total in view
	spending, err := h.spendingByCategory(r.Context(), whereOf(r.Context()).Person, months[11], months[0])
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
	h.render(w, r, http.StatusOK, "categories", "Categories", struct {
		Months []string
		Rows   []*catRow
		Totals []int64
		All    int64
	}{months, out, totals, all})
}
