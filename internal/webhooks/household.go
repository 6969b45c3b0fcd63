package webhooks

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/bankmirror/bankmirror/internal/bank"
	"github.com/bankmirror/bankmirror/internal/store"
)

// Household is the webhook managers of a household's people, one per
// person, in the order they are configured. Each person registers their
// own webhook through their own token (the bank sends a token's events to
// that token's webhooks only) and every secret is kept.
type Household []*Manager

// Names are the people's names.
func (h Household) Names() []string {
	out := make([]string, len(h))
	for i, m := range h {
		out[i] = m.person
	}
	return out
}

// Only is the household reduced to the person named (all of it for ""),
// or an error naming the people there are.
func (h Household) Only(name string) (Household, error) {
	if name == "" {
		return h, nil
	}
	for _, m := range h {
		if m.person == name {
			return Household{m}, nil
		}
	}
	return nil, fmt.Errorf("no person %q in the household (people: %s)", name, strings.Join(h.Names(), ", "))
}

// Registered is one person's registration.
type Registered struct {
	Person string
	Hook   bank.Webhook
	Err    error
}

// Register registers a webhook for url through each person's token, one
// after the other; a person's failure does not stop the others. The error
// joins the failures, each naming its person.
func (h Household) Register(ctx context.Context, url string, desc *string) ([]Registered, error) {
	out := make([]Registered, 0, len(h))
	var errs []error
	for _, m := range h {
		hook, err := m.Register(ctx, url, desc)
		out = append(out, Registered{Person: m.person, Hook: hook, Err: err})
		if err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", m.person, err))
		}
	}
	return out, errors.Join(errs...)
}

// PersonListed is one of the bank's webhooks seen through a person's token.
type PersonListed struct {
	Person string
	Listed
}

// List lists each person's webhooks at the bank, person by person. A
// person whose token fails is an error naming them; the others' are
// listed.
func (h Household) List(ctx context.Context) ([]PersonListed, error) {
	var out []PersonListed
	var errs []error
	for _, m := range h {
		hooks, err := m.List(ctx)
		if err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", m.person, err))
			continue
		}
		for _, l := range hooks {
			out = append(out, PersonListed{Person: m.person, Listed: l})
		}
	}
	return out, errors.Join(errs...)
}

// Owner is the manager whose token sees webhook id: the person the mirror
// recorded for it, else the first person whose token the bank knows it
// for. A webhook no person's token knows is bank.ErrNotFound.
func (h Household) Owner(ctx context.Context, id string) (*Manager, error) {
	if len(h) == 1 {
		return h[0], nil
	}
	if len(h) > 0 {
		if w, err := h[0].store.Webhook(ctx, id); err == nil && w.Person != "" {
			if i := slices.IndexFunc(h, func(m *Manager) bool { return m.person == w.Person }); i >= 0 {
				return h[i], nil
			}
		} else if err != nil && !errors.Is(err, store.ErrNotFound) {
			return nil, err
		}
	}
	var errs []error
	for _, m := range h {
		_, err := m.bank.Webhook(ctx, id)
		if err == nil {
			return m, nil
		}
		if !errors.Is(err, bank.ErrNotFound) {
			errs = append(errs, fmt.Errorf("%s: %w", m.person, err))
		}
	}
	if err := errors.Join(errs...); err != nil {
		return nil, fmt.Errorf("find webhook %s: %w", id, err)
	}
	return nil, fmt.Errorf("webhook %s: no person's token knows it: %w", id, bank.ErrNotFound)
}
