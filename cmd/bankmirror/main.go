// Command bankmirror keeps an exact, queryable copy of the data of a bank
// customer or a household in a local SQLite file.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"sync"
	"syscall"

	"github.com/rs/zerolog"
	"golang.org/x/term"

	"github.com/bankmirror/bankmirror/internal/bank"
	"github.com/bankmirror/bankmirror/internal/cli"
	"github.com/bankmirror/bankmirror/internal/config"
	"github.com/bankmirror/bankmirror/internal/daemon"
	"github.com/bankmirror/bankmirror/internal/logfield"
	"github.com/bankmirror/bankmirror/internal/store"
)

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
	cfg            config.Config
	log            zerolog.Logger
	stdout, stderr io.Writer
	environ        map[string]string
	// command is the command line's (top-level) command.
	command string
	// setAside are bad settings the command runs without (config.LoadFor).
	setAside []*config.Error
	// statusLine is stderr when it is a terminal (nil otherwise): the log
	// writes through it, above a sync's progress line.
	statusLine *statusLine
}

// run is main without the process: it returns the exit code.
func run(ctx context.Context, args []string, environ map[string]string, stdout, stderr io.Writer) int {
	// Commands write from several goroutines (the worker, the schedule).
	stdout, stderr = &lockedWriter{w: stdout}, &lockedWriter{w: stderr}
	a := &app{stdout: stdout, stderr: stderr, environ: environ}
	p := a.program()
	if path, _ := p.Resolve(args); len(path) > 0 {
		a.command = path[0].Name
	}
	err := p.Execute(ctx, args, stdout, stderr)
	if err == nil {
		return 0
	}
	var ec *exitCode
	if errors.As(err, &ec) {
		return ec.code
	}
	var shown *cli.ShownError
	if !errors.As(err, &shown) {
		fmt.Fprintln(stderr, "bankmirror:", shownError(err))
	}
	var ce *config.Error
	if errors.As(err, &ce) || errors.As(err, new(badConfig)) || errors.Is(err, cli.ErrUsage) {
		return 2
	}
	return 1
}

// badConfig is a configuration that cannot be loaded (exit status 2).
type badConfig struct{ err error }

func (e badConfig) Error() string { return e.err.Error() }
func (e badConfig) Unwrap() error { return e.err }

// configured is run after loading the configuration and making the
// logger: the commands that read BANKMIRROR_* variables run through it, so
// that help, version, completion and man need no configuration.
func (a *app) configured(run func(ctx context.Context, args []string) error) func(context.Context, []string) error {
	return func(ctx context.Context, args []string) error {
		cfg, setAside, err := config.LoadFor(a.command, a.environ)
		if err != nil {
			return badConfig{err}
		}
		warnSetAside(a.stderr, a.command, setAside)
		logTo := a.stderr
		if isTerminal(a.stderr) {
			a.statusLine = &statusLine{w: a.stderr}
			logTo = a.statusLine
		}
		a.cfg, a.log, a.setAside = cfg, newLogger(cfg, logTo), setAside
		return run(ctx, args)
	}
}

func newLogger(cfg config.Config, w io.Writer) zerolog.Logger {
	logfield.UseUnits()
	level, _ := zerolog.ParseLevel(cfg.LogLevel)
	format := cfg.LogFormat
	if format == "" {
		format = "json"
		if _, ok := w.(*statusLine); ok || isTerminal(w) {
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
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

// exitCode is a command's verdict, printed already: run exits with code
// (status: 1 DEGRADED, 2 FAILING).
type exitCode struct{ code int }

func (e *exitCode) Error() string { return fmt.Sprintf("exit status %d", e.code) }

func (a *app) openStore(ctx context.Context, path string) (*store.Store, error) {
	return daemon.OpenStore(ctx, a.cfg, path, a.log)
}

// openExistingStore opens the configured mirror, refusing to create one:
// commands that read or change a mirror need one that a sync filled.
func (a *app) openExistingStore(ctx context.Context) (*store.Store, error) {
	if err := a.mirrorExists(); err != nil {
		return nil, err
	}
	return a.openStore(ctx, a.cfg.DB)
}

// openExistingReadOnly opens the configured mirror read-only, beside a
// running daemon, refusing to create one.
func (a *app) openExistingReadOnly(ctx context.Context) (*store.Store, error) {
	if err := a.mirrorExists(); err != nil {
		return nil, err
	}
	return store.OpenReadOnly(ctx, a.cfg.DB)
}

// mirrorExists says, in one line, that there is no mirror to open.
func (a *app) mirrorExists() error {
	// Lstat: a symbolic link there, even dangling, is for the store to refuse by name.
	if _, err := os.Lstat(a.cfg.DB); err != nil {
		return fmt.Errorf("%w: %w", a.noMirror(), err)
	}
	return nil
}

// unreachableWithin is how long a command's request retries a bank it
// cannot reach (tests shorten it).
var unreachableWithin = bank.CommandUnreachableWithin

// clientOptions are the options of a command's bank clients.
func clientOptions(string) daemon.ClientOptions {
	return daemon.ClientOptions{UnreachableWithin: unreachableWithin}
}
