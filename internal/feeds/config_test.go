package feeds

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The example file, exactly.
const exampleFile = `[[feed]]
name = "actual"                      # [a-z0-9_-]{1,32}
kind = "actual"                      # actual | ynab
url = "http://127.0.0.1:5006"        # Actual's server; for ynab only to point at a test server
password_file = "/etc/bankmirror/actual-password"   # actual
# token_file = "/etc/bankmirror/ynab-token"          # ynab: a personal access token
budget = "SYNC-ID"                   # Actual: sync id or budget name; YNAB: plan id or name
since = 2026-01-01                   # bank transactions created before it are not sent (default: all)

[feed.accounts]                      # bank account = account in the app; accounts not listed are not fed
"Spending" = "Up Spending"           # key: the bank account's id, its display name when unique,
"sam/Spending" = "Sam Spending"      #      or "person/Display Name"
"2Up Spending" = "Joint"
`

func TestParseTheDocumentedFormat(t *testing.T) {
	f, err := Parse("/etc/bankmirror/feeds.toml", []byte(exampleFile))
	if err != nil {
		t.Fatal(err)
	}
	if len(f.Feeds) != 1 {
		t.Fatalf("feeds = %d", len(f.Feeds))
	}
	fd := f.Feeds[0]
	if fd.Name != "actual" || fd.Kind != "actual" || fd.URL != "http://127.0.0.1:5006" || fd.Budget != "SYNC-ID" ||
		fd.Since != "2026-01-01" || fd.SecretFile != "/etc/bankmirror/actual-password" {
		t.Errorf("feed = %+v", fd)
	}
	var keys []string
	for _, k := range fd.Accounts {
		keys = append(keys, k.Key+"="+k.App)
	}
	if got := strings.Join(keys, ","); got != "Spending=Up Spending,sam/Spending=Sam Spending,2Up Spending=Joint" {
		t.Errorf("accounts in file order = %s", got)
	}
}

func TestParseRefusesWithFileAndLine(t *testing.T) {
	cases := []struct{ name, file, want string }{
		{"unknown key", strings.Replace(exampleFile, `budget = "SYNC-ID"`, "budget = \"SYNC-ID\"\ncolour = \"red\"", 1),
			`feeds.toml:8: unknown key "feed.colour"`},
		{"unknown kind", strings.Replace(exampleFile, `kind = "actual"`, `kind = "firefly"`, 1), `feeds.toml:3: feed "actual": unknown kind "firefly"`},
		{"bad name", strings.Replace(exampleFile, `name = "actual"`, `name = "Actual Budget"`, 1), `feeds.toml:2: feed name "Actual Budget"`},
		{"token for actual", strings.Replace(exampleFile, `# token_file`, `token_file`, 1), `feeds.toml:6: feed "actual": an actual feed takes password_file`},
		{"bad since", strings.Replace(exampleFile, `since = 2026-01-01`, `since = "first of jan"`, 1), `feeds.toml:8: feed "actual": since "first of jan"`},
		{"no accounts", strings.SplitN(exampleFile, "[feed.accounts]", 2)[0], `feeds.toml:1: feed "actual" has no [feed.accounts]`},
		{"two feeds one name", exampleFile + "\n" + exampleFile, `feeds.toml:15: feed "actual" is already defined at line 1`},
		{"bad toml", "[[feed]\n", `feeds.toml:2: expected end of table array`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := Parse("feeds.toml", []byte(c.file))
			if err == nil || !strings.HasPrefix(err.Error(), c.want) {
				t.Fatalf("err = %v, want it to start %q", err, c.want)
			}
		})
	}
}

