package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"text/tabwriter"
	"time"

	"github.com/rs/zerolog"

	"github.com/bankmirror/bankmirror/internal/bank"
	"github.com/bankmirror/bankmirror/internal/buildinfo"
	"github.com/bankmirror/bankmirror/internal/cli"
	"github.com/bankmirror/bankmirror/internal/config"
	"github.com/bankmirror/bankmirror/internal/daemon"
	"github.com/bankmirror/bankmirror/internal/health"
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

// pingAttempts is how often ping tries a bank that fails at once.
const pingAttempts = 3

// ping checks every person's token at once, within pingTimeout in all,
// and prints a line for each, in the people's order: an accepted token on
// stdout, a failure on stderr (exit status 1 if any failed). A household of
// one prints its line without the person's name.
func (a *app) ping(ctx context.Context, _ []string) error {
	people, err := a.members()
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, pingTimeout)
	defer cancel()
	lines := make([]string, len(people))
	errs := make([]error, len(people))
	var wg sync.WaitGroup
	for i, p := range people {
		wg.Go(func() { lines[i], errs[i] = a.pingToken(ctx, p.Token) })
	}
	wg.Wait()
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

// pingToken checks one token: the line to print, or why it failed.
func (a *app) pingToken(ctx context.Context, token string) (string, error) {
	// The retries' warnings are for the daemon's log; ping's answer is
	// its one line, unless debug logs are asked for.
	log := a.log
	if log.GetLevel() > zerolog.DebugLevel {
		log = zerolog.Nop()
	}
	// A person waits for the answer: a refused connection or an unknown
	// host is tried pingAttempts times, not the daemon's eight.
	client := daemon.BankClient(a.cfg, "", token, log, daemon.ClientOptions{MaxAttempts: pingAttempts})
	p, err := client.Ping(ctx)
	if err != nil && (bank.Outage(err) || errors.Is(err, context.DeadlineExceeded)) {
		return "", fmt.Errorf("ping %s: the bank or the network failed (gave up within %s): %s", config.RedactURL(a.cfg.APIURL), pingTimeout, bank.Cause(err))
	}
	if err != nil {
		return "", fmt.Errorf("ping %s: %w", config.RedactURL(a.cfg.APIURL), err)
	}
	return fmt.Sprintf("token accepted by %s: customer %s %s", config.RedactURL(a.cfg.APIURL), textsafe.Line(p.ID), textsafe.Line(p.StatusEmoji)), nil
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
	o.People = a.configuredNames()
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
		printStatus(w, a.cfg.DB, statusClock(a.cfg.Location), a.environ, s)
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

// printStatus writes the status for people.
func printStatus(w io.Writer, db string, c clock, environ map[string]string, s health.Status) {
	if s.Level == health.OK {
		fmt.Fprintln(w, "OK")
	} else {
		fmt.Fprintf(w, "%s: %s\n", s.Level, textsafe.Line(s.Reason))
	}
	d := s.Daemon
	switch {
	case !d.Reported:
		fmt.Fprintln(w, "daemon: no report (bankmirror serve has not run on this mirror)")
	case d.Running:
		fmt.Fprintf(w, "daemon: running (pid %d, last report %s ago)\n", d.PID, health.Age(time.Duration(d.ReportAge*float64(time.Second))))
	case d.Stopped:
		fmt.Fprintf(w, "daemon: NOT RUNNING (stopped %s ago, pid %d)\n", health.Age(time.Duration(d.ReportAge*float64(time.Second))), d.PID)
	default:
		fmt.Fprintf(w, "daemon: NOT RUNNING (last report %s ago, pid %d)\n", health.Age(time.Duration(d.ReportAge*float64(time.Second))), d.PID)
	}
	for _, c := range s.Checks {
		if c.Name == health.CheckConfig {
			fmt.Fprintf(w, "setting: %s\n", textsafe.Line(c.Detail))
		}
	}
	if d.AdminExposed != "" {
		fmt.Fprintf(w, "admin listener: on %s, beyond loopback: /metrics, /readyz and the spreadsheet feed are reachable from other machines (BANKMIRROR_ADMIN_LISTEN)\n", d.AdminExposed)
	}
	var last []string
	for _, kind := range []string{health.KindIncremental, health.KindFull, health.KindHeal} {
		r, ok := s.Syncs[kind]
		switch {
		case ok:
			last = append(last, fmt.Sprintf("%s %s ago (%s)", kind, health.Age(time.Duration(r.Age*float64(time.Second))), c.at(r.At)))
		case kind == health.KindHeal && s.Webhooks == 0:
			last = append(last, kind+": no webhook registered")
		default:
			last = append(last, kind+" never")
		}
	}
	fmt.Fprintf(w, "last successful: %s\n", strings.Join(last, "; "))
	switch t := s.Token; {
	case len(s.People) > 1:
		// Each person's token has its line below.
	case !t.Known:
		fmt.Fprintln(w, "token: unknown (no daemon report)")
	case t.Rejected:
		fmt.Fprintf(w, "token: REJECTED by the bank %s ago: %s\n", health.Age(time.Since(t.RejectedAt)), config.TokenAdvice(environ, ""))
	default:
		fmt.Fprintln(w, "token: accepted at last use")
	}
	printPeople(w, c, environ, s.People)
	if o := s.BankOutage; o != nil {
		fmt.Fprintf(w, "bank: UNREACHABLE by %s, since %s (%s ago)%s: %s\n", health.LastSyncs(o.Syncs), c.at(o.Since), health.Age(time.Since(o.Since)),
			retrying(c, o.RetryAt), textsafe.Line(o.LastError))
	}
	printBudget(w, c, s.Budget)
	if wk := s.Worker; wk != nil && wk.Paused && !wk.Unauthorized {
		fmt.Fprintf(w, "webhook worker: PAUSED, retrying at %s: %s\n", c.at(wk.PausedUntil), textsafe.Line(wk.PauseCause))
	}
	if p := s.Syncing; p != nil {
		fmt.Fprintf(w, "sync in progress: %s, %d pages, %d transactions", p.Kind, p.Pages, p.Transactions)
		if p.Covered >= 0 {
			fmt.Fprintf(w, ", %.0f%% of the date range", 100*p.Covered)
		}
		if p.ETA > 0 {
			fmt.Fprintf(w, ", about %s left", p.ETA.Round(time.Second))
		}
		fmt.Fprintln(w)
	}
	in := s.Inbox
	fmt.Fprintf(w, "webhook events: %d received, %d pending, %d stuck, %d recovered from delivery logs", in.Received, in.Pending, in.Stuck, in.Recovered)
	if in.Pending > 0 {
		fmt.Fprintf(w, "; the oldest pending for %s", health.Age(time.Duration(in.OldestPendingAge*float64(time.Second))))
	}
	fmt.Fprintln(w)
	if dl := s.Deliveries; dl.Events > 0 {
		code := ""
		if dl.LastCode != nil {
			code = fmt.Sprintf(" %d", *dl.LastCode)
		}
		fmt.Fprintf(w, "undeliverable webhook deliveries: %d events in the last %s never delivered (last %s ago: %s%s)\n",
			dl.Events, dl.Window, health.Age(time.Since(dl.Last)), dl.LastStatus, code)
	} else {
		fmt.Fprintf(w, "undeliverable webhook deliveries: none in the last %s (from the delivery logs stored by heals)\n", dl.Window)
	}
	if h := s.OldestHeld; h != nil {
		fmt.Fprintf(w, "oldest HELD: \"%s\" (%s), created %s ago\n", textsafe.Line(h.Description), textsafe.Line(h.ID), health.Age(time.Duration(h.Age*float64(time.Second))))
	} else {
		fmt.Fprintln(w, "oldest HELD: none")
	}
	r := s.Rows
	fmt.Fprintf(w, "mirror: %s\n", db)
	fmt.Fprintf(w, "rows: %d accounts, %d transactions (%d HELD), %d categories, %d tags, %d attachments, %d history rows\n",
		r.Accounts, r.Transactions, r.Held, r.Categories, r.Tags, r.Attachments, r.History)
	if len(s.Runs) == 0 {
		fmt.Fprintln(w, "sync runs: none yet")
		return
	}
	fmt.Fprintf(w, "last sync runs (times in %s):\n", c.loc)
	tw := tabwriter.NewWriter(w, 2, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "  ID\tKIND\tSTARTED\tFINISHED\tSTATUS\tREQUESTS\tCHANGED\tDELETED\tERROR")
	for _, r := range s.Runs {
		fmt.Fprintf(tw, "  %d\t%s\t%s\t%s\t%s\t%d\t%d\t%d\t%s\n", r.ID, r.Kind, c.stamp(r.StartedAt), c.stamp(deref(r.FinishedAt, "-")),
			r.Status, r.Requests, r.Upserted, r.Deleted, textsafe.Line(deref(r.Error, "")))
	}
	_ = tw.Flush()
}

// deref is *s, or def when s is nil.
func deref(s *string, def string) string {
	if s == nil {
		return def
	}
	return *s
}

// printBudget shows what the daemon last reported of the bank's budget.
func printBudget(w io.Writer, c clock, b *bank.BudgetState) {
	switch {
	case b == nil:
		fmt.Fprintln(w, "bank budget: unknown (no running daemon)")
	case b.Waiting:
		fmt.Fprintf(w, "bank budget: WAITING until %s: %s", c.at(b.WaitUntil), textsafe.Line(b.WaitReason))
		if b.Known {
			fmt.Fprintf(w, " (%d requests left)", b.Remaining)
		}
		fmt.Fprintln(w)
	case b.Known:
		fmt.Fprintf(w, "bank budget: %d requests left (reported by the bank %s ago; %d kept for webhook refetches)\n",
			b.Remaining, time.Since(b.ObservedAt).Round(time.Second), b.Reserve)
	default:
		fmt.Fprintln(w, "bank budget: not reported by the bank yet")
	}
}

// retrying is ", retrying at 10:04:05" when the daemon said when it syncs
// again, else "".
func retrying(c clock, at time.Time) string {
	if at.IsZero() {
		return ""
	}
	return ", retrying at " + c.at(at)
}
