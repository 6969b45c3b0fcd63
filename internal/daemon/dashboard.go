package daemon

import (
	"context"
	"errors"
	"strings"

	"github.com/rs/zerolog"

	"github.com/bankmirror/bankmirror/internal/admin"
	"github.com/bankmirror/bankmirror/internal/config"
	"github.com/bankmirror/bankmirror/internal/health"
	"github.com/bankmirror/bankmirror/internal/httpserver"
	"github.com/bankmirror/bankmirror/internal/logfield"
	"github.com/bankmirror/bankmirror/internal/store"
	"github.com/bankmirror/bankmirror/internal/ui"
)

// ExposedDashboard is the warning for a dashboard bound beyond loopback.
const ExposedDashboard = "the dashboard is bound beyond loopback over plain HTTP: its token and cookie " +
	"cross the network in clear; put it behind a TLS proxy or set BANKMIRROR_UI_LISTEN to 127.0.0.1:PORT unless that is meant"

// openDashboard serves the dashboard of the daemon's mirror on
// BANKMIRROR_UI_LISTEN, guarded by BANKMIRROR_UI_TOKEN (required: a random
// token printed by a daemon would be lost in its log), its refused tokens
// counted in /metrics.
func (d *Daemon) openDashboard(ctx context.Context) error {
	if d.Config.UIToken == "" {
		return &config.Error{Var: config.Prefix + "UI_LISTEN", Err: errors.New("serve's dashboard needs a token: set BANKMIRROR_UI_TOKEN or BANKMIRROR_UI_TOKEN_FILE")}
	}
	h, srv, err := ServeDashboard(ctx, d.Config, d.Store, d.Config.UIToken, d.Config.UIListen, d.Log, d.Metrics.DashboardRefused(ui.RefusalReasons()...))
	if err != nil {
		return err
	}
	d.dash, d.dashboard = h, srv
	addr := strings.TrimPrefix(d.dashboard.URL(), "http://")
	d.Log.Info().Str(logfield.UIListen, addr).Msg("dashboard serving")
	if admin.Exposed(addr) {
		d.Log.Warn().Str(logfield.UIListen, addr).Msg(ExposedDashboard)
	}
	return nil
}

// DashboardURL is the base URL of serve's dashboard, "" when it is off.
func (d *Daemon) DashboardURL() string {
	if d.dashboard == nil {
		return ""
	}
	return d.dashboard.URL()
}

// DashboardLoginLink is a new sign-in link of serve's dashboard (tests).
func (d *Daemon) DashboardLoginLink() string {
	if d.dash == nil {
		return ""
	}
	return d.DashboardURL() + d.dash.LoginLink()
}

// ServeDashboard makes the dashboard of the mirror st (opened read-only,
// or the daemon's store) guarded by token, and serves it on addr: the one
// construction behind `ui` and serve's dashboard.
func ServeDashboard(ctx context.Context, cfg config.Config, st *store.Store, token, addr string, log zerolog.Logger,
	onRefused func(string)) (*ui.Handler, *httpserver.Server, error) {
	h, err := ui.New(st, ui.Options{Token: token, Location: cfg.Location, Export: st.Reader(), Log: log, AttachmentsDir: cfg.AttachmentsDir,
		OnRefused: onRefused, RulesFile: cfg.RulesFile, RulesFileSet: cfg.RulesFileSet,
		FeedsFile: cfg.FeedsFile, FeedsFileSet: cfg.FeedsFileSet,
		Status: func(ctx context.Context) (health.Status, error) {
			o := StatusOptions(cfg)
			o.WithoutCounts = true // the health line shows no counts
			return health.GatherStatus(ctx, st, o)
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
