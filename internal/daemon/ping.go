package daemon

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/rs/zerolog"

	"github.com/bankmirror/bankmirror/internal/bank"
	"github.com/bankmirror/bankmirror/internal/config"
	"github.com/bankmirror/bankmirror/internal/textsafe"
)

// PingAttempts is how often ping tries a bank that fails at once: a person
// waits for the answer, so a refused connection or an unknown host is
// tried three times, not the daemon's eight.
const PingAttempts = 3

// Ping checks every person's token with the bank at once, giving up after
// within in all, and says for each, in the people's order, the line to
// print or why it failed. Its retries' warnings are for the daemon's log:
// they are logged only when log takes debug lines.
func Ping(ctx context.Context, cfg config.Config, people []config.Person, log zerolog.Logger, within time.Duration) (lines []string, errs []error) {
	if log.GetLevel() > zerolog.DebugLevel {
		log = zerolog.Nop()
	}
	ctx, cancel := context.WithTimeout(ctx, within)
	defer cancel()
	lines, errs = make([]string, len(people)), make([]error, len(people))
	var wg sync.WaitGroup
	for i, p := range people {
		wg.Go(func() { lines[i], errs[i] = pingToken(ctx, cfg, p.Token, log, within) })
	}
	wg.Wait()
	return lines, errs
}

// pingToken checks one token: the line to print, or why it failed.
func pingToken(ctx context.Context, cfg config.Config, token string, log zerolog.Logger, within time.Duration) (string, error) {
	client := BankClient(cfg, "", token, log, ClientOptions{MaxAttempts: PingAttempts})
	p, err := client.Ping(ctx)
	if err != nil && (bank.Outage(err) || errors.Is(err, context.DeadlineExceeded)) {
		return "", fmt.Errorf("ping %s: the bank or the network failed (gave up within %s): %s", config.RedactURL(cfg.APIURL), within, bank.Cause(err))
	}
	if err != nil {
		return "", fmt.Errorf("ping %s: %w", config.RedactURL(cfg.APIURL), err)
	}
	return fmt.Sprintf("token accepted by %s: customer %s %s", config.RedactURL(cfg.APIURL), textsafe.Line(p.ID), textsafe.Line(p.StatusEmoji)), nil
}
