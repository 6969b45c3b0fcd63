package main

import (
	"context"

	"github.com/bankmirror/bankmirror/internal/feeds"
)

// feedApps are the apps this build feeds, by kind.
func feedApps(node, npm string) map[string]feeds.App {
	return map[string]feeds.App{}
}

// setupFeed makes fd's app ready (Actual: installs its client into dir)
// and says what it did.
func setupFeed(ctx context.Context, node, npm string, fd *feeds.Feed, dir string) (string, error) {
	return "", nil
}
