package statustext

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/bankmirror/bankmirror/internal/bank"
	"github.com/bankmirror/bankmirror/internal/config"
	"github.com/bankmirror/bankmirror/internal/health"
	"github.com/bankmirror/bankmirror/internal/money"
	"github.com/bankmirror/bankmirror/internal/ptr"
	"github.com/bankmirror/bankmirror/internal/store"
	"github.com/bankmirror/bankmirror/internal/textsafe"
)

// Write writes the status s of the mirror db for people, times by c; a
// rejected token's line says what to do (config.TokenAdvice of environ).
func Write(w io.Writer, db string, c Clock, environ map[string]string, s health.Status) {
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
			last = append(last, fmt.Sprintf("%s %s ago (%s)", kind, health.Age(time.Duration(r.Age*float64(time.Second))), c.At(r.At)))
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
	WritePeople(w, c, environ, s.People)
	if o := s.BankOutage; o != nil {
		fmt.Fprintf(w, "bank: UNREACHABLE by %s, since %s (%s ago)%s: %s\n", health.LastSyncs(o.Syncs), c.At(o.Since), health.Age(time.Since(o.Since)),
			retrying(c, o.RetryAt), textsafe.Line(o.LastError))
	}
	writeBudget(w, c, s.Budget)
	if wk := s.Worker; wk != nil && wk.Paused && !wk.Unauthorized {
		fmt.Fprintf(w, "webhook worker: PAUSED, retrying at %s: %s\n", c.At(wk.PausedUntil), textsafe.Line(wk.PauseCause))
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
	fmt.Fprintf(w, "mirror: %s, %s\n", db, describeSize(s.Size, r.Transactions))
	fmt.Fprintf(w, "rows: %d accounts, %d transactions (%d HELD), %d categories, %d tags, %d attachments, %d history rows\n",
		r.Accounts, r.Transactions, r.Held, r.Categories, r.Tags, r.Attachments, r.History)
	if len(s.Runs) == 0 {
		fmt.Fprintln(w, "sync runs: none yet")
		return
	}
	fmt.Fprintf(w, "last sync runs (times in %s):\n", c.Loc)
	tw := tabwriter.NewWriter(w, 2, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "  ID\tKIND\tSTARTED\tFINISHED\tSTATUS\tREQUESTS\tCHANGED\tDELETED\tERROR")
	for _, r := range s.Runs {
		fmt.Fprintf(tw, "  %d\t%s\t%s\t%s\t%s\t%d\t%d\t%d\t%s\n", r.ID, r.Kind, c.Stamp(r.StartedAt), c.Stamp(ptr.Or(r.FinishedAt, "-")),
			r.Status, r.Requests, r.Upserted, r.Deleted, textsafe.Line(ptr.Value(r.Error)))
	}
	_ = tw.Flush()
}

// writeBudget shows what the daemon last reported of the bank's budget.
func writeBudget(w io.Writer, c Clock, b *bank.BudgetState) {
	switch {
	case b == nil:
		fmt.Fprintln(w, "bank budget: unknown (no running daemon)")
	case b.Waiting:
		fmt.Fprintf(w, "bank budget: WAITING until %s: %s", c.At(b.WaitUntil), textsafe.Line(b.WaitReason))
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
func retrying(c Clock, at time.Time) string {
	if at.IsZero() {
		return ""
	}
	return ", retrying at " + c.At(at)
}

// PersonText is a person's status in words, field by field.
type PersonText struct {
	Customer, Accounts, Budget, Token, Webhook, LastSync string
}

// PersonFields says p's status in words.
func PersonFields(c Clock, p health.PersonStatus) PersonText {
	t := PersonText{Customer: textsafe.Line(p.CustomerID), Accounts: "none known", Budget: "unknown", Token: p.TokenState,
		Webhook: "none", LastSync: "never"}
	if t.Customer == "" {
		t.Customer = "-"
	}
	if len(p.Accounts) > 0 {
		t.Accounts = fmt.Sprintf("%d (%s)", len(p.Accounts), textsafe.Line(strings.Join(p.Accounts, ", ")))
	}
	if b := p.Budget; b != nil && b.Known {
		t.Budget = fmt.Sprint(b.Remaining)
	}
	if p.Token.Rejected {
		t.Token = "REJECTED " + health.Age(time.Since(p.Token.RejectedAt)) + " ago"
	}
	if len(p.Webhooks) > 0 {
		t.Webhook = textsafe.Line(strings.Join(p.Webhooks, ", "))
	}
	if !p.LastSync.IsZero() {
		t.LastSync = c.At(p.LastSync)
	}
	return t
}

// WritePeople writes status's line for each person; a rejected token's
// says what to do (config.TokenAdvice of environ).
func WritePeople(w io.Writer, c Clock, environ map[string]string, people []health.PersonStatus) {
	for _, p := range people {
		f := PersonFields(c, p)
		if p.Token.Rejected {
			fmt.Fprintf(w, "person %s: token %s: %s; last sync %s\n", p.Name, f.Token, config.TokenAdvice(environ, p.Name), f.LastSync)
			continue
		}
		fmt.Fprintf(w, "person %s: token %s, %s requests left, accounts %s, webhook %s, last sync %s\n",
			p.Name, f.Token, f.Budget, f.Accounts, f.Webhook, f.LastSync)
	}
}

// describeSize says how big the mirror is, and per transaction: 1.2 GiB
// (2,510 bytes a transaction; 3.0 MiB free; WAL 4.0 MiB).
func describeSize(sz store.Size, transactions int64) string {
	out := bytesText(sz.Bytes)
	var more []string
	if transactions > 0 {
		more = append(more, money.Thousands((sz.Bytes+sz.WALBytes)/transactions)+" bytes a transaction")
	}
	more = append(more, bytesText(sz.FreeBytes)+" free", "WAL "+bytesText(sz.WALBytes))
	return out + " (" + strings.Join(more, "; ") + ")"
}

// bytesText is n bytes in KiB, MiB or GiB, to a tenth.
func bytesText(n int64) string {
	switch {
	case n >= 1<<30:
		return fmt.Sprintf("%.1f GiB", float64(n)/(1<<30))
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d bytes", n)
}
