// Package actual feeds Actual Budget. Actual has no REST API: its official
// client, @actual-app/api, keeps a local copy of the budget and syncs it
// with the server, and must be the server's exact version. A session runs
// it in a Node child process (client.js, embedded) from the feed's
// directory, where Setup installed it; the child speaks line-delimited
// JSON on fds 3 and 4, since the API logs to stdout.
package actual

import (
	"context"
	"errors"
	"fmt"
	"os/exec"
	"path/filepath"
	"time"

	"github.com/rs/zerolog"

	"github.com/bankmirror/bankmirror/internal/feeds"
	"github.com/bankmirror/bankmirror/internal/logfield"
)

// Config configures the Actual app kind.
type Config struct {
	// Node is the node binary (BANKMIRROR_NODE); "" for node on PATH.
	Node string
}

// Opener opens sessions with Actual servers.
type Opener struct {
	node string
}

var _ feeds.Opener = (*Opener)(nil)

// New returns the Actual app kind.
func New(cfg Config) *Opener {
	node := cfg.Node
	if node == "" {
		node = "node"
	}
	return &Opener{node: node}
}

// errDirBusy is a feed directory whose lock another child still holds.
var errDirBusy = errors.New("another actual client is still using the feed's directory")

// Pace is 0: an Actual server has no request budget.
func (o *Opener) Pace() time.Duration { return 0 }

// Open starts the client in target.Dir, logs in to target.URL and loads
// the budget (its local copy in <Dir>/data, synced with the server).
func (o *Opener) Open(ctx context.Context, target feeds.Target) (feeds.Session, error) {
	mendSetup := "bankmirror feeds setup " + target.Feed
	log := target.Log.With().Str(logfield.Component, "actual").Logger()
	c, h, err := startChild(ctx, o.node, target.Dir, log)
	if err != nil {
		var ce *childError
		switch {
		case errors.As(err, &ce), ctx.Err() != nil:
			return nil, err
		case errors.Is(err, errDirBusy):
			return nil, &feeds.Unavailable{Err: fmt.Errorf("start actual client: %w", err),
				Mend: "wait for the other push of feed " + target.Feed + " (bankmirror feeds status), or stop the process that holds " + target.Dir}
		}
		return nil, &feeds.Unavailable{Err: fmt.Errorf("start actual client: %w", err), Mend: mendNode}
	}
	s := &session{c: c, log: log}
	fail := func(err error) (feeds.Session, error) {
		_ = c.kill()
		return nil, err
	}
	node := o.node
	if p, err := exec.LookPath(node); err == nil {
		node = p // "node" names the one on PATH
	}
	if err := checkNodeVersion(node, h.Node); err != nil {
		return fail(err)
	}
	if h.API == "" {
		return fail(&feeds.Unavailable{Err: fmt.Errorf("@actual-app/api is not installed in %s", target.Dir), Mend: mendSetup})
	}
	var opened struct {
		SyncID string `json:"syncId"`
		Name   string `json:"name"`
		Server string `json:"server"`
	}
	err = c.call(ctx, "open", map[string]string{
		"dataDir":   filepath.Join(target.Dir, "data"),
		"serverURL": target.URL,
		"password":  target.Secret,
		"budget":    target.Budget,
	}, &opened)
	if err != nil {
		return fail(classify(err, mendSetup))
	}
	log.Debug().Str(logfield.ToVersion, opened.Server).Msg("actual budget loaded")
	return s, nil
}

// classify turns the child's error codes into the engine's errors: what
// a later round or a command mends is a *feeds.Unavailable.
func classify(err error, mendSetup string) error {
	var ce *childError
	if !errors.As(err, &ce) {
		return &feeds.Unavailable{Err: err}
	}
	switch ce.Code {
	case "unavailable":
		return &feeds.Unavailable{Err: fmt.Errorf("actual server unreachable: %w", err)}
	case "bad-password":
		return &feeds.Unavailable{Err: err, Mend: "put the actual server's password in the feed's password_file"}
	case "not-actual":
		return &feeds.Unavailable{Err: err, Mend: "set the feed's url to the actual server's address, the one its web page opens at"}
	case "not-installed", "version-mismatch":
		return &feeds.Unavailable{Err: err, Mend: mendSetup}
	case "node-too-old":
		return &feeds.Unavailable{Err: err, Mend: mendNode}
	case "budget-not-found":
		return fmt.Errorf("%w: %w", ErrBudgetNotFound, err)
	case "missing-account":
		return fmt.Errorf("%w: %w", ErrMissingAccount, err)
	}
	return err
}

// ErrBudgetNotFound is a budget the server does not have (or has more
// than one of by that name); the error names the candidates.
var ErrBudgetNotFound = errors.New("budget not found")

// ErrMissingAccount is a write to an account the budget does not have
// (or has closed); nothing of the batch was written.
var ErrMissingAccount = errors.New("account not in budget")

// session is one child, from Open to Close.
type session struct {
	c   *child
	log zerolog.Logger
	// peak is the child's peak RSS in bytes and cpu the CPU time it used,
	// read at Close.
	peak int64
	cpu  time.Duration
}

var _ feeds.Session = (*session)(nil)

func (s *session) do(ctx context.Context, op string, args, out any) error {
	if err := s.c.call(ctx, op, args, out); err != nil {
		return classify(err, "")
	}
	return nil
}

