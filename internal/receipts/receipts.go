// Package receipts keeps the files of attachments (receipts) on disk. The
// bank links each attachment's file through a URL that expires in minutes,
// so a file is downloaded right after its attachment is seen, checked
// against a size limit and by its content (types.go: only JPEG, PNG, GIF,
// WebP, HEIC/HEIF and PDF, as the bank declared), and written 0600 under a
// content-addressed name (its SHA-256 and its type's extension) in one
// directory; the path goes to attachments.local_path. A link that expired
// first is renewed once through GET /attachments/{id}. Links are followed
// only where a receipt can be (guard.go). Open opens a kept file for
// serving, checked against its name.
package receipts

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/rs/zerolog"

	"github.com/bankmirror/bankmirror/internal/bank"
	"github.com/bankmirror/bankmirror/internal/logfield"
	"github.com/bankmirror/bankmirror/internal/ptr"
	"github.com/bankmirror/bankmirror/internal/store"
)

// DefaultMaxBytes is the default size limit of one file.
const DefaultMaxBytes = 20 << 20

const (
	batch = 100
	// renewBefore is how long before its expiry a link is renewed rather
	// than used.
	renewBefore = 30 * time.Second
)

// Bank is what the fetcher asks of the bank.
type Bank interface {
	Attachment(ctx context.Context, id string) (bank.Attachment, error)
}

// Store is what the fetcher needs of the mirror.
type Store interface {
	UnlistedAttachments(ctx context.Context, n int) ([]string, error)
	PendingReceipts(ctx context.Context, after string, n int) ([]store.PendingReceipt, error)
	UpsertAttachment(ctx context.Context, a bank.Attachment) error
	SaveReceipt(ctx context.Context, id, path, sha256 string) error
	ReceiptFailed(ctx context.Context, id string, cause error) error
}

var _ Store = (*store.Store)(nil)

// Options configures a Fetcher.
type Options struct {
	Dir      string // where files are written; created 0700 if missing
	MaxBytes int64  // DefaultMaxBytes when <= 0
	// APIURL is the bank API's base URL. Files are downloaded over https,
	// or from this URL's origin (scheme and host), which is where the
	// simulated bank serves them; "" allows https only.
	APIURL string
	// HTTP downloads the files. It never carries the bank's token (the
	// links are signed). When nil, a client with a 1-minute timeout that
	// refuses to connect to loopback, private and link-local addresses
	// (the API's host and configured proxies excepted) and checks every
	// redirect as it checks links.
	HTTP *http.Client
	Now  func() time.Time
	// OnPass, if set, is called by Run after each pass (tests watch it).
	OnPass func(Result, error)
}

// Result counts what one pass did.
type Result struct {
	Fetched, Saved, Failed int
}

// Fetcher downloads receipts.
type Fetcher struct {
	bank  Bank
	st    Store
	log   zerolog.Logger
	opts  Options
	guard *guard
	wake  chan struct{}

	mu      sync.Mutex
	missing map[string]bool // attachments the bank answered 404 for
}