func TestSecretsRelativeToTheFileOrACredential(t *testing.T) {
	dir := t.TempDir()
	write := func(name, content string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	write("actual-password", "s3cret\n")
	path := write("feeds.toml", strings.Replace(exampleFile, "/etc/bankmirror/actual-password", "actual-password", 1)+`
[[feed]]
name = "ynab"
kind = "ynab"
budget = "Household"
[feed.accounts]
"Spending" = "Checking"
`)
	creds := filepath.Join(dir, "creds")
	if err := os.Mkdir(creds, 0o700); err != nil {
		t.Fatal(err)
	}
	if _, err := Load(path, false, creds); err == nil || !strings.Contains(err.Error(), `feed "ynab": read token from the systemd credential feed.ynab: no such file`) {
		t.Fatalf("missing credential: err = %v", err)
	}
	if err := os.WriteFile(filepath.Join(creds, "feed.ynab"), []byte("tok-123\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	f, err := Load(path, false, creds)
	if err != nil {
		t.Fatal(err)
	}
	if a := f.Feed("actual"); a.Secret != "s3cret" || a.SecretFile != filepath.Join(dir, "actual-password") {
		t.Errorf("actual: secret from %q", a.SecretFile)
	}
	if y := f.Feed("ynab"); y.Secret != "tok-123" || y.SecretFrom != "the systemd credential feed.ynab" {
		t.Errorf("ynab: secret from %q", y.SecretFrom)
	}
	if f, err := Load(filepath.Join(dir, "none.toml"), true, ""); err != nil || len(f.Feeds) != 0 {
		t.Errorf("a missing default file: %v, %v", f, err)
	}
	if _, err := Load(filepath.Join(dir, "none.toml"), false, ""); err == nil {
		t.Error("a missing named file was accepted")
	}
}

// A secret file that is missing is named, as the relative path in the
// file resolves: the user sees which file to make.
func TestAMissingSecretFileIsNamed(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "feeds.toml")
	if err := os.WriteFile(path, []byte("[[feed]]\nname = \"ynab\"\nkind = \"ynab\"\ntoken_file = \"ynab-token\"\nbudget = \"Household\"\n[feed.accounts]\n\"Spending\" = \"Spending\"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	_, err := Load(path, false, "")
	want := path + `:1: feed "ynab": read token from ` + filepath.Join(dir, "ynab-token") + ": no such file or directory"
	if err == nil || err.Error() != want {
		t.Fatalf("a missing token file: %v\nwant %s", err, want)
	}
}

// A token file others can read is refused, naming the file and the mend,
// as the bank's token files and the alert channels' secret files are.
func TestASecretFileOthersCanReadIsRefused(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "feeds.toml")
	if err := os.WriteFile(path, []byte("[[feed]]\nname = \"ynab\"\nkind = \"ynab\"\ntoken_file = \"ynab-token\"\nbudget = \"Household\"\n[feed.accounts]\n\"Spending\" = \"Spending\"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	token := filepath.Join(dir, "ynab-token")
	if err := os.WriteFile(token, []byte("ytok\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(token, 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := Load(path, false, "")
	want := path + `:1: feed "ynab": ` + token + " can be read by others (mode 0644): chmod 600 it"
	if err == nil || err.Error() != want {
		t.Fatalf("a token file of mode 0644: %v\nwant %s", err, want)
	}
	if err := os.Chmod(token, 0o600); err != nil {
		t.Fatal(err)
	}
	f, err := Load(path, false, "")
	if err != nil || f.Feeds[0].Secret != "ytok" {
		t.Fatalf("the same file of mode 0600: %v", err)
	}
	// A symbolic link is refused, as the alert channels' secret files
	// are: the file it names could be anyone's.
	if err := os.Rename(token, token+".real"); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(token+".real", token); err != nil {
		t.Fatal(err)
	}
	_, err = Load(path, false, "")
	if want := path + `:1: feed "ynab": ` + token + " is not a regular file"; err == nil || err.Error() != want {
		t.Fatalf("a token file that is a symbolic link: %v\nwant %s", err, want)
	}
}

func TestAccountKeys(t *testing.T) {
	accounts := []BankAccount{
		{ID: "acc-alex-spending", Name: "Spending", People: []string{"alex"}},
		{ID: "acc-sam-spending", Name: "Spending", People: []string{"sam"}},
		{ID: "acc-joint", Name: "2Up Spending", People: []string{"alex", "sam"}},
		{ID: "acc-sam-saver", Name: "Holiday", People: []string{"sam"}},
	}
	fd := &Feed{Name: "f", Accounts: []AccountKey{
		{Key: "alex/Spending", App: "A"}, {Key: "sam/Spending", App: "S"}, {Key: "2Up Spending", App: "J"}, {Key: "acc-sam-saver", App: "H"}}}
	got, err := fd.ResolveAccounts(accounts)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"acc-alex-spending": "A", "acc-sam-spending": "S", "acc-joint": "J", "acc-sam-saver": "H"}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s -> %q, want %q", k, got[k], v)
		}
	}
	ambiguous := &Feed{Name: "f", Accounts: []AccountKey{{Key: "Spending", App: "X", Line: 9}}}
	_, err = ambiguous.ResolveAccounts(accounts)
	if err == nil || !strings.Contains(err.Error(), `line 9: bank account "Spending" is ambiguous: "alex/Spending", "sam/Spending"`) {
		t.Errorf("ambiguous: %v", err)
	}
	unknown := &Feed{Name: "f", Accounts: []AccountKey{{Key: "Bills", App: "X", Line: 3}}}
	_, err = unknown.ResolveAccounts(accounts)
	if err == nil || !strings.Contains(err.Error(), `no bank account "Bills"; the accounts are: "alex/Spending", "sam/Spending", "2Up Spending", "Holiday"`) {
		t.Errorf("unknown: %v", err)
	}
}
