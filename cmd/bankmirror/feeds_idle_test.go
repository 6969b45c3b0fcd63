package main

import (
	"context"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/bankmirror/bankmirror/internal/config"
	"github.com/bankmirror/bankmirror/internal/daemon"
	ynabfake "github.com/bankmirror/bankmirror/internal/simulator/ynab"
	"github.com/bankmirror/bankmirror/internal/simulator/ynab/ynabspec"
)

// serve gives a feed with nothing new a round every ten minutes, which
// opens the app: a YNAB token revoked after the feed's last push is a
// failure `feeds status` shows, although the bank changed nothing.
func TestServeIdleFeedRoundShowsARevokedToken(t *testing.T) {
	b := newBank(t, 40)
	f, err := ynabfake.New(ynabfake.Options{Token: "ytok", Spec: ynabspec.MustLoad(), OnInvalid: func(err error) {
		t.Errorf("the fake broke YNAB's spec: %v", err)
	}})
	must(t, err)
	f.AddPlan("Household", []string{"Spending"}, nil)
	srv := httptest.NewServer(f.Handler())
	t.Cleanup(srv.Close)
	dir := t.TempDir()
	env := cliEnv(b, filepath.Join(dir, "mirror.db"))
	env["BANKMIRROR_FEEDS_FILE"] = writeYNABFeed(t, dir, srv.URL)
	env["BANKMIRROR_LISTEN"] = "127.0.0.1:0"
	env["BANKMIRROR_ADMIN_LISTEN"] = "off"
	env["BANKMIRROR_SYNC_SCHEDULE"] = "@every 1000h"
	env["BANKMIRROR_RECONCILE_SCHEDULE"] = "@every 1000h"
	wantCode(t, runCLI(t, env, "sync", "--no-feeds"), 0)
	cfg, err := config.Load(env)
	must(t, err)

	type round struct {
		err  error
		last int64 // the history's last seq after it
	}
	rounds := make(chan round, 100)
	d := daemon.New(cfg, zerolog.Nop())
	revoked := false
	// Called on the feeds' own goroutine, between its rounds.
	d.OnFeedRound = func(_ string, err error) {
		ctx := context.Background()
		last, lerr := d.Store.LastHistorySeq(ctx)
		must(t, lerr)
		rounds <- round{err, last}
		st, serr := d.Store.FeedStatuses(ctx, []string{"ynab"})
		must(t, serr)
		if revoked || err != nil || st[0].Rows == 0 || st[0].Pending != 0 {
			return
		}
		// Fed, with nothing pending: the token is revoked, and eleven
		// minutes pass with no change at the bank.
		revoked = true
		f.RevokeToken("ytok")
		d.Feeds.SetClock(func() time.Time { return time.Now().Add(11 * time.Minute) })
		d.Feeds.Wake()
	}
	must(t, d.Open(t.Context()))
	t.Cleanup(func() {
		if err := d.Close(); err != nil {
			t.Error(err)
		}
	})
	<-d.InitialSyncDone

	var fed int64 = -1
	deadline := time.After(time.Minute)
	for {
		var r round
		select {
		case r = <-rounds:
		case <-deadline:
			t.Fatal("no feed round failed within a minute of the token's revocation")
		}
		if r.err == nil {
			fed = r.last
			continue
		}
		if fed < 0 {
			t.Fatalf("the feed failed before it was fed: %v", r.err)
		}
		if !strings.Contains(r.err.Error(), "ynab refused the personal access token") {
			t.Fatalf("the round failed with %v, want the token refused", r.err)
		}
		if r.last != fed {
			t.Fatalf("the history moved from seq %d to %d: the round was not an idle one", fed, r.last)
		}
		break
	}
	res := runCLI(t, env, "feeds", "status")
	wantCode(t, res, 0)
	if !strings.Contains(res.stdout, "ynab refused the personal access token (put a valid personal access token in the feed's token_file) (failing since ") {
		t.Errorf("feeds status after the idle round:\n%s", res.stdout)
	}
	noLeak(t, res, "ytok")
}