// New returns a Fetcher; Run or Fetch use it. It warns when the directory
// exists open to other users (WarnIfOpen).
func New(b Bank, st Store, log zerolog.Logger, opts Options) *Fetcher {
	if opts.MaxBytes <= 0 {
		opts.MaxBytes = DefaultMaxBytes
	}
	g := newGuard(opts.APIURL)
	if opts.HTTP == nil {
		opts.HTTP = g.client()
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	log = log.With().Str(logfield.Component, "receipts").Logger()
	WarnIfOpen(log, opts.Dir)
	return &Fetcher{bank: b, st: st, log: log, opts: opts, guard: g, wake: make(chan struct{}, 1), missing: map[string]bool{}}
}

// Notify asks a running fetcher for a pass soon (new attachments may have
// been seen). It never blocks.
func (f *Fetcher) Notify() {
	select {
	case f.wake <- struct{}{}:
	default:
	}
}

// Run makes a pass at start and after every Notify until ctx ends. A pass
// the bank cannot serve (its budget, an outage) is retried at the next.
func (f *Fetcher) Run(ctx context.Context) {
	f.Notify()
	for {
		select {
		case <-ctx.Done():
			return
		case <-f.wake:
		}
		r, err := f.Fetch(ctx)
		if f.opts.OnPass != nil {
			f.opts.OnPass(r, err)
		}
		switch {
		case ctx.Err() != nil:
			return
		case err != nil:
			f.log.Warn().Err(err).Msg("receipts pass stopped; retried after the next sync")
		case r.Saved+r.Failed > 0:
			f.log.Info().Int(logfield.Saved, r.Saved).Int(logfield.Failed, r.Failed).Msg("receipts downloaded")
		}
	}
}

// Fetch makes one pass: it fetches the attachments transactions name that
// the mirror lacks, then downloads every file not on disk yet. A file's own
// failure (its link refused, a refused address, the wrong type, too large)
// counts against it (store.MaxDownloadAttempts) and the pass goes on; the
// bank's or the network's failure ends the pass with the error.
func (f *Fetcher) Fetch(ctx context.Context) (Result, error) {
	var r Result
	ctx = bank.WithLane(ctx, bank.LaneIncremental)
	if err := os.MkdirAll(f.opts.Dir, 0o700); err != nil {
		return r, fmt.Errorf("receipts directory: %w", err)
	}
	if err := f.fetchUnlisted(ctx, &r); err != nil {
		return r, err
	}
	after := ""
	for {
		pending, err := f.st.PendingReceipts(ctx, after, batch)
		if err != nil {
			return r, err
		}
		if len(pending) == 0 {
			return r, nil
		}
		for _, p := range pending {
			after = p.ID
			err := f.download(ctx, p)
			var bad *badFile
			switch {
			case err == nil:
				r.Saved++
			case ctx.Err() != nil:
				return r, ctx.Err()
			case !errors.As(err, &bad):
				return r, err // the bank's or the network's: next pass
			default:
				r.Failed++
				f.log.Warn().Str(logfield.AttachmentID, p.ID).Err(err).Msg("receipt not downloaded")
				if ferr := f.st.ReceiptFailed(ctx, p.ID, err); ferr != nil {
					return r, ferr
				}
			}
		}
	}
}

// fetchUnlisted stores the attachments transactions name but the mirror
// has not listed yet (the full listing runs daily; a receipt's link does
// not last that long).
func (f *Fetcher) fetchUnlisted(ctx context.Context, r *Result) error {
	ids, err := f.st.UnlistedAttachments(ctx, 1000)
	if err != nil {
		return err
	}
	for _, id := range ids {
		f.mu.Lock()
		gone := f.missing[id]
		f.mu.Unlock()
		if gone {
			continue
		}
		a, err := f.bank.Attachment(ctx, id)
		if errors.Is(err, bank.ErrNotFound) {
			f.mu.Lock()
			f.missing[id] = true
			f.mu.Unlock()
			continue
		}
		if err != nil {
			return err
		}
		if err := f.st.UpsertAttachment(ctx, a); err != nil {
			return err
		}
		r.Fetched++
	}
	return nil
}

// errExpired is a link the file host refused (expired or no longer valid).
var errExpired = errors.New("download link refused")

// badFile is a download's own failure (not the network's): a refused link
// or address, a refused or missing file, the wrong type, too large. It
// counts against the attachment's attempts.
type badFile struct{ err error }

func (e *badFile) Error() string { return e.err.Error() }
func (e *badFile) Unwrap() error { return e.err }

func fileErr(format string, args ...any) error { return &badFile{fmt.Errorf(format, args...)} }

// download saves p's file, renewing its link once if it expired.
func (f *Fetcher) download(ctx context.Context, p store.PendingReceipt) error {
	renewed := false
	renew := func() error {
		a, err := f.bank.Attachment(ctx, p.ID)
		if errors.Is(err, bank.ErrNotFound) {
			return &badFile{err} // gone at the bank; the full listing removes it
		}
		if err != nil {
			return err
		}
		if err := f.st.UpsertAttachment(ctx, a); err != nil {
			return err
		}
		p.FileURL, p.FileURLExpiresAt = ptr.Value(a.FileURL), a.FileURLExpiresAt
		p.FileExtension, p.ContentType = ptr.Value(a.FileExtension), ptr.Value(a.FileContentType)
		renewed = true
		return nil
	}
	if p.FileURL == "" || f.expiresSoon(p.FileURLExpiresAt) {
		if err := renew(); err != nil {
			return err
		}
	}
	if p.FileURL == "" {
		return fileErr("the bank gives no download link")
	}
	path, sum, err := f.save(ctx, p)
	if errors.Is(err, errExpired) && !renewed {
		if err := renew(); err != nil {
			return err
		}
		path, sum, err = f.save(ctx, p)
	}
	if err != nil {
		return err
	}
	return f.st.SaveReceipt(ctx, p.ID, path, sum)
}

func (f *Fetcher) expiresSoon(at string) bool {
	t, err := time.Parse(time.RFC3339, at)
	return err != nil || !f.opts.Now().Add(renewBefore).Before(t)
}

// save downloads p's file into the directory under its content's name.
func (f *Fetcher) save(ctx context.Context, p store.PendingReceipt) (path, sum string, err error) {
	if !receiptType(p.ContentType) {
		return "", "", fileErr("the bank declared content type %q, not a receipt's (%s)", p.ContentType, keptTypeList)
	}
	link, err := url.Parse(p.FileURL)
	if err != nil {
		return "", "", fileErr("download link does not parse")
	}
	if err := f.guard.checkLink(link); err != nil {
		return "", "", &badFile{fmt.Errorf("download: %w", err)}
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, link.String(), nil)
	if err != nil {
		return "", "", fileErr("download link: %w", err)
	}
	resp, err := f.opts.HTTP.Do(req)
	if err != nil {
		// The error names the URL, whose query is the link's signature:
		// keep it out of the logs.
		var ue *url.Error
		if errors.As(err, &ue) {
			ue.URL = withoutQuery(ue.URL)
		}
		if linkFailure(err) {
			return "", "", &badFile{fmt.Errorf("download: %w", err)}
		}
		return "", "", fmt.Errorf("download: %w", err)
	}
	defer resp.Body.Close()
	switch {
	case resp.StatusCode == http.StatusForbidden:
		return "", "", fileErr("download: status %d: %w", resp.StatusCode, errExpired)
	case resp.StatusCode >= 500:
		return "", "", fmt.Errorf("download: status %d", resp.StatusCode) // the host's: next pass
	case resp.StatusCode != http.StatusOK:
		return "", "", fileErr("download: status %d", resp.StatusCode)
	}
	got, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type"))
	if !receiptType(got) {
		return "", "", fileErr("download: content type %q is not a receipt's (%s)", got, keptTypeList)
	}
	if got != p.ContentType {
		return "", "", fileErr("download: content type %q, the bank declared %q", got, p.ContentType)
	}
	if resp.ContentLength > f.opts.MaxBytes {
		return "", "", fileErr("download: %d bytes, above the limit of %d", resp.ContentLength, f.opts.MaxBytes)
	}
	tmp, err := os.CreateTemp(f.opts.Dir, ".download-*")
	if err != nil {
		return "", "", fmt.Errorf("receipt file: %w", err)
	}
	defer func() {
		if err != nil {
			_ = tmp.Close()
			_ = os.Remove(tmp.Name())
		}
	}()
	h := sha256.New()
	head := &sniffer{}
	n, err := io.Copy(io.MultiWriter(tmp, h, head), io.LimitReader(resp.Body, f.opts.MaxBytes+1))
	if err != nil {
		return "", "", fmt.Errorf("download: %w", err)
	}
	if n > f.opts.MaxBytes {
		return "", "", fileErr("download: larger than the limit of %d bytes", f.opts.MaxBytes)
	}
	ext, err := checkContent(head.buf, p.ContentType)
	if err != nil {
		return "", "", err
	}
	if err := tmp.Sync(); err != nil {
		return "", "", fmt.Errorf("receipt file: %w", err)
	}
	if err := tmp.Close(); err != nil {
		return "", "", fmt.Errorf("receipt file: %w", err)
	}
	sum = hex.EncodeToString(h.Sum(nil))
	path = filepath.Join(f.opts.Dir, sum+"."+ext)
	if err := os.Rename(tmp.Name(), path); err != nil {
		return "", "", fmt.Errorf("receipt file: %w", err)
	}
	if d, derr := os.Open(f.opts.Dir); derr == nil {
		_ = d.Sync() // the rename survives a crash
		_ = d.Close()
	}
	return path, sum, nil
}

// withoutQuery is raw without its query (a signed link's signature).
func withoutQuery(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return "(download link)"
	}
	u.RawQuery = ""
	return u.String()
}

// sniffer keeps the first 512 bytes written to it, for content sniffing.
type sniffer struct{ buf []byte }

func (s *sniffer) Write(p []byte) (int, error) {
	if room := 512 - len(s.buf); room > 0 {
		s.buf = append(s.buf, p[:min(room, len(p))]...)
	}
	return len(p), nil
}

// checkContent refuses a file whose bytes are not of a kept type
// (contentType), or not of the type the bank declared, and returns the
// extension the file is named with: its type's, never the bank's.
func checkContent(head []byte, declared string) (ext string, err error) {
	got := contentType(head)
	ext, ok := keptTypes[got]
	if !ok {
		return "", fileErr("download: the file is %s, not a receipt's (%s)", got, keptTypeList)
	}
	if got != declared {
		return "", fileErr("download: the file is %s, the bank declared %s", got, declared)
	}
	return ext, nil
}
