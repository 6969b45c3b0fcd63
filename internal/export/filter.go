package export

import (
	"fmt"
	"net/url"
	"slices"
	"strings"
	"time"
)

// Filter selects rows of a view. Each field set maps to columns of the
// view; a view without such a column refuses the filter rather than
// ignoring it.
type Filter struct {
	// Since and Until bound the view's date column (created_epoch when
	// the view has it; see dateColumns), both inclusive: YYYY-MM-DD (a day
	// in the customer's zone), YYYY-MM (a month) or an RFC 3339 timestamp.
	Since, Until string
	// Account matches account_id, or account_name ignoring case.
	Account string
	// Category matches the category or its parent, by id or by name
	// (ignoring case).
	Category string
	// Tag matches one of the transaction's tags (a JSON array in tags_json
	// or tags, or a comma list in tags).
	Tag string
	// Status matches status ignoring case (HELD, SETTLED).
	Status string
}

// filterParams are the feed's query parameters, one per filter.
var filterParams = []string{"since", "until", "account", "category", "tag", "status"}

// FilterFromQuery reads a filter from URL query parameters named like the
// command's flags (since, until, account, category, tag, status). A
// parameter given twice, or not one of these (ignore lists those the
// caller handles itself), is refused.
func FilterFromQuery(q url.Values, ignore ...string) (Filter, error) {
	var f Filter
	fields := map[string]*string{"since": &f.Since, "until": &f.Until, "account": &f.Account,
		"category": &f.Category, "tag": &f.Tag, "status": &f.Status}
	for k, v := range q {
		if slices.Contains(ignore, k) {
			continue
		}
		p, ok := fields[k]
		if !ok {
			return f, invalidf("unknown parameter %q; filters are %s", k, strings.Join(filterParams, ", "))
		}
		if len(v) != 1 {
			return f, invalidf("parameter %q given %d times", k, len(v))
		}
		*p = v[0]
	}
	return f, nil
}

// where turns the filter into an SQL condition over cols (with its
// arguments), or refuses a filter the view cannot apply. Dates given as
// days or months are days and months in loc.
func (f Filter) where(view string, cols []Column, loc *time.Location) (string, []any, error) {
	var conds []string
	var args []any
	has := func(names ...string) []Column {
		var out []Column
		for _, n := range names {
			for _, c := range cols {
				if strings.EqualFold(c.Name, n) {
					out = append(out, c)
				}
			}
		}
		return out
	}
	lacks := func(flag string, names ...string) error {
		return invalidf("view %s has no %s column (%s): --%s cannot be applied to it", view, flag, strings.Join(names, ", "), flag)
	}
	// eq matches value against any of the columns: ids exactly, names
	// ignoring case.
	eq := func(flag, value string, names ...string) error {
		cs := has(names...)
		if len(cs) == 0 {
			return lacks(flag, names...)
		}
		var or []string
		for _, c := range cs {
			cond := quoteIdent(c.Name) + " = ?"
			if !strings.HasSuffix(strings.ToLower(c.Name), "_id") {
				cond += " COLLATE NOCASE"
			}
			or = append(or, cond)
			args = append(args, value)
		}
		conds = append(conds, "("+strings.Join(or, " OR ")+")")
		return nil
	}

	if f.Since != "" || f.Until != "" {
		c, err := f.dateCondition(view, cols, loc)
		if err != nil {
			return "", nil, err
		}
		conds = append(conds, c.sql)
		args = append(args, c.args...)
	}
	if f.Account != "" {
		if err := eq("account", f.Account, "account_id", "account_name"); err != nil {
			return "", nil, err
		}
	}
	if f.Category != "" {
		if err := eq("category", f.Category, "category_id", "category_name", "category", "parent_category_id",
			"parent_category_name", "parent_category", "category_path"); err != nil {
			return "", nil, err
		}
	}
	if f.Status != "" {
		if err := eq("status", f.Status, "status"); err != nil {
			return "", nil, err
		}
	}
	if f.Tag != "" {
		switch {
		case len(has("tags_json")) > 0:
			conds = append(conds, `EXISTS (SELECT 1 FROM json_each("tags_json") WHERE value = ?)`)
			args = append(args, f.Tag)
		case len(has("tags")) > 0:
			// A JSON array, or else a comma-separated list.
			conds = append(conds, `(CASE WHEN json_valid("tags") AND substr("tags", 1, 1) = '[' `+
				`THEN EXISTS (SELECT 1 FROM json_each("tags") WHERE value = ?) `+
				`ELSE instr(',' || "tags" || ',', ',' || ? || ',') > 0 END)`)
			args = append(args, f.Tag, f.Tag)
		default:
			if err := eq("tag", f.Tag, "tag_id", "tag"); err != nil {
				return "", nil, lacks("tag", "tags_json", "tags", "tag_id", "tag")
			}
		}
	}
	if len(conds) == 0 {
		return "", nil, nil
	}
	return " WHERE " + strings.Join(conds, " AND "), args, nil
}

