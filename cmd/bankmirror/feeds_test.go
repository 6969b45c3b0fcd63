package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// config shows each feed of the feeds file, where its secret comes from
// and whether it reads, never the secret.
func TestConfigShowsFeedsWithoutSecrets(t *testing.T) {
	dir := t.TempDir()
	must(t, os.WriteFile(filepath.Join(dir, "actual-password"), []byte("pw-SHOULD-NOT-APPEAR\n"), 0o600))
	file := filepath.Join(dir, "feeds.toml")
	must(t, os.WriteFile(file, []byte(`[[feed]]
name = "actual"
kind = "actual"
url = "http://127.0.0.1:5006"
password_file = "actual-password"
budget = "Household"
since = 2026-01-01
[feed.accounts]
"sam/Spending" = "Sam Spending"

[[feed]]
name = "ynab"
kind = "ynab"
budget = "Our plan"
[feed.accounts]
"2Up Spending" = "Joint"
`), 0o600))
	var out, errOut bytes.Buffer
	env := map[string]string{"BANKMIRROR_TOKEN": "tok", "BANKMIRROR_ADMIN_LISTEN": "off", "BANKMIRROR_FEEDS_FILE": file}
	if code := run(context.Background(), []string{"config"}, env, &out, &errOut); code != 0 {
		t.Fatalf("exit %d: %s", code, errOut.String())
	}
	s := out.String()
	if strings.Contains(s, "SHOULD-NOT-APPEAR") {
		t.Fatalf("a secret was printed:\n%s", s)
	}
	for _, want := range []string{
		"feeds (" + file + "):",
		"actual  actual http://127.0.0.1:5006, budget Household, since 2026-01-01",
		"(secret read from " + filepath.Join(dir, "actual-password") + ")",
		"sam/Spending → Sam Spending",
		"ynab    ynab -, budget Our plan, since -",
		`(secret UNREADABLE: ` + file + `:11: feed "ynab" has no token`,
	} {
		if !strings.Contains(s, want) {
			t.Errorf("config does not say %q:\n%s", want, s)
		}
	}
}

// feeds list reads the file without secrets; a bad file is one line with
// its file:line.
func TestFeedsListAndABadFile(t *testing.T) {
	file := filepath.Join(t.TempDir(), "feeds.toml")
	must(t, os.WriteFile(file, []byte("[[feed]]\nname = \"y\"\nkind = \"ynab\"\nbudget = \"B\"\n[feed.accounts]\n\"Spending\" = \"Checking\"\n"), 0o600))
	env := map[string]string{"BANKMIRROR_TOKEN": "tok", "BANKMIRROR_FEEDS_FILE": file}
	var out, errOut bytes.Buffer
	if code := run(context.Background(), []string{"feeds", "list"}, env, &out, &errOut); code != 0 {
		t.Fatalf("exit %d: %s", code, errOut.String())
	}
	if !strings.Contains(out.String(), "Spending → Checking") {
		t.Errorf("feeds list:\n%s", out.String())
	}
	must(t, os.WriteFile(file, []byte("[[feed]]\nname = \"y\"\nkind = \"ynab\"\nbudget = \"B\"\nsecret = \"x\"\n"), 0o600))
	out.Reset()
	errOut.Reset()
	if code := run(context.Background(), []string{"feeds", "list"}, env, &out, &errOut); code == 0 {
		t.Fatalf("a bad file listed:\n%s", out.String())
	}
	if !strings.Contains(errOut.String(), file+`:5: unknown key "feed.secret"`) {
		t.Errorf("bad file: %s", errOut.String())
	}
}
