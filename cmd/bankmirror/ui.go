package main

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/bankmirror/bankmirror/internal/admin"
	"github.com/bankmirror/bankmirror/internal/cli"
	"github.com/bankmirror/bankmirror/internal/daemon"
	"github.com/bankmirror/bankmirror/internal/ui"
)

// defaultUIListen is where `bankmirror ui` listens without --listen or
// BANKMIRROR_UI_LISTEN.
const defaultUIListen = "127.0.0.1:8083"

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
			h, srv, err := daemon.ServeDashboard(ctx, a.cfg, st, token, addr, a.log, nil)
			if err != nil {
				return err
			}
			defer h.Close()
			if bound := strings.TrimPrefix(srv.URL(), "http://"); admin.Exposed(bound) {
				fmt.Fprintf(a.stderr, "bankmirror: warning: dashboard on %s: %s\n", bound, daemon.ExposedDashboard)
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
