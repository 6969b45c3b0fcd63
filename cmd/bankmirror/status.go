package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/bankmirror/bankmirror/internal/buildinfo"
	"github.com/bankmirror/bankmirror/internal/cli"
	"github.com/bankmirror/bankmirror/internal/config"
	"github.com/bankmirror/bankmirror/internal/daemon"
	"github.com/bankmirror/bankmirror/internal/health"
	"github.com/bankmirror/bankmirror/internal/statustext"
	"github.com/bankmirror/bankmirror/internal/store"
	"github.com/bankmirror/bankmirror/internal/textsafe"
)

func (a *app) pingCommand() *cli.Command {
	return &cli.Command{Name: "ping", Summary: "check that the bank accepts each person's token",
		Detail: fmt.Sprintf("One line per person, each token checked at the same time. It gives up after %s: the bank or the network not answering by then is one line saying so.", pingTimeout),
		Run:    a.configured(a.ping)}
}

// pingTimeout bounds ping from start to answer, retries included.
var pingTimeout = 10 * time.Second

// ping checks every person's token at once, within pingTimeout in all,
// and prints a line for each, in the people's order: an accepted token on
// stdout, a failure on stderr (exit status 1 if any failed). A household of
// one prints its line without the person's name.
func (a *app) ping(ctx context.Context, _ []string) error {
	people, err := a.members()
	if err != nil {
		return err
	}
	lines, errs := daemon.Ping(ctx, a.cfg, people, a.log, pingTimeout)
	if len(people) == 1 {
		if errs[0] != nil {
			return errs[0]
		}
		fmt.Fprintln(a.stdout, lines[0])
		return nil
	}
	failed := 0
	for i, p := range people {
		if errs[i] != nil {
			failed++
			fmt.Fprintf(a.stderr, "bankmirror: %s: %s\n", p.Name, shownError(errs[i]))
			continue
		}
		fmt.Fprintf(a.stdout, "%s: %s\n", p.Name, lines[i])
	}
	if failed > 0 {
		return &cli.ShownError{Err: fmt.Errorf("ping: %d of %d tokens failed", failed, len(people))}
	}
	return nil
}

// Exit statuses of `bankmirror status`: 0 only when OK.
const (
	exitDegraded = 1
	exitFailing  = 2
)

// statusCommand is `bankmirror status [--json]`.
func (a *app) statusCommand() *cli.Command {
	fs := newFlags("status")
	asJSON := fs.Bool("json", false, "print the status as one JSON object")
	return &cli.Command{Name: "status", Synopsis: "[--json]", Flags: fs,
		Summary: "is it working? OK, DEGRADED or FAILING (exit 0, 1, 2), then the details; --json for scripts",
		Run:     a.configured(func(ctx context.Context, _ []string) error { return a.status(ctx, *asJSON) })}
}

// status answers "is it working?": OK, DEGRADED or FAILING with the
// reasons on the first line, then the details. It opens the mirror
// read-only, so it works beside the running daemon.
func (a *app) status(ctx context.Context, asJSON bool) error {
	w := a.stdout
	st, err := store.OpenReadOnly(ctx, a.cfg.DB)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			err = a.noMirror()
		}
		s := health.Status{Level: health.Failing, Reason: err.Error()}
		if asJSON {
			_ = writeJSON(w, statusJSON{s, buildinfo.Get()})
		} else {
			fmt.Fprintf(w, "FAILING: %s\n", textsafe.Line(err.Error()))
		}
		return &exitCode{exitFailing}
	}
	defer st.Close()
	o := daemon.StatusOptions(a.cfg)
	o.People = config.Names(a.environ)
	s, err := health.GatherStatus(ctx, st, o)
	if err != nil {
		s.Level, s.Reason = health.Failing, err.Error()
	}
	for _, ce := range a.setAside {
		s.Add(health.Check{Name: health.CheckConfig, Level: health.Degraded,
			Detail: ce.Error() + " (status runs without it; serve and the commands that use it refuse to start)"})
	}
	if asJSON {
		if err := writeJSON(w, statusJSON{s, buildinfo.Get()}); err != nil {
			return err
		}
	} else {
		statustext.Write(w, a.cfg.DB, statustext.NewClock(a.cfg.Location), a.environ, s)
	}
	switch s.Level {
	case health.OK:
		return nil
	case health.Degraded:
		return &exitCode{exitDegraded}
	default:
		return &exitCode{exitFailing}
	}
}

// statusJSON is what status --json prints: the status, and the build of
// bankmirror that gathered it.
type statusJSON struct {
	health.Status
	Build buildinfo.Info `json:"build"`
}
