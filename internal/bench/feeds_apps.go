package bench

import (
	"bufio"
	"context"
	_ "embed"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	json "github.com/goccy/go-json"

	"github.com/bankmirror/bankmirror/internal/feeds/actual/actualserver"
)

// What differs per app in bench feeds: the app's budget, the feed's
// file, and the other client that watches for the rows.

// prepareActual starts the real sync-server with a counting proxy in
// front of it, makes a budget with the bank's accounts, and the feed's
// directory as `feeds setup` leaves it (the folder's @actual-app/api).
func (fb *feedsBench) prepareActual(ctx context.Context, accounts []string) error {
	srv, stop, err := actualserver.Launch(fb.actualDir)
	if err != nil {
		return err
	}
	fb.server = srv
	fb.stops = append(fb.stops, stop)
	if fb.proxy, err = startCountingProxy(srv.URL); err != nil {
		return err
	}
	fb.stops = append(fb.stops, fb.proxy.close)
	tmp := filepath.Join(fb.dir, "person")
	if err := os.MkdirAll(tmp, 0o700); err != nil {
		return err
	}
	var b actualserver.Budget
	if err := srv.Run(ctx, tmp, &b, append([]string{"budget", "Bench"}, accounts...)...); err != nil {
		return err
	}
	feedDir := filepath.Join(fb.dir, "feeds", fb.name)
	if err := os.MkdirAll(feedDir, 0o700); err != nil {
		return err
	}
	if err := os.Symlink(filepath.Join(fb.actualDir, "node_modules"), filepath.Join(feedDir, "node_modules")); err != nil {
		return err
	}
	fb.node = filepath.Join(fb.dir, "node")
	if err := fb.env.nodeStandIn(ctx, fb.node, actualserver.Node(fb.actualDir), fb.usage); err != nil {
		return err
	}
	if err := fb.feedsFile("actual", fb.proxy.url, "password_file", actualserver.Password, b.SyncID, accounts); err != nil {
		return err
	}
	r, err := startActualReader(ctx, srv, filepath.Join(fb.dir, "reader"), b.SyncID)
	if err != nil {
		return err
	}
	fb.reader = r
	fb.stops = append(fb.stops, r.stop)
	return nil
}

// prepareYNAB puts a counting proxy in front of the fake YNAB of the
// simulator and feeds the accounts its plan has.
func (fb *feedsBench) prepareYNAB(ctx context.Context, accounts []string) error {
	base, ok := strings.CutSuffix(fb.sim.ynabURL, "/v1")
	if !ok {
		return fmt.Errorf("fake YNAB at %q: want .../v1", fb.sim.ynabURL)
	}
	var err error
	if fb.proxy, err = startCountingProxy(base); err != nil {
		return err
	}
	fb.stops = append(fb.stops, fb.proxy.close)
	r := &ynabReader{url: fb.sim.ynabURL, token: fb.sim.ynabToken, proxy: fb.proxy, hc: &http.Client{}, seenIDs: map[string]bool{}}
	plan, have, err := r.plan(ctx)
	if err != nil {
		return err
	}
	r.planID = plan
	var fed []string
	for _, a := range accounts {
		if have[a] {
			fed = append(fed, a)
		}
	}
	if len(fed) == 0 {
		return fmt.Errorf("the fake YNAB's plan has none of the bank's accounts %q", accounts)
	}
	fb.reader = r
	return fb.feedsFile("ynab", fb.proxy.url+"/v1", "token_file", fb.sim.ynabToken, "Household", fed)
}

//go:embed feeds_reader.js
var actualReaderJS []byte

// actualReader is a second @actual-app/api client (feeds_reader.js).
type actualReader struct {
	cmd   *exec.Cmd
	in    io.WriteCloser
	lines chan string // its answers (BENCH-...), closed when it ends
}

// startActualReader starts the reader in dir and waits until it has
// loaded the budget.
func startActualReader(ctx context.Context, srv *actualserver.Server, dir, syncID string) (*actualReader, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, err
	}
	script := filepath.Join(dir, "feeds_reader.cjs")
	if err := os.WriteFile(script, actualReaderJS, 0o600); err != nil {
		return nil, err
	}
	cmd := exec.Command(srv.Node(), script, filepath.Join(dir, "data"), srv.URL, actualserver.Password, syncID) //nolint:gosec,noctx // the Actual folder's node on our script; stop ends it
	cmd.Env = append(os.Environ(), "NODE_PATH="+filepath.Join(srv.Dir, "node_modules"))
	in, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	var stderr actualserver.LockedBuffer
	cmd.Stderr = &stderr
	dieWithParent(cmd)
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("start the reader: %w", err)
	}
	r := &actualReader{cmd: cmd, in: in, lines: make(chan string, 16)}
	go func() {
		defer close(r.lines)
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			if line := sc.Text(); strings.HasPrefix(line, "BENCH-") {
				r.lines <- line
			}
		}
	}()
	for {
		select {
		case <-ctx.Done():
			r.stop()
			return nil, ctx.Err()
		case line, ok := <-r.lines:
			if !ok {
				r.stop()
				return nil, fmt.Errorf("the reader ended: %s", lastLines(stderr.String(), 10))
			}
			if line == "BENCH-READY" {
				return r, nil
			}
		}
	}
}

