package export_test

import (
	"context"
	"database/sql"
	"path/filepath"
	"slices"
	"testing"

	"github.com/bankmirror/bankmirror/internal/export"
	"github.com/bankmirror/bankmirror/internal/store"
)

// TestDateFilterOnLocalTimes: a view whose only date column is a local
// wall-clock time (*_local, already in the customer's zone) is bounded by
// the days and instants of that zone, without converting its values.
func TestDateFilterOnLocalTimes(t *testing.T) {
	path := filepath.Join(t.TempDir(), "local.db")
	st, err := store.Open(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	err = st.InTx(context.Background(), func(tx *sql.Tx) error {
		for _, q := range []string{
			`CREATE TABLE local_events (id TEXT, created_local TEXT)`,
			`INSERT INTO local_events VALUES ('before', '2026-02-28 23:59:59'), ('first', '2026-03-01 00:00:00'),
				('morning', '2026-03-01 10:00:00'), ('morning+1', '2026-03-01 10:00:01'), ('last', '2026-03-01 23:59:59'),
				('after', '2026-03-02 00:00:00')`,
			`CREATE VIEW v_local_events AS SELECT id, created_local FROM local_events`,
		} {
			if _, err := tx.Exec(q); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}
	db, err := store.OpenReadOnlyDB(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for _, c := range []struct {
		f    export.Filter
		want []string
	}{
		{export.Filter{Since: "2026-03-01", Until: "2026-03-01"}, []string{"first", "morning", "morning+1", "last"}},
		{export.Filter{Since: "2026-03", Until: "2026-03"}, []string{"first", "morning", "morning+1", "last", "after"}},
		// 10:00:00.5 in Melbourne (+11:00 in March): from the next whole second.
		{export.Filter{Since: "2026-02-28T23:00:00.5Z", Until: "2026-03-01"}, []string{"morning+1", "last"}},
		{export.Filter{Until: "2026-02-28T23:00:00Z"}, []string{"before", "first", "morning"}},
	} {
		out, _ := run(t, db, export.Request{Format: export.CSV, Views: []string{"v_local_events"}, Filter: c.f})
		var got []string
		for _, r := range parseCSV(t, out)[1:] {
			got = append(got, r[0])
		}
		if !slices.Equal(got, c.want) {
			t.Errorf("%+v: %v, want %v", c.f, got, c.want)
		}
	}
}
