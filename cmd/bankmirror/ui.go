package main

import (
	"context"
	"errors"
	"fmt"
	"os"

	"github.com/bankmirror/bankmirror/internal/cli"
	"github.com/bankmirror/bankmirror/internal/health"
	"github.com/bankmirror/bankmirror/internal/httpserver"
	"github.com/bankmirror/bankmirror/internal/store"
	"github.com/bankmirror/bankmirror/internal/ui"
)

// defaultUIListen is where `bankmirror ui` listens without --listen or
// BANKMIRROR_UI_LISTEN.
const defaultUIListen = "127.0.0.1:8083"

func (a *app) uiCommand() *cli.Command {
	fs := newFlags("ui")
	listen := fs.String("listen", "", "`ADDR` to serve the dashboard on (default: BANKMIRROR_UI_LISTEN if set, else "+defaultUIListen+")")
	return &cli.Command{Name: "ui", Synopsis: "[--listen ADDR]", Flags: fs,
		Summary: "the dashboard in the browser: spending, transactions with search, categories, recurring payments (read-only)",
		Detail: `Prints the address with its token: http://127.0.0.1:8083/?token=TOKEN. The token is random at each
start unless BANKMIRROR_UI_TOKEN or BANKMIRROR_UI_TOKEN_FILE sets one. The mirror is opened read-only, so
the dashboard runs beside the daemon and never writes.`,
		Run: a.configured(func(ctx context.Context, _ []string) error {
			addr := *listen
			if addr == "" {
				addr = a.cfg.UIListen
			}
			if addr == "" {
				addr = defaultUIListen
			}
			if _, err := os.Lstat(a.cfg.DB); err != nil {
				return fmt.Errorf("no mirror at %s (set BANKMIRROR_DB, or run `bankmirror sync --full` first): %w", a.cfg.DB, err)
			}
			st, err := store.OpenReadOnly(ctx, a.cfg.DB)
			if err != nil {
				return err
			}
			defer st.Close()
			token, random := a.cfg.UIToken, false
			if token == "" {
				token, random = ui.NewToken(), true
			}
			h, err := a.dashboard(st, token)
			if err != nil {
				return err
			}
			defer h.Close()
			srv, err := httpserver.Start(ctx, "dashboard", addr, httpserver.New(h), httpserver.LimitListener(0))
			if err != nil {
				return err
			}
			if random {
				fmt.Fprintf(a.stdout, "dashboard: %s/?%s=%s\n", srv.URL(), ui.TokenParam, token)
			} else {
				fmt.Fprintf(a.stdout, "dashboard: %s/ (the token is BANKMIRROR_UI_TOKEN's)\n", srv.URL())
			}
			select {
			case <-ctx.Done():
			case <-srv.Stopped():
				return errors.Join(errors.New("dashboard stopped"), srv.Err())
			}
			return srv.Shutdown(shutdownGrace)
		})}
}

// dashboard is the dashboard of the mirror st (opened read-only, or the
// daemon's store) guarded by token.
func (a *app) dashboard(st *store.Store, token string) (*ui.Handler, error) {
	loc, err := loadZone(a.cfg.Timezone)
	if err != nil {
		return nil, &configError{envPrefix + "TIMEZONE", err}
	}
	return ui.New(st, ui.Options{Token: token, Location: loc, Export: st.Reader(), Log: a.log,
		Status: func(ctx context.Context) (health.Status, error) {
			return health.GatherStatus(ctx, st, a.statusOptions())
		}})
}