func (r *actualReader) mark(context.Context) error { return nil }

func (r *actualReader) seen(ctx context.Context, id string) error {
	if _, err := io.WriteString(r.in, id+"\n"); err != nil {
		return fmt.Errorf("reader: %w", err)
	}
	for {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case line, ok := <-r.lines:
			if !ok {
				return errors.New("the reader ended")
			}
			if line == "BENCH-SEEN "+id {
				return nil
			}
		}
	}
}

// stop ends the reader: its input closed, it shuts the API down.
func (r *actualReader) stop() {
	_ = r.in.Close()
	for range r.lines {
	}
	_ = r.cmd.Wait()
}

// ynabReader reads the fake YNAB as another client would, with the
// feed's token (its requests count against the same hourly budget, so it
// reads only after each write of the feed the proxy saw).
type ynabReader struct {
	url, token string
	planID     string
	proxy      *countingProxy
	hc         *http.Client
	knowledge  int64
	writes     int64
	seenIDs    map[string]bool
}

func (r *ynabReader) get(ctx context.Context, path string, out any) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, r.url+path, nil)
	if err != nil {
		return err
	}
	req.Header.Set("Authorization", "Bearer "+r.token)
	resp, err := r.hc.Do(req)
	if err != nil {
		return fmt.Errorf("ynab reader: %w", err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		return fmt.Errorf("ynab reader: %w", err)
	}
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("ynab reader: GET %s: %d %s", path, resp.StatusCode, b)
	}
	return json.Unmarshal(b, out)
}

// plan finds the plan "Household" and its accounts' names.
func (r *ynabReader) plan(ctx context.Context) (string, map[string]bool, error) {
	var doc struct {
		Data struct {
			Plans []struct {
				ID       string `json:"id"`
				Name     string `json:"name"`
				Accounts []struct {
					Name string `json:"name"`
				} `json:"accounts"`
			} `json:"plans"`
		} `json:"data"`
	}
	if err := r.get(ctx, "/plans?include_accounts=true", &doc); err != nil {
		return "", nil, err
	}
	for _, p := range doc.Data.Plans {
		if p.Name == "Household" {
			have := map[string]bool{}
			for _, a := range p.Accounts {
				have[a.Name] = true
			}
			return p.ID, have, nil
		}
	}
	return "", nil, errors.New("the fake YNAB has no plan Household")
}

// look reads what changed since the last look.
func (r *ynabReader) look(ctx context.Context) error {
	q := url.Values{"since_date": {"2000-01-01"}}
	if r.knowledge > 0 {
		q.Set("last_knowledge_of_server", fmt.Sprint(r.knowledge))
	}
	var doc struct {
		Data struct {
			Transactions []struct {
				ImportID *string `json:"import_id"`
				Deleted  bool    `json:"deleted"`
			} `json:"transactions"`
			ServerKnowledge int64 `json:"server_knowledge"`
		} `json:"data"`
	}
	if err := r.get(ctx, "/plans/"+r.planID+"/transactions?"+q.Encode(), &doc); err != nil {
		return err
	}
	for _, t := range doc.Data.Transactions {
		if t.ImportID != nil {
			r.seenIDs[*t.ImportID] = !t.Deleted
		}
	}
	r.knowledge = doc.Data.ServerKnowledge
	return nil
}

// mark reads where the plan stands (once: later looks read deltas).
func (r *ynabReader) mark(ctx context.Context) error {
	if r.knowledge > 0 {
		return nil
	}
	return r.look(ctx)
}

func (r *ynabReader) seen(ctx context.Context, id string) error {
	for {
		_, writes := r.proxy.count()
		if writes > r.writes {
			r.writes = writes
			if err := r.look(ctx); err != nil {
				return err
			}
		}
		if r.seenIDs[id] {
			return nil
		}
		if _, err := r.proxy.waitWrite(ctx, r.writes); err != nil {
			return err
		}
	}
}
