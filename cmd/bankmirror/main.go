// Command bankmirror keeps an exact, queryable copy of one bank customer's
// data in a local SQLite file.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	gosync "sync"
	"syscall"

	"github.com/rs/zerolog"
	"golang.org/x/term"

	"github.com/bankmirror/bankmirror/internal/bank"
	"github.com/bankmirror/bankmirror/internal/store"
)

const usage = `bankmirror keeps an exact SQLite mirror of your bank data.

Usage: bankmirror <command> [flags]

Commands:
  demo        mirror the built-in simulated bank into ./bankmirror-demo.db and show a summary
  serve       run the daemon: webhook receiver, event worker and sync schedule
  webhook     register, list, delete, ping, rotate webhooks and read their delivery logs
  sync        one sync now: incremental, or --full for a complete reconciliation
  status      is it working? OK, DEGRADED or FAILING (exit 0, 1, 2), then the details; --json for scripts
  backup      a consistent copy of the mirror, taken while the daemon runs (--with-secrets: and its webhook secrets)
  events      list webhook events that ran out of attempts (stuck), or requeue them (retry)
  categorize  set or remove a transaction's category at the bank and in the mirror (--from FILE for many)
  tag         add or remove a transaction's tags at the bank and in the mirror (--from FILE for many)
  export      write a view as CSV, JSON lines or XLSX (read-only; --list shows the views)
  ping        check that the bank accepts the token
  config      print the effective configuration (secrets redacted)
  simulator   run the simulated bank on a local address
  bench       whole-system benchmarks against same-run baselines: sync, receiver, burst, export
  version     print the version

Configuration is read from BANKMIRROR_* environment variables; see README.md.
`

var version = "dev"

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	go func() {
		// After the first signal, restore the default so a second one kills.
		<-ctx.Done()
		stop()
	}()
	code := run(ctx, os.Args[1:], environ(), os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

func environ() map[string]string {
	m := map[string]string{}
	for _, kv := range os.Environ() {
		k, v, _ := strings.Cut(kv, "=")
		m[k] = v
	}
	return m
}

// app is what every command gets: configuration, a logger and the output.
type app struct {
	cfg            Config
	log            zerolog.Logger
	stdout, stderr io.Writer
	environ        map[string]string
	// setAside are bad settings the command runs without (commandNeeds).
	setAside []*configError
}

type command func(ctx context.Context, a *app, args []string) error

var commands = map[string]command{
	"demo":       cmdDemo,
	"sync":       cmdSync,
	"status":     cmdStatus,
	"ping":       cmdPing,
	"simulator":  cmdSimulator,
	"bench":      cmdBench,
	"serve":      cmdServe,
	"webhook":    cmdWebhook,
	"config":     cmdConfig,
	"events":     cmdEvents,
	"categorize": cmdCategorize,
	"tag":        cmdTag,
	"backup":     cmdBackup,
	"export":     cmdExport,
	"version": func(_ context.Context, a *app, _ []string) error {
		fmt.Fprintln(a.stdout, "bankmirror", version)
		return nil
	},
}

// run is main without the process: it returns the exit code.
func run(ctx context.Context, args []string, environ map[string]string, stdout, stderr io.Writer) int {
	if len(args) == 0 || args[0] == "help" || args[0] == "-h" || args[0] == "--help" {
		fmt.Fprint(stdout, usage)
		return 0
	}
	cmd, ok := commands[args[0]]
	if !ok {
		fmt.Fprintf(stderr, "bankmirror: unknown command %q\n\n%s", args[0], usage)
		return 2
	}
	cfg, setAside, err := loadConfigFor(args[0], environ)
	if err != nil {
		fmt.Fprintln(stderr, "bankmirror:", err)
		return 2
	}
	warnSetAside(stderr, args[0], setAside)
	// Commands write from several goroutines (the worker, the schedule).
	stdout, stderr = &lockedWriter{w: stdout}, &lockedWriter{w: stderr}
	a := &app{cfg: cfg, log: newLogger(cfg, stderr), stdout: stdout, stderr: stderr, environ: environ, setAside: setAside}
	if err := cmd(ctx, a, args[1:]); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		var ec *exitCode
		if errors.As(err, &ec) {
			return ec.code
		}
		var shown *reportedError
		if !errors.As(err, &shown) {
			fmt.Fprintln(stderr, "bankmirror:", err)
		}
		var ce *configError
		if errors.As(err, &ce) || errors.Is(err, errUsage) {
			return 2
		}
		return 1
	}
	return 0
}

