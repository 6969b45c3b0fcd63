package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"
	_ "time/tzdata" // the zone database, so BANKMIRROR_TIMEZONE works on systems without one
)

// DefaultTimeZone is the zone of the customer's local dates when none is
// configured: the zone of the bank's own timestamps.
const DefaultTimeZone = "Australia/Melbourne"

// settingTimeZone is the mirror_settings key of the zone the local-time
// columns were computed in.
const settingTimeZone = "timezone"

// WithTimeZone sets the customer's zone, in which every *_local, *_date and
// *_month column is computed. loc must come from time.LoadLocation with an
// IANA name (or be time.UTC); the default is DefaultTimeZone. When the
// mirror's columns were computed in another zone, Open recomputes them.
func WithTimeZone(loc *time.Location) Option { return func(s *Store) { s.zone = loc } }

// stamped are the values of the four local-time columns of one timestamp:
// X_epoch, X_local, X_date, X_month (all nil for no timestamp).
type stamped [4]any

// localize computes the local-time columns of t in loc.
func localize(t time.Time, loc *time.Location) stamped {
	l := t.In(loc)
	local := l.Format(time.DateTime)
	if y := l.Year(); y < 0 || y > 9999 {
		return stamped{t.Unix(), local, l.Format(time.DateOnly), l.Format("2006-01")}
	}
	// The date and the month start the date and time (years of four
	// digits): one string formatted, not three, for each of the two
	// timestamps of every transaction a first sync writes.
	return stamped{t.Unix(), local, local[:len(time.DateOnly)], local[:len("2006-01")]}
}

// localizeText is localize for a timestamp as stored: RFC 3339 text, or
// NULL. Text that does not parse gets NULL columns.
func localizeText(text any, loc *time.Location) stamped {
	var s string
	switch v := text.(type) {
	case string:
		s = v
	case []byte:
		s = string(v)
	case *string:
		if v == nil {
			return stamped{}
		}
		s = *v
	default:
		return stamped{}
	}
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return stamped{}
	}
	return localize(t, loc)
}

// zoneName is how a zone is recorded in mirror_settings.
func zoneName(loc *time.Location) (string, error) {
	name := loc.String()
	if name == "" || name == "Local" {
		return "", fmt.Errorf("time zone %q is not an IANA zone name", name)
	}
	return name, nil
}

// zoneIn is the zone recorded in the mirror, read inside tx, so that every
// writer uses the zone the stored rows were computed in, even when another
// process opened the mirror with another zone since this one did.
func (s *Store) zoneIn(ctx context.Context, tx *sql.Tx) (*time.Location, error) {
	var name string
	err := tx.QueryRowContext(ctx, "SELECT value FROM mirror_settings WHERE key = ?", settingTimeZone).Scan(&name)
	if errors.Is(err, sql.ErrNoRows) {
		return s.zone, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read time zone: %w", err)
	}
	if name == s.zone.String() {
		return s.zone, nil
	}
	loc, err := time.LoadLocation(name)
	if err != nil {
		return nil, fmt.Errorf("load the mirror's time zone %q: %w", name, err)
	}
	return loc, nil
}

// localColumns names a timestamp column and the prefix of its local-time
// columns.
type localColumns struct{ source, prefix string }

// localTables lists every timestamp with local-time columns, by table.
var localTables = []struct {
	table string
	cols  []localColumns
}{
	{"transactions", []localColumns{{"created_at", "created"}, {"settled_at", "settled"}}},
	{"transaction_history", []localColumns{{"observed_at", "observed"}}},
	{"account_balances", []localColumns{{"observed_at", "observed"}}},
}

// localSuffixes are the local-time columns of one timestamp, in the order
// of stamped.
var localSuffixes = [4]string{"_epoch", "_local", "_date", "_month"}