// dateColumns are preferred, in this order, as the column --since and
// --until apply to; failing them, the first *_epoch column, then the first
// date, timestamp, local time or month column of the view. An epoch
// (seconds since 1970, the mirror's X_epoch columns) is compared as a
// number, which is exact across offsets and DST and can use an index.
var dateColumns = []string{"created_epoch", "created_date", "date", "day", "created_at", "created_local", "month",
	"created_month", "observed_epoch", "observed_date", "observed_at", "observed_local"}

type condition struct {
	sql  string
	args []any
}

// dateColumn picks the column --since and --until bound, or nil.
func dateColumn(cols []Column) *Column {
	usable := func(c *Column) bool { return isTemporal(c.Kind) || isEpoch(c) }
	for _, n := range dateColumns {
		for i := range cols {
			if strings.EqualFold(cols[i].Name, n) && usable(&cols[i]) {
				return &cols[i]
			}
		}
	}
	for _, want := range []func(c *Column) bool{isEpoch, func(c *Column) bool { return isTemporal(c.Kind) }} {
		for i := range cols {
			if want(&cols[i]) {
				return &cols[i]
			}
		}
	}
	return nil
}

// isEpoch: an integer column of seconds since 1970 (epoch, *_epoch).
func isEpoch(c *Column) bool {
	n := strings.ToLower(c.Name)
	return c.Kind == KindInteger && (n == "epoch" || strings.HasSuffix(n, "_epoch"))
}

// epochInstant is the RFC 3339 timestamp column an X_epoch column was
// computed from (X_at), when the view has it, or nil.
func epochInstant(col *Column, cols []Column) *Column {
	base, ok := strings.CutSuffix(strings.ToLower(col.Name), "epoch")
	if !ok {
		return nil
	}
	for i := range cols {
		if strings.EqualFold(cols[i].Name, base+"at") && cols[i].Kind == KindTimestamp {
			return &cols[i]
		}
	}
	return nil
}