var errUsage = errors.New("usage")

func newLogger(cfg Config, w io.Writer) zerolog.Logger {
	level, _ := zerolog.ParseLevel(cfg.LogLevel)
	format := cfg.LogFormat
	if format == "" {
		format = "json"
		if isTerminal(w) {
			format = "console"
		}
	}
	if format == "console" {
		w = zerolog.ConsoleWriter{Out: w, TimeFormat: "15:04:05"}
	}
	return zerolog.New(zerolog.SyncWriter(w)).Level(level).With().Timestamp().Logger()
}

func isTerminal(w io.Writer) bool {
	if l, ok := w.(*lockedWriter); ok {
		w = l.w
	}
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}

// lockedWriter serialises writes from several goroutines.
type lockedWriter struct {
	mu gosync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

// flagSet is a subcommand's flags. Its Parse accepts flags after positional
// arguments (`webhook logs ID --limit 5`) and reports errors as usage errors
// that the flag package has already printed.
type flagSet struct{ *flag.FlagSet }

// flags returns a flagSet for a subcommand that reports errors to stderr.
func (a *app) flags(name, synopsis string) *flagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(a.stderr)
	fs.Usage = func() {
		fmt.Fprintf(a.stderr, "Usage: bankmirror %s %s\n", name, synopsis)
		fs.PrintDefaults()
	}
	return &flagSet{fs}
}

func (fs *flagSet) Parse(args []string) error {
	var flags, pos []string
	for i := 0; i < len(args); i++ {
		arg := args[i]
		if arg == "--" {
			pos = append(pos, args[i+1:]...)
			break
		}
		if !strings.HasPrefix(arg, "-") || arg == "-" {
			pos = append(pos, arg)
			continue
		}
		flags = append(flags, arg)
		name := strings.TrimLeft(arg, "-")
		if strings.Contains(name, "=") {
			continue
		}
		if f := fs.Lookup(name); f != nil && i+1 < len(args) {
			if b, ok := f.Value.(interface{ IsBoolFlag() bool }); ok && b.IsBoolFlag() {
				continue
			}
			flags = append(flags, args[i+1])
			i++
		}
	}
	err := fs.FlagSet.Parse(append(flags, append([]string{"--"}, pos...)...))
	if err != nil && !errors.Is(err, flag.ErrHelp) {
		return &reportedError{fmt.Errorf("%w: %w", errUsage, err)}
	}
	return err
}

// ParseNone is Parse for a command that takes no arguments: a stray one
// (`sync --full false`) is a usage error rather than silently ignored.
func (fs *flagSet) ParseNone(args []string) error {
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("%w: %s takes no arguments, got %q", errUsage, fs.Name(), fs.Arg(0))
	}
	return nil
}

// exitCode is a command's verdict, printed already: run exits with code
// (status: 1 DEGRADED, 2 FAILING).
type exitCode struct{ code int }

func (e *exitCode) Error() string { return fmt.Sprintf("exit status %d", e.code) }

// reportedError has been shown to the user already; run only sets the exit
// code.
type reportedError struct{ err error }

func (e *reportedError) Error() string { return e.err.Error() }
func (e *reportedError) Unwrap() error { return e.err }

func (a *app) openStore(ctx context.Context, path string) (*store.Store, error) {
	s, err := store.Open(ctx, path, a.cfg.storeOptions()...)
	if err != nil {
		return nil, fmt.Errorf("open mirror %s: %w", path, err)
	}
	return s, nil
}

// openExistingStore opens the configured mirror, refusing to create one:
// commands that read or change a mirror need one that a sync filled.
func (a *app) openExistingStore(ctx context.Context) (*store.Store, error) {
	// Lstat: a symbolic link there, even dangling, is for the store to refuse by name.
	if _, err := os.Lstat(a.cfg.DB); err != nil {
		return nil, fmt.Errorf("no mirror at %s (set BANKMIRROR_DB, or run `bankmirror sync --full` first): %w", a.cfg.DB, err)
	}
	return a.openStore(ctx, a.cfg.DB)
}

func (a *app) client(baseURL, token string, budget int) *bank.Client {
	return bank.New(baseURL, token, bank.WithHourlyBudget(budget), bank.WithReserve(a.cfg.BudgetReserve), bank.WithLogger(a.log))
}
