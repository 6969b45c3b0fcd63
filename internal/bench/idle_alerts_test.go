package bench

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/bankmirror/bankmirror/internal/alerts"
	"github.com/bankmirror/bankmirror/internal/rules"
)

// The rules file of bench idle --alerts has a channel of each kind the
// daemon has, pointed at the bench's loopback servers, which the daemon's
// own senders reach: each server counts a delivery about the purchase,
// and a webhook signed with another secret is refused and fails the wait.
func TestAlertReceiversGetEachChannel(t *testing.T) {
	ctx := context.Background()
	recv, err := startAlertReceivers(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer recv.stop()
	path, err := recv.rulesFile(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	text, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	set, err := rules.Parse(path, text, time.UTC)
	if err != nil {
		t.Fatal(err)
	}
	if len(set.Rules) != 1 || !slices.Equal(set.Rules[0].Notify, alertChannels) {
		t.Fatalf("rules %+v: want one rule notifying %v", set.Rules, alertChannels)
	}
	about := alertsPurchase + " 7"
	if missing, _ := recv.missing(about); !slices.Equal(missing, alertChannels) {
		t.Fatalf("before any delivery, missing %v", missing)
	}
	m := alerts.Message{Kind: alerts.KindRule, Title: about + " -12.34 AUD", Message: "Someone spent 12.34 AUD at " + about + ".", Rule: "bench alert"}
	for _, name := range alertChannels {
		ch, ok := set.Channels[name]
		if !ok {
			t.Fatalf("no channel %s in the rules file", name)
		}
		s, err := alerts.Open(ch, nil)
		if err != nil {
			t.Fatal(err)
		}
		if err := s.Send(ctx, m); err != nil {
			t.Fatalf("send to %s: %v", name, err)
		}
	}
	d := &serveChild{done: make(chan struct{})}
	if err := recv.wait(ctx, about, time.Minute, d); err != nil {
		t.Fatal(err)
	}
	if n := recv.counts(); !slices.Equal(n, []int{1, 1, 1}) {
		t.Fatalf("deliveries %v, want one per channel", n)
	}

	wrong := set.Channels["webhook"]
	wrong.SecretFile = secretFile(t, "another secret")
	s, err := alerts.Open(wrong, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Send(ctx, m); err == nil || !alerts.IsPermanent(err) {
		t.Fatalf("a webhook signed with another secret: %v, want refused", err)
	}
	if err := recv.wait(ctx, about, time.Minute, d); err == nil || !strings.Contains(err.Error(), "bad signature") {
		t.Fatalf("wait after a refused delivery: %v", err)
	}
	if n := recv.counts(); !slices.Equal(n, []int{1, 1, 1}) {
		t.Fatalf("deliveries %v after a refused one, want still one per channel", n)
	}
}

func secretFile(t *testing.T, secret string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "secret")
	if err := os.WriteFile(path, []byte(secret), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// The table of bench idle --alerts has a row per run, with what each
// channel received, and the differences.
func TestPrintIdleAlerts(t *testing.T) {
	var b strings.Builder
	printIdleAlerts(&b, idleMemory{serveMemory{rss: 20, anon: 8, file: 12, hwm: 30}, []int{0, 0, 0}},
		idleMemory{serveMemory{rss: 21.5, anon: 9, file: 12.5, hwm: 29}, []int{1, 1, 2}})
	for _, want := range []string{
		"| serve | RSS (VmRSS) | anonymous + file-backed | peak (VmHWM) | alerts received (ntfy, webhook, email) |",
		"| without a rules file | 20.0 MiB | 8.0 + 12.0 MiB | 30.0 MiB | 0, 0, 0 |",
		"| with the rules file (1 rule, 3 channels) | 21.5 MiB | 9.0 + 12.5 MiB | 29.0 MiB | 1, 1, 2 |",
		"| difference | +1.5 MiB | +1.0 anonymous, +0.5 file-backed | -1.0 MiB | |",
	} {
		if !strings.Contains(b.String(), want+"\n") {
			t.Errorf("no line %q in:\n%s", want, b.String())
		}
	}
}
