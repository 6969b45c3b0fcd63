package apps_test

import (
	"maps"
	"slices"
	"testing"

	"github.com/bankmirror/bankmirror/internal/feeds"
	"github.com/bankmirror/bankmirror/internal/feeds/apps"
)

// The feeds file accepts exactly the kinds this build feeds: an app added
// to the registry without its kind in feeds.Kinds (or the reverse) fails
// here, not at a user's push.
func TestKindsAreTheRegistry(t *testing.T) {
	registry := slices.Sorted(maps.Keys(apps.All(apps.Programs{Node: "node", NPM: "npm"})))
	kinds := slices.Sorted(slices.Values(feeds.Kinds))
	if !slices.Equal(registry, kinds) {
		t.Errorf("apps.All has %v, feeds.Kinds %v", registry, kinds)
	}
	for kind, app := range apps.All(apps.Programs{}) {
		if app.Opener == nil || app.Batch <= 0 {
			t.Errorf("app %s: opener %v, batch %d", kind, app.Opener, app.Batch)
		}
	}
}
