package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"

	"github.com/bankmirror/bankmirror/internal/cli"
	"github.com/bankmirror/bankmirror/internal/daemon"
)

func (a *app) serveCommand(env []cli.Var) *cli.Command {
	fs := newFlags("serve")
	noFeeds := fs.Bool("no-feeds", false, "feed no budgeting app (bankmirror-feeds.service runs `bankmirror feeds serve` beside it)")
	return &cli.Command{Name: "serve", Env: env, Synopsis: "[--no-feeds]", Flags: fs,
		Summary: "run the daemon: webhook receiver, event worker, sync schedule, feeds and admin listener",
		Detail:  "SIGTERM or SIGINT stops it cleanly (a second signal forces); SIGHUP reads the tokens, the rules file and the feeds file again.",
		Run: a.configured(func(ctx context.Context, args []string) error {
			return a.serve(ctx, !*noFeeds)
		})}
}

// serve runs the daemon (internal/daemon) with the people configured until
// ctx ends.
func (a *app) serve(ctx context.Context, withFeeds bool) error {
	people, err := a.members()
	if err != nil {
		return err
	}
	cfg := a.daemonConfig()
	d := daemon.New(cfg, a.log)
	d.NoFeeds = !withFeeds
	d.Environ = a.environ
	d.People = people
	// SIGHUP (kill -HUP; systemctl reload, ExecReload=) reads the tokens again.
	hup := make(chan os.Signal, 1)
	signal.Notify(hup, syscall.SIGHUP)
	defer signal.Stop(hup)
	d.Reloads = hup
	return d.Run(ctx)
}
