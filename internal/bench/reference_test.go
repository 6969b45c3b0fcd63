package bench

import (
	"context"
	"database/sql"
	"net/http/httptest"
	"path/filepath"
	"testing"

	_ "github.com/mattn/go-sqlite3"

	"github.com/bankmirror/bankmirror/internal/simulator"
)

// The reference client that bench sync compares with lists every page of
// the bank and leaves every transaction in its table and its search index.
func TestReferenceClientListsAndIndexesEveryTransaction(t *testing.T) {
	const n = 250 // three pages
	sim := simulator.New(simulator.Options{Seed: 3, Transactions: n, Token: "test-token"})
	srv := httptest.NewServer(sim.Handler())
	t.Cleanup(srv.Close)
	path := filepath.Join(t.TempDir(), "reference.db")
	rows, _, err := reference(context.Background(), path, sim.Token(), srv.URL+"/api/v1/transactions?page%5Bsize%5D=100")
	if err != nil {
		t.Fatal(err)
	}
	if rows != n {
		t.Errorf("reference listed %d rows, want %d", rows, n)
	}
	db, err := sql.Open("sqlite3", "file:"+path+"?mode=ro")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var stored, indexed, distinct int
	if err := db.QueryRow("SELECT count(*), count(DISTINCT id) FROM t").Scan(&stored, &distinct); err != nil {
		t.Fatal(err)
	}
	if err := db.QueryRow("SELECT count(*) FROM t_search").Scan(&indexed); err != nil {
		t.Fatal(err)
	}
	if stored != n || distinct != n || indexed != n {
		t.Errorf("stored %d rows (%d ids), indexed %d, want %d each", stored, distinct, indexed, n)
	}
	// A word of one description finds that transaction through the index.
	var id, word string
	if err := db.QueryRow("SELECT id, description FROM t LIMIT 1").Scan(&id, &word); err != nil {
		t.Fatal(err)
	}
	var found int
	if err := db.QueryRow(`SELECT count(*) FROM t_search s JOIN t ON t.rowid = s.rowid
		WHERE t_search MATCH ? AND t.id = ?`, `"`+word+`"`, id).Scan(&found); err != nil {
		t.Fatal(err)
	}
	if found != 1 {
		t.Errorf("search for %q found transaction %s %d times, want 1", word, id, found)
	}
}
