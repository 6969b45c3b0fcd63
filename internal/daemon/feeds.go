package daemon

import (
	"context"
	"os"
	"time"

	"github.com/rs/zerolog"

	"github.com/bankmirror/bankmirror/internal/config"
	"github.com/bankmirror/bankmirror/internal/feeds"
	"github.com/bankmirror/bankmirror/internal/logfield"
	"github.com/bankmirror/bankmirror/internal/replica"
	"github.com/bankmirror/bankmirror/internal/store"
	"github.com/bankmirror/bankmirror/internal/systemd"
)

// openFeeds reads the feeds file (a bad one stops serve with one line:
// file:line and what) and makes the engine that feeds each app.
func (d *Daemon) openFeeds(ctx context.Context) error {
	if d.NoFeeds {
		return nil
	}
	e, err := openFeedEngine(ctx, d.Config, d.Environ, d.Store, d.Log)
	if err != nil {
		return err
	}
	d.Feeds = e
	// A round of thousands of rows leaves megabytes of freed memory: it
	// goes back to the OS, as after a sync, so that a daemon with a feed
	// sits at the RSS of one without.
	d.Feeds.AfterRound = func(feed string, err error) {
		replica.ReleaseMemory(d.bgCtx, d.Store, d.Log, true)
		if d.OnFeedRound != nil {
			d.OnFeedRound(feed, err)
		}
	}
	return nil
}

// openFeedEngine reads the feeds file with the feeds' secrets, forgets in
// st the feeds gone from it, and makes the engine that feeds each app.
func openFeedEngine(ctx context.Context, cfg config.Config, environ map[string]string, st *store.Store, log zerolog.Logger) (*feeds.Engine, error) {
	f, err := loadFeeds(cfg, environ)
	if err != nil {
		return nil, err
	}
	if err := st.ForgetFeeds(ctx, f.Names()); err != nil {
		return nil, err
	}
	return NewFeedEngine(cfg, st, f, log), nil
}

// loadFeeds reads the feeds file and the feeds' secrets.
func loadFeeds(cfg config.Config, environ map[string]string) (*feeds.File, error) {
	return feeds.Load(cfg.FeedsFile, !cfg.FeedsFileSet, environ["CREDENTIALS_DIRECTORY"])
}

// startFeeds runs the engine until Close: a feed whose app fails is
// retried with backoff and the rest of the daemon goes on.
func (d *Daemon) startFeeds() {
	if d.Feeds == nil {
		return
	}
	d.bg.Go(func() { _ = d.Feeds.Run(d.bgCtx) })
}

// reloadFeeds reads the feeds file again; a bad one keeps the feeds in
// use and says why in one line.
func (d *Daemon) reloadFeeds(ctx context.Context) {
	if d.Feeds == nil {
		return
	}
	reloadFeeds(ctx, d.Config, d.Environ, d.Store, d.Feeds, d.Log)
}

// reloadFeeds reads the feeds file again and gives it to e; a bad one
// keeps the feeds in use and says why in one line.
func reloadFeeds(ctx context.Context, cfg config.Config, environ map[string]string, st *store.Store, e *feeds.Engine, log zerolog.Logger) {
	f, err := loadFeeds(cfg, environ)
	if err != nil {
		log.Error().Err(err).Msg("reload: feeds not replaced, the previous ones stay")
		return
	}
	if err := st.ForgetFeeds(ctx, f.Names()); err != nil {
		log.Warn().Err(err).Msg("reload: forget the feeds gone from the file")
	}
	e.SetFile(f)
	log.Info().Int(logfield.Feeds, len(f.Feeds)).Str(logfield.Path, f.Path).Msg("reload: feeds read again")
}

// wakeFeeds tells the feeds the mirror changed.
func (d *Daemon) wakeFeeds() {
	if d.Feeds != nil {
		d.Feeds.Wake()
	}
}

// ServeFeeds feeds every app of the feeds file from the mirror open
// opens until ctx ends, reading the file again at each of reloads (SIGHUP;
// a bad one keeps the feeds in use): what serve does for its feeds, in a
// process of its own (`bankmirror feeds serve`), so that Node (Actual's
// client) runs under a sandbox that lets its JIT work while the daemon
// keeps its own. A bad feeds file is said before the mirror is opened.
func ServeFeeds(ctx context.Context, cfg config.Config, environ map[string]string, open func(context.Context) (*store.Store, error),
	log zerolog.Logger, reloads <-chan os.Signal) error {
	if _, err := loadFeeds(cfg, environ); err != nil {
		return err
	}
	stopExtending := systemd.ExtendStart(20*time.Second, "opening the mirror (a schema migration may take minutes; see the log)")
	st, err := open(ctx)
	stopExtending()
	if err != nil {
		return err
	}
	defer st.Close()
	e, err := openFeedEngine(ctx, cfg, environ, st, log)
	if err != nil {
		return err
	}
	e.AfterRound = func(string, error) { replica.ReleaseMemory(ctx, st, log, true) }
	done := make(chan struct{})
	go func() {
		defer close(done)
		_ = e.Run(ctx)
	}()
	if err := systemd.Notify("READY=1"); err != nil {
		log.Warn().Err(err).Msg("notify systemd")
	}
	log.Info().Int(logfield.Feeds, len(e.File().Feeds)).Str(logfield.Path, e.File().Path).Msg("feeding")
	for {
		select {
		case <-ctx.Done():
			_ = systemd.Notify("STOPPING=1")
			<-done
			return nil
		case <-reloads:
			reloadFeeds(ctx, cfg, environ, st, e, log)
		}
	}
}
