package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/bankmirror/bankmirror/internal/simulator"
	"github.com/bankmirror/bankmirror/internal/store"
)

// householdCLI is a simulated bank serving alex and sam, each with their
// own token, and the environment of commands against it: the tokens in
// BANKMIRROR_TOKENS_DIR, a mirror at db.
func householdCLI(t *testing.T) (*bankEnv, map[string]string, string) {
	t.Helper()
	tokens := map[string]string{"alex": "tok-alex-0123456789", "sam": "tok-sam-9876543210"}
	b := newBankWith(t, simulator.Options{Seed: 7, Transactions: 10, People: []string{"alex", "sam"}, Tokens: tokens,
		WebhookRetryBase: time.Millisecond, WebhookRetryMax: 20 * time.Millisecond, WebhookMaxAttempts: 50})
	dir := filepath.Join(t.TempDir(), "tokens")
	must(t, os.Mkdir(dir, 0o700))
	for name, tok := range tokens {
		must(t, os.WriteFile(filepath.Join(dir, name), []byte(tok+"\n"), 0o600))
	}
	db := filepath.Join(t.TempDir(), "mirror.db")
	env := cliEnv(b, db)
	delete(env, "BANKMIRROR_TOKEN")
	env["BANKMIRROR_TOKENS_DIR"] = dir
	return b, env, db
}

// A household of two: ping checks both tokens, a line each; webhook
// register makes one webhook per person through their token and keeps
// both secrets (0600), each recorded as its person's; list, logs and
// delete take --person; people and status list both people. When the
// bank revokes sam's token, ping says so for sam only.
func TestCLIHouseholdCommands(t *testing.T) {
	b, env, db := householdCLI(t)
	secrets := []string{"tok-alex-0123456789", "tok-sam-9876543210"}
	check := func(r cliResult, code int) cliResult {
		t.Helper()
		wantCode(t, r, code)
		for _, h := range b.sim.Webhooks() {
			secrets = append(secrets, h.Secret)
		}
		noLeak(t, r, secrets...)
		return r
	}
	ids := map[string]string{}
	for _, p := range b.sim.People() {
		ids[p.Name] = p.CustomerID
	}

	r := check(runCLI(t, env, "ping"), 0)
	want := "alex: token accepted by " + b.apiURL + ": customer " + ids["alex"] + " .*\nsam: token accepted by " + b.apiURL + ": customer " + ids["sam"] + " .*\n"
	if !regexp.MustCompile("^" + want + "$").MatchString(r.stdout) {
		t.Errorf("ping stdout:\n%s\nwant\n%s", r.stdout, want)
	}

	url := webhookSink(t)
	r = check(runCLI(t, env, "webhook", "register", "--url", url), 0)
	hooks := b.sim.Webhooks()
	if len(hooks) != 2 {
		t.Fatalf("bank webhooks after register = %+v, want one per person", hooks)
	}
	byPerson := map[string]string{}
	for _, h := range hooks {
		byPerson[h.Person] = h.ID
		sw, err := storedWebhook(t, db, h.ID)
		must(t, err)
		if sw.Person != h.Person || sw.SecretKey != h.Secret {
			t.Errorf("stored webhook %s: person %q, secret stored %t; want %s's with its secret", h.ID, sw.Person, sw.SecretKey == h.Secret, h.Person)
		}
		if !strings.Contains(r.stdout, "registered webhook "+h.ID+" ("+h.Person+"'s) for "+url) {
			t.Errorf("register does not name %s's webhook:\n%s", h.Person, r)
		}
	}
	if byPerson["alex"] == "" || byPerson["sam"] == "" {
		t.Fatalf("webhooks by person = %v", byPerson)
	}
	fi, err := os.Stat(store.SecretsPath(db))
	must(t, err)
	if fi.Mode().Perm() != 0o600 {
		t.Errorf("secrets file mode %v", fi.Mode().Perm())
	}

	r = check(runCLI(t, env, "webhook", "list"), 0)
	if lines := strings.Split(strings.TrimSpace(r.stdout), "\n"); len(lines) != 3 {
		t.Errorf("list shows %d lines, want the header and two webhooks:\n%s", len(lines), r)
	}
	r = check(runCLI(t, env, "webhook", "list", "--person", "sam"), 0)
	lines := strings.Split(strings.TrimSpace(r.stdout), "\n")
	if len(lines) != 2 || !strings.HasPrefix(lines[1], byPerson["sam"]+" ") || !strings.Contains(lines[1], " sam ") {
		t.Errorf("list --person sam:\n%s", r)
	}
	r = check(runCLI(t, env, "webhook", "list", "--person", "kim"), 2)
	if !strings.Contains(r.stderr, `no person "kim" in the household (people: alex, sam)`) {
		t.Errorf("list --person kim:\n%s", r)
	}
	// sam's webhook is found through sam's token, with or without --person.
	check(runCLI(t, env, "webhook", "logs", byPerson["sam"]), 0)
	r = check(runCLI(t, env, "webhook", "logs", "--person", "alex", byPerson["sam"]), 1)
	if !strings.Contains(r.stderr, "404") {
		t.Errorf("logs of sam's webhook through alex's token:\n%s", r)
	}

	r = check(runCLI(t, env, "people"), 0)
	for _, p := range []string{"alex", "sam"} {
		if !regexp.MustCompile(`(?m)^` + p + `\s.*` + regexp.QuoteMeta(byPerson[p]) + `\s`).MatchString(r.stdout) {
			t.Errorf("people does not list %s with their webhook %s:\n%s", p, byPerson[p], r)
		}
	}
	if !strings.HasPrefix(r.stdout, "PERSON") || !strings.Contains(r.stdout, "BUDGET LEFT") {
		t.Errorf("people has no header:\n%s", r)
	}
	r = runCLI(t, env, "status")
	for _, p := range []string{"alex", "sam"} {
		if !strings.Contains(r.stdout, "\nperson "+p+": ") {
			t.Errorf("status has no line for %s:\n%s", p, r)
		}
	}

	r = check(runCLI(t, env, "webhook", "delete", "--person", "sam", byPerson["sam"]), 0)
	if r.stdout != "deleted webhook "+byPerson["sam"]+" (sam's)\n" {
		t.Errorf("delete stdout = %q", r.stdout)
	}
	if hooks := b.sim.Webhooks(); len(hooks) != 1 || hooks[0].Person != "alex" {
		t.Errorf("bank webhooks after deleting sam's = %+v", hooks)
	}

	must(t, b.sim.RevokePersonToken("sam"))
	r = check(runCLI(t, env, "ping"), 1)
	if !strings.HasPrefix(r.stdout, "alex: token accepted") || strings.Contains(r.stdout, "sam") {
		t.Errorf("ping stdout with sam's token revoked:\n%s", r)
	}
	if !strings.HasPrefix(r.stderr, "bankmirror: sam: ") || !strings.Contains(r.stderr, "token rejected") {
		t.Errorf("ping stderr with sam's token revoked:\n%s", r)
	}
}