// ensureZone makes the local-time columns agree with s.zone: when the
// mirror records another zone (or none: a mirror from before these columns
// existed), every row is recomputed in one transaction and the zone
// recorded; otherwise rows without local times are filled (an indexed
// lookup for transactions and history).
func (s *Store) ensureZone(ctx context.Context) error {
	name, err := zoneName(s.zone)
	if err != nil {
		return err
	}
	return s.InTx(ctx, func(tx *sql.Tx) error {
		var have string
		err := tx.QueryRowContext(ctx, "SELECT value FROM mirror_settings WHERE key = ?", settingTimeZone).Scan(&have)
		if err != nil && !errors.Is(err, sql.ErrNoRows) {
			return fmt.Errorf("read time zone: %w", err)
		}
		if have == name {
			// In the recorded zone, only rows left without local times
			// (written by something other than this package) are filled.
			return fillLocalTimes(ctx, tx, s.zone)
		}
		for _, t := range localTables {
			if err := relocalize(ctx, tx, t.table, t.cols, s.zone, ""); err != nil {
				return err
			}
		}
		_, err = tx.ExecContext(ctx, `INSERT INTO mirror_settings (key, value) VALUES (?, ?)
			ON CONFLICT (key) DO UPDATE SET value = excluded.value`, settingTimeZone, name)
		if err != nil {
			return fmt.Errorf("record time zone: %w", err)
		}
		return nil
	})
}

// FillLocalTimes computes, inside tx, the local-time columns (*_epoch,
// *_local, *_date, *_month) of every row that has a timestamp and none, in
// the mirror's zone, as a sync writes them: for rows inserted by SQL of
// its own (the benchmarks' generated mirror).
func (s *Store) FillLocalTimes(ctx context.Context, tx *sql.Tx) error {
	loc, err := s.zoneIn(ctx, tx)
	if err != nil {
		return err
	}
	return fillLocalTimes(ctx, tx, loc)
}

// fillLocalTimes computes in loc the local-time columns of the rows
// without them.
func fillLocalTimes(ctx context.Context, tx *sql.Tx, loc *time.Location) error {
	for _, t := range localTables {
		only := t.cols[0].prefix + "_epoch IS NULL AND " + t.cols[0].source + " IS NOT NULL"
		if err := relocalize(ctx, tx, t.table, t.cols, loc, only); err != nil {
			return err
		}
	}
	return nil
}

// relocalize recomputes the local-time columns of every row of table (or
// of those where only holds, when it is not "") in loc, a batch of rows at
// a time in rowid order.
func relocalize(ctx context.Context, tx *sql.Tx, table string, cols []localColumns, loc *time.Location, only string) error {
	where := "rowid > ?"
	if only != "" {
		where += " AND " + only
	}
	var sets, sources string
	for i, c := range cols {
		if i > 0 {
			sets += ", "
		}
		sources += ", " + c.source
		for j, suffix := range localSuffixes {
			if j > 0 {
				sets += ", "
			}
			sets += c.prefix + suffix + " = ?"
		}
	}
	update, err := tx.PrepareContext(ctx, "UPDATE "+table+" SET "+sets+" WHERE rowid = ?") //nolint:gosec // names from this package's table list
	if err != nil {
		return fmt.Errorf("recompute local times of %s: %w", table, err)
	}
	defer update.Close()
	const batch = 2000
	type row struct {
		rowid int64
		texts []any
	}
	rows := make([]row, 0, batch)
	for last := int64(-1 << 63); ; {
		rows = rows[:0]
		q, err := tx.QueryContext(ctx, "SELECT rowid"+sources+" FROM "+table+" WHERE "+where+" ORDER BY rowid LIMIT ?", last, batch) //nolint:gosec // names from this package's table list
		if err != nil {
			return fmt.Errorf("recompute local times of %s: %w", table, err)
		}
		for q.Next() {
			r := row{texts: make([]any, len(cols))}
			dest := []any{&r.rowid}
			for i := range r.texts {
				dest = append(dest, &r.texts[i])
			}
			if err := q.Scan(dest...); err != nil {
				q.Close() //nolint:sqlclosecheck // every path closes it, before the next statement on this connection
				return fmt.Errorf("recompute local times of %s: %w", table, err)
			}
			rows = append(rows, r)
		}
		q.Close()
		if err := q.Err(); err != nil {
			return fmt.Errorf("recompute local times of %s: %w", table, err)
		}
		args := make([]any, 0, 4*len(cols)+1)
		for _, r := range rows {
			args = args[:0]
			for _, text := range r.texts {
				st := localizeText(text, loc)
				args = append(args, st[:]...)
			}
			if _, err := update.ExecContext(ctx, append(args, r.rowid)...); err != nil {
				return fmt.Errorf("recompute local times of %s: %w", table, err)
			}
		}
		if len(rows) < batch {
			return nil
		}
		last = rows[len(rows)-1].rowid
	}
}
