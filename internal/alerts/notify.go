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
		Message:       fmt.Sprintf("%s %s, %s%s, %s.", who, whatHappened(t, strings.TrimPrefix(amount, "-")), when, held, textsafe.Line(t.AccountName)),
		TransactionID: t.ID,
		Amount:        t.AmountValue,
		Person:        t.Person,
	}
	if u := d.Settings().DashboardURL; u != "" {
		m.DashboardURL = u + "/transactions/" + url.PathEscape(t.ID)
	}
	return m
}

// whatHappened says what the money did, after who: "moved" between own
// accounts, "paid" to a person (of the household or by a payment), "spent
// at" elsewhere; "received" for money in.
func whatHappened(t store.RuleTransaction, amount string) string {
	in := t.AmountBaseUnits > 0
	other := textsafe.Cut(t.Description, 120)
	switch {
	case t.TransferAccountID != "":
		account := t.TransferAccountName
		if account == "" {
			account = "another account"
		}
		if in {
			return fmt.Sprintf("moved %s in from %s", amount, textsafe.Cut(account, 120))
		}
		return fmt.Sprintf("moved %s to %s", amount, textsafe.Cut(account, 120))
	case t.HouseholdTransferID != "":
		if p := t.HouseholdTransferPerson; p != "" {
			other = strings.ToUpper(p[:1]) + p[1:]
		}
		if in {
			return fmt.Sprintf("was paid %s by %s", amount, other)
		}
		return fmt.Sprintf("paid %s %s", other, amount)
	case in:
		return fmt.Sprintf("received %s from %s", amount, other)
	case paymentTypes[t.TransactionType]:
		return fmt.Sprintf("paid %s %s", other, amount)
	default:
		return fmt.Sprintf("spent %s at %s", amount, other)
	}
}

// paymentTypes are the bank's transactionType of a payment to a person
// rather than a purchase.
var paymentTypes = map[string]bool{"Pay Anyone": true, "Osko Payment": true, "Scheduled Transfer": true}
