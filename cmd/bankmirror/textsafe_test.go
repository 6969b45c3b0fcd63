package main

import (
	"context"
	"database/sql"
	"path/filepath"
	"strings"
	"testing"

	"github.com/bankmirror/bankmirror/internal/simulator"
	"github.com/bankmirror/bankmirror/internal/store"
)

// hostileText is bank text that would act on a terminal: a screen clear,
// a window title (OSC ... BEL), a line break, a right-to-left override.
const hostileText = "Shop\x1b[2J\x1b]0;pwned\x07\r\nX\u202Egpj.exe"

// hostileShown is how every command shows it.
const hostileShown = "Shop⟨U+001B⟩[2J⟨U+001B⟩]0;pwned⟨U+0007⟩⟨U+000D⟩⟨U+000A⟩X⟨U+202E⟩gpj.exe"

// noRawControl fails when out holds a control character other than the
// line ends and tabs of the command's own layout, or a bidirectional
// control.
func noRawControl(t *testing.T, what, out string) {
	t.Helper()
	for i, r := range out {
		if (r < 0x20 && r != '\n' && r != '\t') || r == 0x7f || (r >= 0x80 && r < 0xa0) || r == '\u202e' {
			t.Errorf("%s prints a raw %U at byte %d:\n%q", what, r, i, out)
			return
		}
	}
	if strings.Contains(out, "\r") {
		t.Errorf("%s prints a carriage return:\n%q", what, out)
	}
}

// Descriptions, account names and other bank text reach the terminal
// with what is hidden in them shown as ⟨U+XXXX⟩: rules preview, people,
// status, alerts list, events stuck and webhook list print no escape
// sequence, no line break and no bidirectional control of the bank's.
func TestCLIShowsBankTextVisibly(t *testing.T) {
	b := newBank(t, 10)
	dir := t.TempDir()
	db := filepath.Join(dir, "mirror.db")
	env := cliEnv(b, db)
	env["BANKMIRROR_RULES_FILE"] = filepath.Join(dir, "rules.toml")
	acc := b.sim.Snapshot().Accounts[0].ID
	b.sim.AddTransaction(simulator.NewTransaction{AccountID: acc, Description: hostileText, AmountBaseUnits: -4000, Held: true})
	wantCode(t, runCLI(t, env, "sync", "--full"), 0)
	writeRules(t, env["BANKMIRROR_RULES_FILE"], "[[rule]]\nname = \"shop\"\nwhen = 'description startsWith \"Shop\"'\ncategory = \"fuel\"\n")

	r := runCLI(t, env, "rules", "preview")
	wantCode(t, r, 0)
	noRawControl(t, "rules preview", r.stdout)
	if !strings.Contains(r.stdout, hostileShown[:60]) {
		t.Errorf("rules preview does not show the description's hidden characters:\n%s", r.stdout)
	}

	// The store is the other way bank text arrives: an account's name, an
	// alert's title and an event's error.
	raw, err := sql.Open("sqlite3", db)
	must(t, err)
	_, err = raw.Exec("UPDATE accounts SET display_name = ? WHERE id = ?", hostileText, acc)
	must(t, err)
	must(t, raw.Close())
	st, err := store.Open(context.Background(), db)
	must(t, err)
	_, err = st.EnqueueAlerts(t.Context(), []store.Alert{{Key: "k", Channel: "mail", Kind: "rule", Title: hostileText, Message: "m", Payload: "{}"}})
	must(t, err)
	msg := "bank said " + hostileText
	_, err = st.InsertEvents(t.Context(), []store.InboxEvent{{ID: "ev\x1b[2J", EventType: "TRANSACTION_CREATED", WebhookID: "wh",
		TransactionID: "tx\r\n", CreatedAt: "2026-03-04T09:30:00+11:00", Body: "{}"}})
	must(t, err)
	must(t, st.Close())
	raw, err = sql.Open("sqlite3", db)
	must(t, err)
	_, err = raw.Exec("UPDATE webhook_events SET attempts = 99, last_error = ?", msg)
	must(t, err)
	must(t, raw.Close())

	for _, args := range [][]string{{"people"}, {"status"}, {"alerts", "list"}, {"events", "stuck"}} {
		r := runCLI(t, env, args...)
		noRawControl(t, strings.Join(args, " "), r.stdout+r.stderr)
		if !strings.Contains(r.stdout, hostileShown) {
			t.Errorf("%s does not show the bank's text with its hidden characters:\n%s", strings.Join(args, " "), r)
		}
	}
}
