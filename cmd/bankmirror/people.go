package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/bankmirror/bankmirror/internal/cli"
	"github.com/bankmirror/bankmirror/internal/config"
	"github.com/bankmirror/bankmirror/internal/daemon"
	"github.com/bankmirror/bankmirror/internal/health"
	"github.com/bankmirror/bankmirror/internal/store"
	"github.com/bankmirror/bankmirror/internal/textsafe"
)

// members are the people configured, by name, each with their token: the
// household's tokens (BANKMIRROR_TOKENS_DIR, the credentials token.NAME),
// or the single token as a household of one (config.People).
func (a *app) members() ([]config.Person, error) {
	people, err := config.People(a.environ)
	if err != nil {
		return nil, err
	}
	if len(people) == 0 {
		return nil, &config.Error{Var: config.Prefix + "TOKEN", Err: errors.New("not set: set BANKMIRROR_TOKEN or BANKMIRROR_TOKEN_FILE to your personal access token, or BANKMIRROR_TOKENS_DIR to a household's tokens")}
	}
	return people, nil
}

// configuredNames are the names of the people configured, nil when the
// tokens cannot be read (status reports on the mirror without them).
func (a *app) configuredNames() []string {
	people, err := config.People(a.environ)
	if err != nil || len(people) == 0 {
		return nil
	}
	names := make([]string, len(people))
	for i, p := range people {
		names[i] = p.Name
	}
	return names
}

// peopleCommand lists the household's people: what the mirror records of
// each and what the running daemon reports. It reads the mirror only
// (read-only, beside the daemon) and sends no request to the bank.
func (a *app) peopleCommand() *cli.Command {
	fs := newFlags("people")
	asJSON := fs.Bool("json", false, "print the people as a JSON array")
	return &cli.Command{Name: "people", Synopsis: "[--json]", Flags: fs,
		Summary: "each person of the household: customer id, accounts, budget left, token state, webhook, last sync",
		Detail:  "It reads the mirror and the running daemon's report, and sends nothing to the bank: the budget left is what the daemon last heard from the bank, the token state what it last saw (`bankmirror ping` checks each token now).",
		Run:     a.configured(func(ctx context.Context, _ []string) error { return a.people(ctx, *asJSON) })}
}

func (a *app) people(ctx context.Context, asJSON bool) error {
	st, err := store.OpenReadOnly(ctx, a.cfg.DB)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return a.noMirror()
		}
		return err
	}
	defer st.Close()
	o := daemon.StatusOptions(a.cfg)
	o.People = a.configuredNames()
	s, err := health.GatherStatus(ctx, st, o)
	if err != nil {
		return err
	}
	if asJSON {
		if s.People == nil {
			s.People = []health.PersonStatus{}
		}
		return writeJSON(a.stdout, s.People)
	}
	c := statusClock(a.cfg.Location)
	tw := tabwriter.NewWriter(a.stdout, 2, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "PERSON\tCUSTOMER\tACCOUNTS\tBUDGET LEFT\tTOKEN\tWEBHOOK\tLAST SYNC")
	for _, p := range s.People {
		f := personFields(c, p)
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\n", p.Name, f.customer, f.accounts, f.budget, f.token, f.webhook, f.lastSync)
	}
	return tw.Flush()
}

// personText is a person's status in words, field by field.
type personText struct {
	customer, accounts, budget, token, webhook, lastSync string
}

// personFields says p's status in words.
func personFields(c clock, p health.PersonStatus) personText {
	t := personText{customer: textsafe.Line(p.CustomerID), accounts: "none known", budget: "unknown", token: p.TokenState,
		webhook: "none", lastSync: "never"}
	if t.customer == "" {
		t.customer = "-"
	}
	if len(p.Accounts) > 0 {
		t.accounts = fmt.Sprintf("%d (%s)", len(p.Accounts), textsafe.Line(strings.Join(p.Accounts, ", ")))
	}
	if b := p.Budget; b != nil && b.Known {
		t.budget = fmt.Sprint(b.Remaining)
	}
	if p.Token.Rejected {
		t.token = "REJECTED " + health.Age(time.Since(p.Token.RejectedAt)) + " ago"
	}
	if len(p.Webhooks) > 0 {
		t.webhook = textsafe.Line(strings.Join(p.Webhooks, ", "))
	}
	if !p.LastSync.IsZero() {
		t.lastSync = c.at(p.LastSync)
	}
	return t
}

// printPeople writes status's line for each person; a rejected token's
// says what to do (tokenAdvice of environ).
func printPeople(w io.Writer, c clock, environ map[string]string, people []health.PersonStatus) {
	for _, p := range people {
		f := personFields(c, p)
		if p.Token.Rejected {
			fmt.Fprintf(w, "person %s: token %s: %s; last sync %s\n", p.Name, f.token, config.TokenAdvice(environ, p.Name), f.lastSync)
			continue
		}
		fmt.Fprintf(w, "person %s: token %s, %s requests left, accounts %s, webhook %s, last sync %s\n",
			p.Name, f.token, f.budget, f.accounts, f.webhook, f.lastSync)
	}
}
