package replica_test

import (
	"context"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/bankmirror/bankmirror/internal/bank"
	"github.com/bankmirror/bankmirror/internal/replica"
)

// gatedClient is the bank client with a token the test rejects and
// replaces.
type gatedClient struct {
	*bank.Client
	tok *tokenState
}

func (c gatedClient) TokenRejected() (bool, <-chan struct{}) { return c.tok.TokenRejected() }

// nobody is a worker that is never woken in these tests.
type nobody struct{}

func (nobody) Notify() {}

// While the bank rejects the token the schedule runs nothing, not even
// the start-up sync; a new token starts a sync at once.
func TestScheduleWaitsForANewTokenThenSyncs(t *testing.T) {
	e := newEnv(t, 150)
	tok := &tokenState{rejected: true, replaced: make(chan struct{}), asked: make(chan struct{}, 1)}
	client := gatedClient{Client: e.client, tok: tok}
	runs := make(chan string, 10)
	s := replica.NewSchedule(replica.New(client, e.store, zerolog.Nop(), replica.Options{}),
		replica.NewHealer(client, e.store, zerolog.Nop(), replica.HealerOptions{}), nobody{}, e.store,
		replica.ScheduleConfig{Sync: "@every 1000h", Reconcile: "@every 1000h",
			OnRun: func(kind string, _ time.Duration, err error) {
				if err != nil {
					t.Errorf("%s: %v", kind, err)
				}
				runs <- kind
			}}, zerolog.Nop())
	ctx, cancel := context.WithCancel(context.Background())
	if err := s.Start(ctx); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cancel(); s.Stop() })
	<-s.StartupDone
	if n := e.sim.Requests(); n != 0 {
		t.Errorf("%d requests with a rejected token, want none", n)
	}
	if n := e.count(t, "SELECT count(*) FROM sync_runs"); n != 0 {
		t.Errorf("%d sync runs with a rejected token, want none", n)
	}

	tok.replace()
	select {
	case kind := <-runs:
		if kind != replica.KindFull {
			t.Errorf("first run after a new token: %s, want %s (the mirror has never been synced)", kind, replica.KindFull)
		}
	case <-time.After(60 * time.Second):
		t.Fatal("no sync after a new token")
	}
	if kind := <-runs; kind != replica.KindHeal {
		t.Errorf("after the sync: %s, want %s", kind, replica.KindHeal)
	}
	e.assertMirrorEqualsTruth(t)
}

// startSchedule starts a schedule on e's mirror and returns the kinds of
// the runs of its start-up, once over.
func startSchedule(t *testing.T, e *env) []string {
	t.Helper()
	var mu sync.Mutex
	var kinds []string
	s := replica.NewSchedule(replica.New(e.client, e.store, zerolog.Nop(), replica.Options{}),
		replica.NewHealer(e.client, e.store, zerolog.Nop(), replica.HealerOptions{}), nobody{}, e.store,
		replica.ScheduleConfig{Sync: "@every 1000h", Reconcile: "@every 1000h",
			OnRun: func(kind string, _ time.Duration, err error) {
				if err != nil {
					t.Errorf("%s: %v", kind, err)
				}
				mu.Lock()
				kinds = append(kinds, kind)
				mu.Unlock()
			}}, zerolog.Nop())
	ctx, cancel := context.WithCancel(context.Background())
	if err := s.Start(ctx); err != nil {
		t.Fatal(err)
	}
	<-s.StartupDone
	cancel()
	s.Stop()
	mu.Lock()
	defer mu.Unlock()
	return kinds
}

// A daemon that stopped cleanly syncs at start; one restarted after a
// crash moments after a sync only heals from the delivery logs (the
// bank's retries and the logs bring what it missed), so a crash loop or
// a kill during a burst does not list the last hours again each time.
func TestScheduleSkipsTheStartupSyncRightAfterACrash(t *testing.T) {
	e := newEnv(t, 150)
	e.full(t)
	if kinds := startSchedule(t, e); !slices.Equal(kinds, []string{replica.KindIncremental, replica.KindHeal}) {
		t.Errorf("start-up after a clean stop ran %v, want an incremental sync and a heal", kinds)
	}
	// The daemon dies: its schedule never stops.
	if err := e.store.PutState(t.Context(), "schedule_running", true); err != nil {
		t.Fatal(err)
	}
	before := e.sim.Requests()
	if kinds := startSchedule(t, e); !slices.Equal(kinds, []string{replica.KindHeal}) {
		t.Errorf("start-up after a crash ran %v, want only a heal", kinds)
	}
	if n := e.sim.Requests() - before; n > 2 {
		t.Errorf("%d requests after the crash, want only the heal's", n)
	}
}
