package main

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/bankmirror/bankmirror/internal/admin"
	"github.com/bankmirror/bankmirror/internal/cli"
	"github.com/bankmirror/bankmirror/internal/config"
	"github.com/bankmirror/bankmirror/internal/health"
	"github.com/bankmirror/bankmirror/internal/httpserver"
	"github.com/bankmirror/bankmirror/internal/logfield"
	"github.com/bankmirror/bankmirror/internal/store"
	"github.com/bankmirror/bankmirror/internal/ui"
	"github.com/rs/zerolog"
)

// defaultUIListen is where `bankmirror ui` listens without --listen or
// BANKMIRROR_UI_LISTEN.
const defaultUIListen = "127.0.0.1:8083"

// exposedDashboard is the warning for a dashboard bound beyond loopback.
const exposedDashboard = "the dashboard is bound beyond loopback over plain HTTP: its token and cookie " +
	"cross the network in clear; put it behind a TLS proxy or set BANKMIRROR_UI_LISTEN to 127.0.0.1:PORT unless that is meant"

func (a *app) uiCommand() *cli.Command {
	fs := newFlags("ui")
	listen := fs.String("listen", "", "`ADDR` to serve the dashboard on (default: BANKMIRROR_UI_LISTEN if set, else "+defaultUIListen+")")
	return &cli.Command{Name: "ui", Synopsis: "[--listen ADDR]", Flags: fs,
		Summary: "the dashboard in the browser: spending, transactions with search, categories, recurring payments, rules, alerts (read-only)",
		Detail: `Prints a sign-in link, http://127.0.0.1:8083/login?code=CODE, whose code works once, within ten
minutes, and the token for the login form. The token is random at each start unless BANKMIRROR_UI_TOKEN or
BANKMIRROR_UI_TOKEN_FILE sets one (it is then not printed). The mirror is opened read-only, so the dashboard
runs beside the daemon and never writes.`,
		Run: a.configured(func(ctx context.Context, _ []string) error {
			addr := *listen
			if addr == "" {
				addr = a.cfg.UIListen
			}
			if addr == "" {
				addr = defaultUIListen
			}
			st, err := a.openExistingReadOnly(ctx)
			if err != nil {
				return err
			}
			defer st.Close()
			token, random := a.cfg.UIToken, false
			if token == "" {
				token, random = ui.NewToken(), true
			}
			h, srv, err := serveDashboard(ctx, a.cfg, st, token, addr, a.log, nil)
			if err != nil {
				return err
			}
			defer h.Close()
			if bound := strings.TrimPrefix(srv.URL(), "http://"); admin.Exposed(bound) {
				fmt.Fprintf(a.stderr, "bankmirror: warning: dashboard on %s: %s\n", bound, exposedDashboard)
			}
			fmt.Fprintf(a.stdout, "dashboard: %s%s\n", srv.LocalURL(), h.LoginLink())
			if random {
				fmt.Fprintf(a.stdout, "the link works once, within %d minutes; then sign in with the token: %s\n", int(ui.CodeLifetime/time.Minute), token)
			} else {
				fmt.Fprintf(a.stdout, "the link works once, within %d minutes; then sign in with BANKMIRROR_UI_TOKEN's token\n", int(ui.CodeLifetime/time.Minute))
			}
			select {
			case <-ctx.Done():
			case <-srv.Stopped():
				return errors.Join(errors.New("dashboard stopped"), srv.Err())
			}
			return srv.Shutdown(shutdownGrace)
		})}
}

// openDashboard serves the dashboard of the daemon's mirror on
// BANKMIRROR_UI_LISTEN, guarded by BANKMIRROR_UI_TOKEN (required: a random
// token printed by a daemon would be lost in its log), its refused tokens
// counted in /metrics.
func (m *Daemon) openDashboard(ctx context.Context) error {
	if m.Config.UIToken == "" {
		return &config.Error{Var: config.Prefix + "UI_LISTEN", Err: errors.New("serve's dashboard needs a token: set BANKMIRROR_UI_TOKEN or BANKMIRROR_UI_TOKEN_FILE")}
	}
	h, srv, err := serveDashboard(ctx, m.Config, m.Store, m.Config.UIToken, m.Config.UIListen, m.Log, m.Metrics.DashboardRefused(ui.RefusalReasons()...))
	if err != nil {
		return err
	}
	m.dash, m.dashboard = h, srv
	addr := strings.TrimPrefix(m.dashboard.URL(), "http://")
	m.Log.Info().Str(logfield.UIListen, addr).Msg("dashboard serving")
	if admin.Exposed(addr) {
		m.Log.Warn().Str(logfield.UIListen, addr).Msg(exposedDashboard)
	}
	return nil
}

// DashboardURL is the base URL of serve's dashboard, "" when it is off.
func (m *Daemon) DashboardURL() string {
	if m.dashboard == nil {
		return ""
	}
	return m.dashboard.URL()
}

// DashboardLoginLink is a new sign-in link of serve's dashboard (tests).
func (m *Daemon) DashboardLoginLink() string {
	if m.dash == nil {
		return ""
	}
	return m.DashboardURL() + m.dash.LoginLink()
}

// serveDashboard makes the dashboard of the mirror st (opened read-only,
// or the daemon's store) guarded by token, and serves it on addr: the one
// construction behind `ui` and serve's dashboard.
func serveDashboard(ctx context.Context, cfg config.Config, st *store.Store, token, addr string, log zerolog.Logger,
	onRefused func(string)) (*ui.Handler, *httpserver.Server, error) {
	h, err := ui.New(st, ui.Options{Token: token, Location: cfg.Location, Export: st.Reader(), Log: log, AttachmentsDir: cfg.AttachmentsDir,
		OnRefused: onRefused, RulesFile: cfg.RulesFile, RulesFileSet: cfg.RulesFileSet,
		FeedsFile: cfg.FeedsFile, FeedsFileSet: cfg.FeedsFileSet,
		Status: func(ctx context.Context) (health.Status, error) {
			return health.GatherStatus(ctx, st, statusOptions(cfg))
		}})
	if err != nil {
		return nil, nil, err
	}
	srv, err := httpserver.Start(ctx, "dashboard", addr, httpserver.New(httpserver.LoopbackHosts(h, addr)), httpserver.Limits(httpserver.PerSourceOptions{})...)
	if err != nil {
		h.Close()
		return nil, nil, err
	}
	return h, srv, nil
}
