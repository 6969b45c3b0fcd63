package alerts

import (
	"context"
	"fmt"
	"net/url"
	"strings"
	"time"

	"github.com/bankmirror/bankmirror/internal/money"
	"github.com/bankmirror/bankmirror/internal/rules"
	"github.com/bankmirror/bankmirror/internal/store"
	"github.com/bankmirror/bankmirror/internal/textsafe"
)

var _ rules.Notifier = (*Dispatcher)(nil)

// Notify queues one alert per rule and transaction for the rule's
// channels (rules.Engine's Notifier). The key, rule:RULE:TRANSACTION,
// makes a second arrival of the same transaction (its settlement) alert
// no more.
func (d *Dispatcher) Notify(ctx context.Context, notices []rules.Notice) error {
	for _, n := range notices {
		m := d.transactionMessage(n.Tx)
		m.Kind, m.Rule = KindRule, n.Rule.Name
		m.Key = "rule:" + n.Rule.Name + ":" + n.Tx.ID
		m.Message += " Rule: " + n.Rule.Name + "."
		if err := d.Enqueue(ctx, m, n.Channels); err != nil {
			return err
		}
	}
	return nil
}

// transactionMessage says what happened to the money, short: who, how
// much in the transaction's currency, where, when in the customer's zone.
func (d *Dispatcher) transactionMessage(t store.RuleTransaction) Message {
	amount := money.Format(t.AmountBaseUnits, t.Currency)
	who := t.Person
	if who == "" {
		who = "Someone"
		if t.AccountName != "" {
			who = textsafe.Line(t.AccountName)
		}
	} else {
		who = strings.ToUpper(who[:1]) + who[1:]
	}
	verb := "spent"
	if t.AmountBaseUnits > 0 {
		verb = "received"
	}
	when := t.CreatedLocal
	if lt, err := time.Parse("2006-01-02 15:04:05", t.CreatedLocal); err == nil {
		when = lt.Format("Mon 2 Jan 15:04")
	}
	held := ""
	if t.Status == "HELD" {
		held = " (held)"
	}
	m := Message{
		Title:         fmt.Sprintf("%s %s", textsafe.Cut(t.Description, 60), amount),
		Message:       fmt.Sprintf("%s %s %s at %s, %s%s, %s.", who, verb, strings.TrimPrefix(amount, "-"), textsafe.Cut(t.Description, 120), when, held, textsafe.Line(t.AccountName)),
		TransactionID: t.ID,
		Amount:        t.AmountValue,
		Person:        t.Person,
	}
	if u := d.Settings().DashboardURL; u != "" {
		m.DashboardURL = u + "/transactions/" + url.PathEscape(t.ID)
	}
	return m
}
