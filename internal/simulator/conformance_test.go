package simulator

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// conformanceDir holds the npm suite (package.json, run.js).
const conformanceDir = "../../conformance"

// TestConformanceUpBankAPI runs the npm client up-bank-api 1.5.2 through
// conformance/run.js against the bank, with links written for the
// production prefix; every response the client sees passes through a proxy
// that validates it against the OpenAPI document. The script checks each
// result against the bank's record. It needs node and `npm ci` in
// conformance/ (.ci/run does both) and is skipped without them.
func TestConformanceUpBankAPI(t *testing.T) {
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("node is not installed")
	}
	if _, err := os.Stat(filepath.Join(conformanceDir, "node_modules", "up-bank-api")); err != nil {
		t.Skip("run `npm ci` in conformance/ first")
	}
	bank := New(Options{Seed: 1, Transactions: 300, Now: fixedClock, PublicURL: upServer,
		WebhookRetryBase: time.Millisecond, WebhookRetryMax: time.Millisecond})
	t.Cleanup(bank.Close)
	backend := httptest.NewServer(bank.Handler())
	t.Cleanup(backend.Close)
	var validated atomic.Int64
	proxy := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		raw, _ := io.ReadAll(r.Body)
		out, _ := http.NewRequestWithContext(r.Context(), r.Method, backend.URL+r.URL.RequestURI(), bytes.NewReader(raw))
		out.Header = r.Header.Clone()
		resp := roundTrip(t, out)
		if strings.HasPrefix(r.URL.Path, apiPrefix+"/") {
			var body []byte
			if len(raw) > 0 {
				body = raw
			}
			validateResponse(t, r, body, resp)
			validated.Add(1)
		}
		for k, v := range resp.header {
			w.Header()[k] = v
		}
		w.WriteHeader(resp.status)
		_, _ = w.Write(resp.body)
	}))
	t.Cleanup(proxy.Close)

	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, node, "run.js")
	cmd.Dir = conformanceDir
	cmd.Env = append(os.Environ(),
		"SIM_API_URL="+proxy.URL+apiPrefix, "SIM_TOKEN="+bank.Token(),
		"SIM_CONTROL_URL="+proxy.URL+controlPrefix, "SIM_CONTROL_TOKEN="+bank.ControlToken())
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Errorf("run.js: %v", err)
	}
	last := regexp.MustCompile(`(?m)^(\d+) passed, (\d+) failed$`).FindSubmatch(out)
	if last == nil || string(last[2]) != "0" || string(last[1]) == "0" {
		t.Errorf("run.js did not pass every check:\n%s", out)
	}
	if n := validated.Load(); n < 300 {
		t.Errorf("only %d API responses were validated", n)
	}
	if testing.Verbose() {
		t.Logf("run.js:\n%s", out)
	}
}
