package main

import (
	"context"

	"github.com/bankmirror/bankmirror/internal/feeds"
	"github.com/bankmirror/bankmirror/internal/feeds/actual"
	"github.com/bankmirror/bankmirror/internal/feeds/ynab"
)

// feedApps are the apps this build feeds, by kind: one line each.
func feedApps(node, _ string) map[string]feeds.App {
	return map[string]feeds.App{
		"actual": {Opener: actual.New(actual.Config{Node: node}), Batch: 2000},
		// YNAB's budget is 200 requests an hour: a session reads three
		// times and writes a thousand rows a request.
		"ynab": {Opener: ynab.New(), Batch: 25_000},
	}
}

// setupFeed makes fd's app ready (Actual: installs its client into the
// feed's directory) and says what it did.
func setupFeed(ctx context.Context, node, npm string, fd *feeds.Feed, target feeds.Target) (string, error) {
	switch fd.Kind {
	case "actual":
		return actual.Setup(ctx, target, actual.SetupConfig{Node: node, NPM: npm})
	default:
		return "", nil
	}
}
