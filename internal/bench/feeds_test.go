package bench

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// The proxy in front of an app counts every request, and wakes who waits
// for a write only when one that writes succeeded.
func TestCountingProxy(t *testing.T) {
	app := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/ynab/v1/plans" {
			http.Error(w, "wrong path "+r.URL.Path, http.StatusNotFound)
			return
		}
		if r.URL.Query().Get("fail") != "" {
			http.Error(w, "no", http.StatusBadRequest)
			return
		}
		_, _ = io.WriteString(w, "ok")
	}))
	defer app.Close()
	p, err := startCountingProxy(app.URL + "/ynab")
	if err != nil {
		t.Fatal(err)
	}
	defer p.close()
	do := func(method, query string) int {
		t.Helper()
		req, err := http.NewRequestWithContext(t.Context(), method, p.url+"/v1/plans"+query, strings.NewReader("{}"))
		if err != nil {
			t.Fatal(err)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		return resp.StatusCode
	}
	if code := do(http.MethodGet, ""); code != http.StatusOK {
		t.Fatalf("GET through the proxy: %d", code)
	}
	if code := do(http.MethodPost, "?fail=1"); code != http.StatusBadRequest {
		t.Fatalf("failing POST through the proxy: %d", code)
	}
	if req, writes := p.count(); req != 2 || writes != 0 {
		t.Fatalf("after a GET and a failed POST: %d requests, %d writes; want 2, 0", req, writes)
	}
	woke := make(chan int64, 1)
	go func() {
		n, _ := p.waitWrite(context.Background(), 0)
		woke <- n
	}()
	if code := do(http.MethodPatch, ""); code != http.StatusOK {
		t.Fatalf("PATCH through the proxy: %d", code)
	}
	if n := <-woke; n != 1 {
		t.Fatalf("woken at %d writes, want 1", n)
	}
	if req, writes := p.count(); req != 3 || writes != 1 {
		t.Fatalf("%d requests, %d writes; want 3, 1", req, writes)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Millisecond)
	defer cancel()
	if _, err := p.waitWrite(ctx, 1); err == nil {
		t.Fatal("waitWrite returned with no new write")
	}
}

// The stand-in for node runs the real one with its arguments, passes it
// its exit code and records one line of use per run; the script that
// calls it adds what env.Command adds and has the stand-in drop it.
func TestNodeStandIn(t *testing.T) {
	dir := t.TempDir()
	usage := filepath.Join(dir, "usage.jsonl")
	for i, c := range []struct {
		args []string
		code int
	}{{[]string{"-c", "exit 0"}, 0}, {[]string{"-c", "exit 3"}, 3}} {
		code, err := NodeWrap(NodeWrapOptions{Node: "/bin/sh", Usage: usage, Args: c.args})
		if err != nil || code != c.code {
			t.Fatalf("run %d: code %d, %v; want %d", i, code, err, c.code)
		}
	}
	uses, err := readNodeUse(usage, 1)
	if err != nil || len(uses) != 1 || uses[0].ExitCode != 3 || uses[0].Script != "-c" {
		t.Fatalf("usage from the second line: %+v, %v", uses, err)
	}

	env := Env{Command: func(ctx context.Context, args ...string) (*exec.Cmd, error) {
		cmd := exec.CommandContext(ctx, "/usr/bin/env", append([]string{"marker"}, args...)...)
		cmd.Env = append(os.Environ(), "BENCH_TEST_MARKER=1")
		return cmd, nil
	}}
	script := filepath.Join(dir, "node")
	if err := env.nodeStandIn(t.Context(), script, "/real/node", usage); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(script)
	if err != nil {
		t.Fatal(err)
	}
	want := "#!/bin/sh\nexec env 'BENCH_TEST_MARKER=1' '/usr/bin/env' 'marker' 'bench' 'feeds' '--node-wrap' '" + usage +
		"' '--node' '/real/node' --drop 'BENCH_TEST_MARKER' -- \"$@\"\n"
	if string(b) != want {
		t.Fatalf("stand-in script:\n%s\nwant:\n%s", b, want)
	}
}
