package receipts_test

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/bankmirror/bankmirror/internal/bank"
	"github.com/bankmirror/bankmirror/internal/mirrortest"
	"github.com/bankmirror/bankmirror/internal/receipts"
	"github.com/bankmirror/bankmirror/internal/replica"
	"github.com/bankmirror/bankmirror/internal/simulator"
	"github.com/bankmirror/bankmirror/internal/store"
)

type env struct {
	sim    *simulator.Bank
	client *bank.Client
	store  *store.Store
	dir    string
	// origin is the API's scheme and host; besides the bank it serves
	// /test/html (an HTML page), /test/file?type=T&body=B (hostileBodies[B]
	// as content type T) and /test/redirect?to=URL.
	origin string
	// attachmentGETs counts GET /attachments/{id} at the bank.
	attachmentGETs atomic.Int64
}

func newEnv(t *testing.T) *env {
	t.Helper()
	e := &env{sim: simulator.New(simulator.Options{Seed: 7, Transactions: 600, Token: "test-token",
		RateLimit: simulator.RateLimit{Limit: 1_000_000}})}
	h := e.sim.Handler()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch {
		case strings.HasPrefix(r.URL.Path, "/api/v1/attachments/"):
			e.attachmentGETs.Add(1)
		case r.URL.Path == "/test/html":
			w.Header().Set("Content-Type", "text/html")
			_, _ = io.WriteString(w, "<html><script>alert(1)</script></html>")
			return
		case r.URL.Path == "/test/file":
			// A hostile file host: the content type it is asked to say, and
			// one of hostileBodies.
			w.Header().Set("Content-Type", r.URL.Query().Get("type"))
			_, _ = w.Write(hostileBodies[r.URL.Query().Get("body")])
			return
		case r.URL.Path == "/test/redirect":
			http.Redirect(w, r, r.URL.Query().Get("to"), http.StatusFound)
			return
		}
		h.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	e.origin = srv.URL
	e.client = bank.New(srv.URL+"/api/v1", e.sim.Token(), bank.WithBackoff(time.Millisecond, 4*time.Millisecond))
	st, err := store.Open(context.Background(), filepath.Join(t.TempDir(), "mirror.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	e.store = st
	e.dir = filepath.Join(t.TempDir(), "receipts")
	if len(e.sim.Snapshot().Attachments) < 3 {
		t.Fatalf("the simulated bank has %d attachments; the test needs a few", len(e.sim.Snapshot().Attachments))
	}
	return e
}

func (e *env) fetcher(opts receipts.Options) *receipts.Fetcher {
	opts.Dir = e.dir
	if opts.APIURL == "" {
		opts.APIURL = e.origin + "/api/v1"
	}
	return receipts.New(e.client, e.store, zerolog.Nop(), opts)
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// served is the file the bank serves for attachment id, through a fresh
// link.
func (e *env) served(t *testing.T, id string) []byte {
	t.Helper()
	a, err := e.client.Attachment(context.Background(), id)
	must(t, err)
	resp, err := http.Get(*a.FileURL)
	must(t, err)
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	must(t, err)
	if resp.StatusCode != http.StatusOK || len(b) == 0 {
		t.Fatalf("the bank served %d with %d bytes for %s", resp.StatusCode, len(b), id)
	}
	return b
}

// assertOnDisk checks every attachment of the bank has its file on disk,
// 0600, named by its SHA-256, byte-equal to what the bank serves.
func (e *env) assertOnDisk(t *testing.T) {
	t.Helper()
	atts := e.sim.Snapshot().Attachments
	for _, a := range atts {
		var path, sum string
		err := e.store.Reader().QueryRow("SELECT coalesce(local_path, ''), coalesce(local_sha256, '') FROM attachments WHERE id = ?", a.ID).Scan(&path, &sum)
		must(t, err)
		if path == "" {
			t.Errorf("attachment %s has no local file", a.ID)
			continue
		}
		got, err := os.ReadFile(path)
		must(t, err)
		want := e.served(t, a.ID)
		if string(got) != string(want) {
			t.Errorf("file of %s: %d bytes differ from the %d the bank serves", a.ID, len(got), len(want))
		}
		h := sha256.Sum256(got)
		if hex.EncodeToString(h[:]) != sum || filepath.Base(path) != sum+"."+a.FileExtension {
			t.Errorf("file of %s is %s with sha %s, not named by its content", a.ID, path, sum)
		}
		fi, err := os.Stat(path)
		must(t, err)
		if fi.Mode().Perm() != 0o600 {
			t.Errorf("file of %s has mode %v, want 0600", a.ID, fi.Mode().Perm())
		}
	}
	fi, err := os.Stat(e.dir)
	must(t, err)
	if fi.Mode().Perm() != 0o700 {
		t.Errorf("receipts directory has mode %v, want 0700", fi.Mode().Perm())
	}
	names, err := os.ReadDir(e.dir)
	must(t, err)
	for _, n := range names {
		if strings.HasPrefix(n.Name(), ".download-") {
			t.Errorf("temporary file left behind: %s", n.Name())
		}
	}
}

func TestFullSyncThenEveryReceiptOnDisk(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	_, err := replica.New(e.client, e.store, zerolog.Nop(), replica.Options{}).Full(ctx)
	must(t, err)
	r, err := e.fetcher(receipts.Options{}).Fetch(ctx)
	must(t, err)
	n := len(e.sim.Snapshot().Attachments)
	if r.Saved != n || r.Failed != 0 {
		t.Errorf("pass saved %d and failed %d, want %d saved", r.Saved, r.Failed, n)
	}
	if got := e.attachmentGETs.Load(); got != 0 {
		t.Errorf("fresh links were renewed: %d GET /attachments/{id}", got)
	}
	e.assertOnDisk(t)
	// A second pass has nothing to do.
	r, err = e.fetcher(receipts.Options{}).Fetch(ctx)
	must(t, err)
	if r != (receipts.Result{}) {
		t.Errorf("second pass did %+v, want nothing", r)
	}
}

// Links that expired before the download (the bank's clock moved on an
// hour) are renewed once each through GET /attachments/{id}.
func TestExpiredLinkIsRenewedOnce(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	_, err := replica.New(e.client, e.store, zerolog.Nop(), replica.Options{}).Full(ctx)
	must(t, err)
	e.sim.SetClock(e.sim.Now().Add(time.Hour), false)
	r, err := e.fetcher(receipts.Options{}).Fetch(ctx)
	must(t, err)
	n := len(e.sim.Snapshot().Attachments)
	if r.Saved != n {
		t.Errorf("saved %d of %d after the links expired", r.Saved, n)
	}
	if got := e.attachmentGETs.Load(); got != int64(n) {
		t.Errorf("%d link renewals for %d expired links, want one each", got, n)
	}
	e.assertOnDisk(t)
}

// An incremental sync does not list attachments; the transactions name
// them, and the fetcher fetches them so that their links do not wait a day
// for the full listing.
func TestAttachmentsNamedByTransactionsAreFetched(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	_, err := replica.New(e.client, e.store, zerolog.Nop(), replica.Options{}).Incremental(ctx)
	must(t, err)
	must(t, e.store.ReplaceAttachments(ctx, nil)) // as if never listed
	if n := mirrortest.Int(t, e.store.Reader(), "SELECT count(*) FROM attachments"); n != 0 {
		t.Fatalf("%d attachments before the pass", n)
	}
	r, err := e.fetcher(receipts.Options{}).Fetch(ctx)
	must(t, err)
	n := len(e.sim.Snapshot().Attachments)
	if r.Fetched != n || r.Saved != n {
		t.Errorf("pass %+v, want %d fetched and saved", r, n)
	}
	e.assertOnDisk(t)
}

// A file above the size limit is refused: nothing on disk, the failure
// recorded against the attachment, and after the last attempt it is left
// alone.
func TestFileAboveTheLimitIsRefused(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	_, err := replica.New(e.client, e.store, zerolog.Nop(), replica.Options{}).Full(ctx)
	must(t, err)
	n := len(e.sim.Snapshot().Attachments)
	f := e.fetcher(receipts.Options{MaxBytes: 16})
	for range store.MaxDownloadAttempts {
		r, err := f.Fetch(ctx)
		must(t, err)
		if r.Failed != n || r.Saved != 0 {
			t.Fatalf("pass %+v, want %d failed", r, n)
		}
	}
	r, err := f.Fetch(ctx)
	must(t, err)
	if r != (receipts.Result{}) {
		t.Errorf("pass after the last attempt did %+v, want nothing", r)
	}
	if got := mirrortest.Int(t, e.store.Reader(), `SELECT count(*) FROM attachments
		WHERE local_path IS NULL AND download_error LIKE '%limit%'`); got != n {
		t.Errorf("%d of %d attachments record the limit as their error", got, n)
	}
	names, err := os.ReadDir(e.dir)
	must(t, err)
	if len(names) != 0 {
		t.Errorf("files left in the receipts directory: %d", len(names))
	}
}

// A file host answering with another content type than the bank declared
// is refused.
func TestWrongContentTypeIsRefused(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	_, err := replica.New(e.client, e.store, zerolog.Nop(), replica.Options{}).Full(ctx)
	must(t, err)
	must(t, storeExec(e, "UPDATE attachments SET file_url = ?", e.origin+"/test/html"))
	r, err := e.fetcher(receipts.Options{}).Fetch(ctx)
	must(t, err)
	n := len(e.sim.Snapshot().Attachments)
	if r.Failed != n {
		t.Errorf("pass %+v, want %d refused", r, n)
	}
	if got := mirrortest.Int(t, e.store.Reader(), "SELECT count(*) FROM attachments WHERE download_error LIKE '%content type%'"); got != n {
		t.Errorf("%d of %d record the content type as their error", got, n)
	}
}

func storeExec(e *env, q string, args ...any) error {
	return e.store.InTx(context.Background(), func(tx *sql.Tx) error {
		_, err := tx.Exec(q, args...)
		return err
	})
}

// A download that fails in the network is the network's failure (the pass
// stops, no attempt counted), and its error does not carry the link's
// signature into the logs.
func TestNetworkFailureKeepsTheSignatureOut(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	_, err := replica.New(e.client, e.store, zerolog.Nop(), replica.Options{}).Full(ctx)
	must(t, err)
	dead := httptest.NewServer(http.NotFoundHandler())
	deadURL := dead.URL
	dead.Close() // connections to it are refused
	must(t, storeExec(e, "UPDATE attachments SET file_url = ?", deadURL+"/file?expires=1&signature=SECRETSIG"))
	// The dead host is the API's origin here, so its links are followed.
	_, err = e.fetcher(receipts.Options{APIURL: deadURL + "/api/v1"}).Fetch(ctx)
	if err == nil {
		t.Fatal("a refused connection did not stop the pass")
	}
	if strings.Contains(err.Error(), "SECRETSIG") {
		t.Errorf("the error carries the link's signature: %v", err)
	}
	if n := mirrortest.Int(t, e.store.Reader(), "SELECT count(*) FROM attachments WHERE download_attempts > 0"); n != 0 {
		t.Errorf("%d attachments had an attempt counted for the network's failure", n)
	}
}

// otherService is a service on the user's machine that a link must never
// reach; it counts the requests it gets.
type otherService struct {
	*httptest.Server
	hits atomic.Int64
}

func newOtherService(t *testing.T, tls bool) *otherService {
	t.Helper()
	o := &otherService{}
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		o.hits.Add(1)
		w.Header().Set("Content-Type", "image/png") // would pass the type check
		_, _ = io.WriteString(w, "\x89PNG\r\n\x1a\nsecret metrics")
	})
	if tls {
		o.Server = httptest.NewTLSServer(h)
	} else {
		o.Server = httptest.NewServer(h)
	}
	t.Cleanup(o.Close)
	return o
}

// Links that lead elsewhere than a receipt host each count against their
// own file: a plain-http service on loopback, a TLS one named localhost
// (refused when dialling), redirects from the API's origin to either, an
// HTML page, a file:// URL. The pass goes on, every other receipt is
// saved, no bad link reaches the other services, and the pass reports no
// error.
func TestBadLinksCountAgainstTheirFileOnly(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	_, err := replica.New(e.client, e.store, zerolog.Nop(), replica.Options{}).Full(ctx)
	must(t, err)
	plain, secure := newOtherService(t, false), newOtherService(t, true)
	securePort := secure.URL[strings.LastIndex(secure.URL, ":")+1:]
	bad := []struct{ link, reason string }{
		{plain.URL + "/metrics", "only https, or the bank API's own origin"},
		{"https://localhost:" + securePort + "/metrics", "loopback, private or link-local"},
		{e.origin + "/test/redirect?to=" + url.QueryEscape(plain.URL+"/healthz"), "redirect: download link refused"},
		{e.origin + "/test/redirect?to=" + url.QueryEscape("https://localhost:"+securePort+"/healthz"), "loopback, private or link-local"},
		{e.origin + "/test/html", `content type "text/html" is not a receipt's`},
		{"file:///etc/passwd", "only https, or the bank API's own origin"},
		{"https://127.0.0.1:" + securePort + "/metrics", "loopback, private or link-local"},
	}
	ids := mirrortest.Strings(t, e.store.Reader(), "SELECT id FROM attachments ORDER BY id")
	if len(ids) < len(bad)+3 {
		t.Fatalf("%d attachments; the test needs %d", len(ids), len(bad)+3)
	}
	// The bad links come first and spread among the others: the pass must
	// go on after each.
	badIDs := map[string]int{}
	for i := range bad {
		id := ids[i*len(ids)/len(bad)]
		badIDs[id] = i
		must(t, storeExec(e, "UPDATE attachments SET file_url = ? WHERE id = ?", bad[i].link, id))
	}
	r, err := e.fetcher(receipts.Options{}).Fetch(ctx)
	if err != nil {
		t.Fatalf("the pass failed: %v", err)
	}
	if r.Failed != len(bad) || r.Saved != len(ids)-len(bad) {
		t.Errorf("pass %+v, want %d saved and %d failed", r, len(ids)-len(bad), len(bad))
	}
	if n := plain.hits.Load() + secure.hits.Load(); n != 0 {
		t.Errorf("the services on loopback got %d requests", n)
	}
	for _, id := range ids {
		var path, derr string
		var attempts int
		must(t, e.store.Reader().QueryRow(`SELECT coalesce(local_path, ''), coalesce(download_error, ''), download_attempts
			FROM attachments WHERE id = ?`, id).Scan(&path, &derr, &attempts))
		i, isBad := badIDs[id]
		switch {
		case isBad && (path != "" || attempts != 1 || !strings.Contains(derr, bad[i].reason)):
			t.Errorf("%s: file %q, %d attempts, error %q; want none, 1, %q", bad[i].link, path, attempts, derr, bad[i].reason)
		case !isBad && (path == "" || attempts != 0):
			t.Errorf("attachment %s: file %q after %d attempts (%s)", id, path, attempts, derr)
		}
	}
}
