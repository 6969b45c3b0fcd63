package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"text/tabwriter"

	"github.com/bankmirror/bankmirror/internal/cli"
	"github.com/bankmirror/bankmirror/internal/config"
	"github.com/bankmirror/bankmirror/internal/daemon"
	"github.com/bankmirror/bankmirror/internal/health"
	"github.com/bankmirror/bankmirror/internal/statustext"
	"github.com/bankmirror/bankmirror/internal/store"
)

// members are the people configured, at least one (config.Members).
func (a *app) members() ([]config.Person, error) { return config.Members(a.environ) }

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
	o.People = config.Names(a.environ)
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
	c := statustext.NewClock(a.cfg.Location)
	tw := tabwriter.NewWriter(a.stdout, 2, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "PERSON\tCUSTOMER\tACCOUNTS\tBUDGET LEFT\tTOKEN\tWEBHOOK\tLAST SYNC")
	for _, p := range s.People {
		f := statustext.PersonFields(c, p)
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\n", p.Name, f.Customer, f.Accounts, f.Budget, f.Token, f.Webhook, f.LastSync)
	}
	return tw.Flush()
}