// dateCondition bounds the view's date column by Since and Until.
func (f Filter) dateCondition(view string, cols []Column, loc *time.Location) (condition, error) {
	col := dateColumn(cols)
	if col == nil {
		return condition{}, invalidf("view %s has no date column (a *_epoch, *_date, *_at, *_local or month column): --since and --until cannot be applied to it", view)
	}
	var lo, hi time.Time // lo inclusive; hi exclusive, or inclusive when a timestamp was given
	loInstant, hiIncluded := false, false
	if f.Since != "" {
		t, next, err := parseBound(f.Since, loc)
		if err != nil {
			return condition{}, invalidf("--since %q: %v", f.Since, err)
		}
		lo, loInstant = t, next.IsZero()
	}
	if f.Until != "" {
		t, next, err := parseBound(f.Until, loc)
		if err != nil {
			return condition{}, invalidf("--until %q: %v", f.Until, err)
		}
		hi, hiIncluded = next, next.IsZero()
		if hiIncluded {
			hi = t
		}
	}
	if !lo.IsZero() && !hi.IsZero() && (lo.After(hi) || (lo.Equal(hi) && !hiIncluded)) {
		return condition{}, invalidf("--since %s is after --until %s", f.Since, f.Until)
	}
	q := quoteIdent(col.Name)
	var c condition
	var parts []string
	add := func(sql string, arg any) {
		parts = append(parts, sql)
		c.args = append(c.args, arg)
	}
	switch {
	case isEpoch(col):
		// Whole seconds (rounded down). Days and months begin on a whole
		// second, so their bounds are exact; a timestamp bound is checked
		// against the instant itself (X_at, to the millisecond) when the
		// view has it, else to the second.
		at := epochInstant(col, cols)
		if !lo.IsZero() {
			if loInstant && at != nil {
				add(q+" >= ?", lo.Add(-time.Millisecond).Unix()) // wide enough for the rounding to milliseconds
				add(instantSQL(at)+" >= "+instantArg, instantText(lo))
			} else {
				add(q+" >= ?", ceilSecond(lo))
			}
		}
		if !hi.IsZero() {
			switch {
			case !hiIncluded:
				add(q+" < ?", ceilSecond(hi))
			case at != nil:
				add(q+" <= ?", hi.Add(time.Millisecond).Unix())
				add(instantSQL(at)+" <= "+instantArg, instantText(hi))
			default:
				add(q+" <= ?", hi.Unix())
			}
		}
	case col.Kind == KindTimestamp:
		// Bank timestamps carry mixed offsets and the mirror's own are UTC:
		// compare instants, never text.
		if !lo.IsZero() {
			add(instantSQL(col)+" >= "+instantArg, instantText(lo))
		}
		if !hi.IsZero() {
			op := " < "
			if hiIncluded {
				op = " <= "
			}
			add(instantSQL(col)+op+instantArg, instantText(hi))
		}
	default: // local dates, months and wall-clock times: text in loc
		layout := map[Kind]string{KindDate: time.DateOnly, KindMonth: "2006-01", KindLocalTime: time.DateTime}[col.Kind]
		if !lo.IsZero() {
			first := lo
			if col.Kind == KindLocalTime {
				first = time.Unix(ceilSecond(lo), 0)
			}
			add(q+" >= ?", first.In(loc).Format(layout))
		}
		if !hi.IsZero() {
			last := hi // the last instant included
			if !hiIncluded {
				last = hi.Add(-time.Nanosecond)
			}
			add(q+" <= ?", last.In(loc).Format(layout))
		}
	}
	c.sql = "(" + strings.Join(parts, " AND ") + ")"
	return c, nil
}

func isTemporal(k Kind) bool {
	return k == KindDate || k == KindTimestamp || k == KindMonth || k == KindLocalTime
}

// ceilSecond is t in seconds since 1970, rounded up to a whole second.
func ceilSecond(t time.Time) int64 {
	s := t.Unix()
	if t.Nanosecond() > 0 {
		s++
	}
	return s
}

// An instant is compared as SQLite reads it: to the millisecond (the
// mirror's own stamps have microseconds), the bound read the same way as
// the column, so that a bound copied from a row includes that row.
const instantArg = "unixepoch(?, 'subsec')"

func instantSQL(c *Column) string { return "unixepoch(" + quoteIdent(c.Name) + ", 'subsec')" }

func instantText(t time.Time) string { return t.UTC().Format(time.RFC3339Nano) }

// parseBound reads a day, a month or a timestamp. A day or a month is its
// first instant in loc, and next is the first instant after it; a
// timestamp has no next.
func parseBound(s string, loc *time.Location) (t, next time.Time, err error) {
	if d, err := time.ParseInLocation("2006-01-02", s, loc); err == nil {
		return d, d.AddDate(0, 0, 1), nil
	}
	if m, err := time.ParseInLocation("2006-01", s, loc); err == nil {
		return m, m.AddDate(0, 1, 0), nil
	}
	if ts, err := time.Parse(time.RFC3339Nano, s); err == nil {
		return ts, time.Time{}, nil
	}
	return t, next, fmt.Errorf("not a date (YYYY-MM-DD), a month (YYYY-MM) or an RFC 3339 timestamp")
}