func (s *session) Accounts(ctx context.Context) ([]feeds.Account, error) {
	var out []struct {
		ID   string `json:"id"`
		Name string `json:"name"`
	}
	if err := s.do(ctx, "accounts", nil, &out); err != nil {
		return nil, err
	}
	accts := make([]feeds.Account, len(out))
	for i, a := range out {
		accts[i] = feeds.Account{ID: a.ID, Name: a.Name}
	}
	return accts, nil
}

func (s *session) Categories(ctx context.Context) ([]feeds.Category, error) {
	var out []struct {
		ID    string `json:"id"`
		Name  string `json:"name"`
		Group string `json:"group"`
	}
	if err := s.do(ctx, "categories", nil, &out); err != nil {
		return nil, err
	}
	cats := make([]feeds.Category, len(out))
	for i, c := range out {
		cats[i] = feeds.Category{ID: c.ID, Name: c.Name, Group: c.Group}
	}
	return cats, nil
}

// appRow is a row as client.js sends it.
type appRow struct {
	ID         string `json:"id"`
	Account    string `json:"account"`
	ImportID   string `json:"importId"`
	Date       string `json:"date"`
	Amount     int64  `json:"amount"`
	Cleared    bool   `json:"cleared"`
	Reconciled bool   `json:"reconciled"`
	TransferID string `json:"transferId"`
	Payee      string `json:"payee"`
	Category   string `json:"category"`
	Notes      string `json:"notes"`
}

func (s *session) Rows(ctx context.Context, accounts []string, since string) ([]feeds.AppRow, error) {
	var out []appRow
	if err := s.do(ctx, "rows", map[string]any{"accounts": accounts, "since": since}, &out); err != nil {
		return nil, err
	}
	rows := make([]feeds.AppRow, len(out))
	for i, r := range out {
		rows[i] = feeds.AppRow(r)
	}
	return rows, nil
}

// newRow is a feeds.NewRow as client.js reads it.
type newRow struct {
	ImportID         string `json:"importId"`
	Account          string `json:"account"`
	Date             string `json:"date"`
	Amount           int64  `json:"amount"`
	Cleared          bool   `json:"cleared"`
	Payee            string `json:"payee"`
	Notes            string `json:"notes"`
	Category         string `json:"category"`
	TransferAccount  string `json:"transferAccount"`
	TransferImportID string `json:"transferImportId"`
	TransferCleared  bool   `json:"transferCleared"`
}

// Create adds the rows that are not in the budget yet (a row the person
// deleted counts as there: it is not put back, and its id is returned),
// after checking every account exists. Transfers are made with the
// other account's transfer payee; the other leg the app makes then gets
// its own import id and cleared.
func (s *session) Create(ctx context.Context, rows []feeds.NewRow) (map[string]string, error) {
	in := make([]newRow, len(rows))
	for i, r := range rows {
		in[i] = newRow(r)
	}
	out := map[string]string{}
	if err := s.do(ctx, "create", map[string]any{"rows": in}, &out); err != nil {
		return nil, err
	}
	return out, nil
}

// facts is a feeds.Facts as client.js reads it.
type facts struct {
	ID      string `json:"id"`
	Date    string `json:"date"`
	Amount  int64  `json:"amount"`
	Cleared bool   `json:"cleared"`
}

// Update sets amount, date and cleared where they differ, except on a
// reconciled row or one the person deleted, which are left as they are.
// Each leg of a transfer takes its own facts.
func (s *session) Update(ctx context.Context, fs []feeds.Facts) error {
	in := make([]facts, len(fs))
	for i, f := range fs {
		in[i] = facts(f)
	}
	return s.do(ctx, "update", map[string]any{"facts": in}, nil)
}

// Delete removes the rows and the other legs of transfers among them.
func (s *session) Delete(ctx context.Context, ids []string) error {
	return s.do(ctx, "delete", map[string]any{"ids": ids}, nil)
}

// Link links pairs of rows as one transfer each, as Actual does: each
// row's payee is the other account's transfer payee and its transfer_id
// the other row; each keeps its import id and cleared. Row ids do not
// change.
func (s *session) Link(ctx context.Context, links []feeds.Link) (map[string]string, error) {
	type pair struct {
		ID      string `json:"id"`
		OtherID string `json:"otherId"`
	}
	in := make([]pair, len(links))
	for i, l := range links {
		in[i] = pair{l.ID, l.OtherID}
	}
	if err := s.do(ctx, "link", map[string]any{"pairs": in}, nil); err != nil {
		return nil, err
	}
	return map[string]string{}, nil
}

// Sync syncs what was written since the last sync with the server
// (trying twice).
func (s *session) Sync(ctx context.Context) error {
	return s.do(ctx, "sync", nil, nil)
}

// Close syncs what was written with the server (trying twice), shuts the
// API down and ends the child.
func (s *session) Close(ctx context.Context) error {
	err := s.do(ctx, "close", nil, nil)
	s.peak, s.cpu = s.c.peakRSS(), s.c.cpuTime()
	if eerr := s.c.end(ctx); err == nil && eerr != nil {
		err = fmt.Errorf("end actual client: %w", eerr)
	}
	s.log.Debug().Int64(logfield.Bytes, s.peak).Msg("actual client ended: its peak rss")
	if err != nil {
		return fmt.Errorf("close actual session: %w", err)
	}
	return nil
}
