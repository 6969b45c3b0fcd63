package alerts_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/rs/zerolog"

	"github.com/bankmirror/bankmirror/internal/alerts"
	"github.com/bankmirror/bankmirror/internal/rules"
	"github.com/bankmirror/bankmirror/internal/store"
)

// hostile is bank text that would act on a terminal or a mail: a screen
// clear, a window title, a line break starting a header, a right-to-left
// override.
const hostile = "Shop\x1b[2J\x1b]0;pwned\x07\r\nBcc: mallory@example.org\u202Egpj.exe"

// hostileShown is the start of hostile as every channel shows it.
const hostileShown = "Shop⟨U+001B⟩[2J⟨U+001B⟩]0;pwned⟨U+0007⟩⟨U+000D⟩⟨U+000A⟩Bcc: mallory@example.org⟨U+202E⟩gpj.exe"

// A rule's alert about a transaction whose description and account name
// hold control characters shows them as ⟨U+XXXX⟩ in the mail's subject
// and body, the ntfy title and message and the webhook's JSON: no line of
// the mail's body (a Bcc:) and no escape sequence comes from the bank.
func TestBankTextInAlertsIsShownNotActedOn(t *testing.T) {
	ctx := context.Background()
	box := newMailbox(t)
	push := newRecorder(t)
	hook := newRecorder(t)
	st := openStore(t)
	d := alerts.NewDispatcher(st, nil, zerolog.Nop())
	configure(t, d, "[channel.mail]\nurl = \"smtp://"+box.addr+"/?to=alex@example.org&tls=none\"\n"+
		"[channel.push]\nurl = \"ntfy://"+push.host()+"/bank?scheme=http\"\n"+
		"[channel.hook]\nurl = \""+hook.srv.URL+"\"\n"+
		"[alerts]\ndashboard_url = \"http://127.0.0.1:8083\"\n")
	tx := store.RuleTransaction{ID: "tx-1\r\nBcc: x@y", AccountName: "Spending\x1b[31m\n", Person: "alex", Status: "SETTLED",
		Description: hostile, Currency: "AUD", AmountValue: "-12.00", AmountBaseUnits: -1200, CreatedLocal: "2026-03-04 09:30:00"}
	err := d.Notify(ctx, []rules.Notice{{Tx: tx, Rule: &rules.Rule{Name: "big"}, Channels: []string{"mail", "push", "hook"}}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := d.Round(ctx); err != nil {
		t.Fatal(err)
	}

	box.mu.Lock()
	msgs := append([]mailMsg(nil), box.msgs...)
	box.mu.Unlock()
	if len(msgs) != 1 || len(msgs[0].To) != 1 {
		t.Fatalf("mail %+v", msgs)
	}
	data := msgs[0].Data
	rawControl(t, "mail", strings.ReplaceAll(data, "\r\n", ""))
	for _, line := range strings.Split(data, "\r\n") {
		if strings.HasPrefix(strings.ToLower(line), "bcc:") {
			t.Errorf("a line of the mail comes from the bank: %q in\n%s", line, data)
		}
	}
	if !strings.Contains(unfold(data), "⟨U+000D⟩⟨U+000A⟩Bcc: mallory") {
		t.Errorf("mail does not show the hidden characters:\n%s", data)
	}

	for name, r := range map[string]*recorder{"push": push, "hook": hook} {
		got := r.got()
		if len(got) != 1 {
			t.Fatalf("%s: %d requests", name, len(got))
		}
		var m map[string]any
		if err := json.Unmarshal([]byte(got[0].Body), &m); err != nil {
			t.Fatal(err)
		}
		for _, k := range []string{"title", "message", "click", "dashboard_url"} {
			if s, ok := m[k].(string); ok {
				rawControl(t, name+" "+k, s)
			}
		}
		if title, _ := m["title"].(string); !strings.HasPrefix(title, hostileShown[:40]) {
			t.Errorf("%s title %q, want it to start %q", name, title, hostileShown[:40])
		}
		if msg, _ := m["message"].(string); !strings.Contains(msg, "Spending⟨U+001B⟩[31m⟨U+000A⟩") {
			t.Errorf("%s message %q does not show the account name's hidden characters", name, msg)
		}
	}
}

// rawControl fails when s holds a character a terminal or a mail acts on.
func rawControl(t *testing.T, where, s string) {
	t.Helper()
	if i := strings.IndexAny(s, "\x1b\x07\r\n\u202e\u2028"); i >= 0 {
		t.Errorf("%s holds a raw control character at %d: %q", where, i, s)
	}
}

// unfold is a mail's data without quoted-printable soft breaks and with
// its =XX escapes read, enough to search its body.
func unfold(data string) string {
	s := strings.ReplaceAll(data, "=\r\n", "")
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '=' && i+2 < len(s) && isHex(s[i+1]) && isHex(s[i+2]) {
			b.WriteByte(unhex(s[i+1])<<4 | unhex(s[i+2]))
			i += 2
			continue
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

func isHex(c byte) bool { return c >= '0' && c <= '9' || c >= 'A' && c <= 'F' }

func unhex(c byte) byte {
	if c <= '9' {
		return c - '0'
	}
	return c - 'A' + 10
}
