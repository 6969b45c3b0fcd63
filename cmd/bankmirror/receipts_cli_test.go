package main

import (
	"database/sql"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/bankmirror/bankmirror/internal/mirrortest"
	"github.com/bankmirror/bankmirror/internal/simulator"
	"github.com/bankmirror/bankmirror/internal/store"
)

// Receipt links that lead to a service on loopback or to a local file are
// refused and counted against their own files; `sync` saves every other
// receipt and exits 0.
func TestCLISyncRefusesBadReceiptLinksAndSucceeds(t *testing.T) {
	b := newTokenBank(t, 300, cliToken)
	for _, mt := range []string{"application/pdf", "image/png", "image/jpeg"} {
		b.sim.AddTransaction(simulator.NewTransaction{Description: "Hardware store", AmountBaseUnits: -8950, Attachment: mt})
	}
	db := filepath.Join(t.TempDir(), "mirror.db")
	wantCode(t, runCLI(t, cliEnv(b, db), "sync"), 0)

	var hits atomic.Int64
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		w.Header().Set("Content-Type", "application/pdf")
		_, _ = io.WriteString(w, "%PDF-1.4 metrics")
	}))
	t.Cleanup(other.Close)
	st, err := store.Open(t.Context(), db)
	must(t, err)
	ids := mirrortest.Strings(t, st.Reader(), "SELECT id FROM attachments ORDER BY id")
	if len(ids) < 3 {
		t.Fatalf("%d attachments; the test needs 3", len(ids))
	}
	for i, link := range []string{other.URL + "/metrics", "file:///etc/passwd"} {
		must(t, st.InTx(t.Context(), func(tx *sql.Tx) error {
			_, err := tx.Exec("UPDATE attachments SET file_url = ? WHERE id = ?", link, ids[i])
			return err
		}))
	}
	must(t, st.Close())

	env := cliEnv(b, db)
	env["BANKMIRROR_ATTACHMENTS_DIR"] = filepath.Join(t.TempDir(), "receipts")
	r := runCLI(t, env, "sync")
	wantCode(t, r, 0)
	if want := fmt.Sprintf("receipts: %d saved, 2 refused", len(ids)-2); !strings.Contains(r.stdout, want) {
		t.Errorf("want %q:\n%s", want, r)
	}
	if hits.Load() != 0 {
		t.Errorf("the service on loopback got %d requests", hits.Load())
	}
	st = openMirror(t, db)
	if n := mirrortest.Int(t, st.Reader(), `SELECT count(*) FROM attachments
		WHERE local_path IS NULL AND download_attempts = 1 AND download_error LIKE '%only https%'`); n != 2 {
		t.Errorf("%d attachments record the refused link, want 2", n)
	}
}
