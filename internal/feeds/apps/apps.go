// Package apps is the registry of the budgeting apps this build feeds:
// each kind of the feeds file, its opener, its batch size and its set-up,
// one entry each.
package apps

import (
	"context"

	"github.com/bankmirror/bankmirror/internal/feeds"
	"github.com/bankmirror/bankmirror/internal/feeds/actual"
	"github.com/bankmirror/bankmirror/internal/feeds/ynab"
)

// Programs are the programs an app's client may need: Node and NPM run and
// install Actual's (BANKMIRROR_NODE, BANKMIRROR_NPM).
type Programs struct{ Node, NPM string }

// All are the apps this build feeds, by kind: one line each.
func All(p Programs) map[string]feeds.App {
	return map[string]feeds.App{
		"actual": {Opener: actual.New(actual.Config{Node: p.Node}), Batch: 2000},
		// YNAB's budget is 200 requests an hour: a session reads three
		// times and writes a thousand rows a request.
		"ynab": {Opener: ynab.New(), Batch: 25_000},
	}
}

// Setup makes fd's app ready (Actual: installs its client into the feed's
// directory) and says what it did; the other apps need nothing.
func Setup(ctx context.Context, p Programs, fd *feeds.Feed, target feeds.Target) (string, error) {
	switch fd.Kind {
	case "actual":
		return actual.Setup(ctx, target, actual.SetupConfig{Node: p.Node, NPM: p.NPM})
	default:
		return "", nil
	}
}
