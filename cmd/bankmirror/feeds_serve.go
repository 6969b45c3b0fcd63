package main

import (
	"context"

	"github.com/bankmirror/bankmirror/internal/feeds"
	"github.com/bankmirror/bankmirror/internal/logfield"
)

// openFeeds reads the feeds file (a bad one stops serve with one line:
// file:line and what) and makes the engine that feeds each app.
func (m *Daemon) openFeeds(ctx context.Context) error {
	f, err := m.loadFeeds()
	if err != nil {
		return err
	}
	if err := m.Store.ForgetFeeds(ctx, f.Names()); err != nil {
		return err
	}
	m.Feeds = feeds.NewEngine(m.Store, feedApps(m.Config.Node, m.Config.NPM), f, feedsDir(m.Config.DB), m.Log)
	m.Feeds.AfterRound = m.OnFeedRound
	return nil
}

// loadFeeds reads the feeds file and the feeds' secrets.
func (m *Daemon) loadFeeds() (*feeds.File, error) {
	return feeds.Load(m.Config.FeedsFile, !m.Config.FeedsFileSet, m.Environ["CREDENTIALS_DIRECTORY"])
}

// startFeeds runs the engine until Close: a feed whose app fails is
// retried with backoff and the rest of the daemon goes on.
func (m *Daemon) startFeeds() {
	m.bg.Go(func() { _ = m.Feeds.Run(m.bgCtx) })
}

// reloadFeeds reads the feeds file again; a bad one keeps the feeds in
// use and says why in one line.
func (m *Daemon) reloadFeeds(ctx context.Context) {
	f, err := m.loadFeeds()
	if err != nil {
		m.Log.Error().Err(err).Msg("reload: feeds not replaced, the previous ones stay")
		return
	}
	if err := m.Store.ForgetFeeds(ctx, f.Names()); err != nil {
		m.Log.Warn().Err(err).Msg("reload: forget the feeds gone from the file")
	}
	m.Feeds.SetFile(f)
	m.Log.Info().Int(logfield.Feeds, len(f.Feeds)).Str(logfield.Path, f.Path).Msg("reload: feeds read again")
}

// wakeFeeds tells the feeds the mirror changed.
func (m *Daemon) wakeFeeds() {
	if m.Feeds != nil {
		m.Feeds.Wake()
	}
}
