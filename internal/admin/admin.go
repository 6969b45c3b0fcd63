// Package admin is the daemon's admin listener (BANKMIRROR_ADMIN_LISTEN):
// GET /healthz, /readyz and /metrics. It serves no bank data, only the
// daemon's health and counters, and is meant for loopback.
package admin

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"text/tabwriter"

	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/bankmirror/bankmirror/internal/health"
)

// Checker is what /readyz asks: a check run now (write probe included).
type Checker interface {
	Check(ctx context.Context) health.Snapshot
}

// Routes adds routes of another package to the admin listener (the
// spreadsheet feed's /export/).
type Routes interface {
	Register(mux *http.ServeMux)
}

// Handler returns the admin listener's mux: every route the listener
// serves is here, and those of extra.
func Handler(c Checker, m *Metrics, extra ...Routes) http.Handler {
	mux := http.NewServeMux()
	for _, r := range extra {
		r.Register(mux)
	}
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		_, _ = w.Write([]byte("ok\n"))
	})
	mux.HandleFunc("GET /readyz", func(w http.ResponseWriter, r *http.Request) { readyz(w, r, c) })
	mux.Handle("GET /metrics", promhttp.HandlerFor(m.Registry(), promhttp.HandlerOpts{
		ErrorHandling: promhttp.ContinueOnError, MaxRequestsInFlight: 4,
	}))
	return mux
}

// readyResponse is /readyz in JSON.
type readyResponse struct {
	Ready  bool         `json:"ready"`
	Checks []readyCheck `json:"checks"`
	Level  health.Level `json:"level"`
}

type readyCheck struct {
	Name   string       `json:"name"`
	OK     bool         `json:"ok"`
	Level  health.Level `json:"level"`
	Detail string       `json:"detail"`
}

// readyz answers 200 when every readiness check passes, else 503, with
// each check and why it fails: plain text, or JSON for ?format=json or
// Accept: application/json.
func readyz(w http.ResponseWriter, r *http.Request, c Checker) {
	s := c.Check(r.Context())
	resp := readyResponse{Ready: s.Ready}
	var checks []health.Check
	for _, chk := range s.Checks {
		if chk.Readiness {
			checks = append(checks, chk)
			resp.Checks = append(resp.Checks, readyCheck{Name: chk.Name, OK: chk.Level == health.OK, Level: chk.Level, Detail: chk.Detail})
		}
	}
	resp.Level, _ = health.Verdict(checks)
	status := http.StatusOK
	if !s.Ready {
		status = http.StatusServiceUnavailable
	}
	w.Header().Set("Cache-Control", "no-store")
	if r.URL.Query().Get("format") == "json" || strings.Contains(r.Header.Get("Accept"), "application/json") {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		_ = json.NewEncoder(w).Encode(resp)
		return
	}
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.WriteHeader(status)
	if s.Ready {
		fmt.Fprintln(w, "ready")
	} else {
		fmt.Fprintln(w, "not ready")
	}
	tw := tabwriter.NewWriter(w, 2, 4, 2, ' ', 0)
	for _, chk := range resp.Checks {
		mark := "ok"
		if !chk.OK {
			mark = "FAIL"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\n", mark, chk.Name, chk.Detail)
	}
	_ = tw.Flush()
}
