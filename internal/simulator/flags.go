package simulator

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"golang.org/x/net/http/httpguts"
)

// Flags are the flags of `bankmirror simulator` that need parsing, as
// given: Options turns them into the simulator's options.
type Flags struct {
	Transactions    int    // --transactions: 0 is an empty bank
	Now, Live       string // --now TIME (RFC 3339), --live RATE (N/s, N/m or N/h)
	WebhookRetry    string // --webhook-retry BASE,MAX,ATTEMPTS
	SignatureHeader string // --signature-header
	RateLimit       int
	RateBucket      time.Duration
	RateOffset      time.Duration

	Token             string // --token: one token, or NAME=TOKEN,... with people
	People            string // --people NAMES, comma-separated
	JointTransactions *int   // --joint-transactions; nil or < 0 = the default
	JointWebhooks     bool
}

// Options turns the flags into simulator options and the interval of
// --live (0 = off).
func (f Flags) Options() (Options, time.Duration, error) {
	var opts Options
	switch {
	case f.Transactions < 0:
		return opts, 0, fmt.Errorf("--transactions must not be negative")
	case f.Transactions == 0:
		opts.Empty = true
	default:
		opts.Transactions = f.Transactions
	}
	if f.RateLimit < 0 || f.RateBucket <= 0 {
		return opts, 0, fmt.Errorf("--rate-limit must not be negative and --rate-bucket must be positive")
	}
	if f.RateOffset < 0 || f.RateOffset >= f.RateBucket {
		return opts, 0, fmt.Errorf("--rate-offset must be at least 0 and less than --rate-bucket (%s)", f.RateBucket)
	}
	opts.RateLimit = RateLimit{Limit: f.RateLimit, Bucket: f.RateBucket, Offset: f.RateOffset}
	if f.Now != "" {
		at, err := time.Parse(time.RFC3339, f.Now)
		if err != nil {
			return opts, 0, fmt.Errorf("--now: %w", err)
		}
		opts.Now = func() time.Time { return at }
	}
	if f.WebhookRetry != "" {
		r, err := parseWebhookRetry(f.WebhookRetry)
		if err != nil {
			return opts, 0, err
		}
		opts.WebhookRetryBase, opts.WebhookRetryMax, opts.WebhookMaxAttempts = r.Base, r.Max, r.Attempts
	}
	if f.SignatureHeader != "" && !httpguts.ValidHeaderFieldName(f.SignatureHeader) {
		return opts, 0, fmt.Errorf("--signature-header %q: not an HTTP header name", f.SignatureHeader)
	}
	opts.WebhookSignatureHeader = f.SignatureHeader
	if err := householdOptions(&opts, f); err != nil {
		return opts, 0, err
	}
	var every time.Duration
	if f.Live != "" {
		var err error
		if every, err = parseRate(f.Live); err != nil {
			return opts, 0, err
		}
	}
	return opts, every, nil
}

// parseWebhookRetry parses BASE,MAX,ATTEMPTS, e.g. "1s,10s,5".
func parseWebhookRetry(s string) (WebhookRetry, error) {
	parts := strings.Split(s, ",")
	if len(parts) != 3 {
		return WebhookRetry{}, fmt.Errorf("--webhook-retry %q: want BASE,MAX,ATTEMPTS", s)
	}
	base, err1 := time.ParseDuration(parts[0])
	maxWait, err2 := time.ParseDuration(parts[1])
	attempts, err3 := strconv.Atoi(parts[2])
	if err1 != nil || err2 != nil || err3 != nil || base <= 0 || maxWait < base || attempts < 1 {
		return WebhookRetry{}, fmt.Errorf("--webhook-retry %q: want positive BASE <= MAX and ATTEMPTS >= 1", s)
	}
	return WebhookRetry{Base: base, Max: maxWait, Attempts: attempts}, nil
}

// parseRate parses N/s, N/m or N/h into the interval between changes.
func parseRate(s string) (time.Duration, error) {
	num, unit, ok := strings.Cut(s, "/")
	per := map[string]time.Duration{"s": time.Second, "m": time.Minute, "h": time.Hour}[unit]
	n, err := strconv.ParseFloat(num, 64)
	if !ok || per == 0 || err != nil || n <= 0 || n > 1000 {
		return 0, fmt.Errorf("--live %q: want N/s, N/m or N/h with 0 < N <= 1000", s)
	}
	return time.Duration(float64(per) / n), nil
}

// householdOptions sets the people, their tokens and the joint account's
// options from --people, --token, --joint-transactions and
// --joint-webhooks.
func householdOptions(opts *Options, f Flags) error {
	given := f.JointTransactions != nil && *f.JointTransactions >= 0
	if f.People == "" {
		if given || f.JointWebhooks {
			return fmt.Errorf("--joint-transactions and --joint-webhooks need --people")
		}
		opts.Token = f.Token
		return nil
	}
	opts.People = strings.Split(f.People, ",")
	if err := CheckPeople(opts.People); err != nil {
		return fmt.Errorf("--people: %w", err)
	}
	opts.JointWebhooks = f.JointWebhooks
	switch {
	case given && *f.JointTransactions == 0:
		opts.JointTransactions = -1 // none
	case given:
		opts.JointTransactions = *f.JointTransactions
	}
	if f.Token == "" {
		return nil
	}
	opts.Tokens = map[string]string{}
	for _, pair := range strings.Split(f.Token, ",") {
		name, tok, ok := strings.Cut(pair, "=")
		if !ok || tok == "" || !slices.Contains(opts.People, name) || opts.Tokens[name] != "" {
			return fmt.Errorf("--token with --people: want NAME=TOKEN,... for names of --people, got %q", pair)
		}
		opts.Tokens[name] = tok
	}
	return nil
}
