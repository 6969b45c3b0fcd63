package config

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"
)

// Settings and Config's fields are in step: each field read from the
// environment has its setting (a _FILE field its secret's, in the order of
// the fields), each setting a field, each default loads, and only the
// tolerant commands are named as readers.
func TestSettingsMatchConfig(t *testing.T) {
	f := fields()
	seen := map[string]bool{}
	var order []string
	for _, s := range Settings {
		if seen[s.Name] {
			t.Errorf("%s is in Settings twice", s.Var())
		}
		seen[s.Name] = true
		order = append(order, s.Var())
		if _, ok := f[s.Var()]; !ok {
			t.Errorf("%s has no field in Config", s.Var())
		}
		if s.Doc == "" {
			t.Errorf("%s has no Doc", s.Var())
		}
		file, hasFile := f[s.Var()+"_FILE"]
		if s.File != hasFile {
			t.Errorf("%s: File is %v, but Config has a _FILE field: %v", s.Var(), s.File, hasFile)
		}
		if s.File && !strings.HasSuffix(file.Tag.Get("env"), ",file") && s.Name != "TOKEN" {
			t.Errorf("%s_FILE's field does not read the file", s.Var())
		}
		if s.File {
			order = append(order, s.Var()+"_FILE")
		}
		if s.Secret && !s.sourceField(&Config{}).IsValid() {
			t.Errorf("the secret %s has no field in SecretSources recording where it came from", s.Var())
		}
		for _, cmd := range s.ReadBy {
			if !slices.Contains(tolerantCommands, cmd) {
				t.Errorf("%s: ReadBy names %s, which reads every setting anyway", s.Var(), cmd)
			}
		}
		if s.Default != "" {
			if _, err := Load(map[string]string{s.Var(): s.Default}); err != nil {
				t.Errorf("%s's default %q: %v", s.Var(), s.Default, err)
			}
		}
	}
	var fieldOrder []string
	tc := reflect.TypeFor[Config]()
	for i := range tc.NumField() {
		if tc.Field(i).Tag.Get("env") != "-" {
			fieldOrder = append(fieldOrder, varOfField(tc.Field(i).Name))
		}
	}
	if !slices.Equal(order, fieldOrder) {
		t.Errorf("Settings' order\n%v\nis not Config's\n%v", order, fieldOrder)
	}
}

func TestPollInterval(t *testing.T) {
	for v, want := range map[string]time.Duration{"": 5 * time.Minute, "0": 0, "30s": 30 * time.Second, "1h": time.Hour} {
		c, err := Load(map[string]string{"BANKMIRROR_POLL_INTERVAL": v})
		if err != nil || c.PollInterval != want {
			t.Errorf("POLL_INTERVAL=%q: %v, %v; want %v", v, c.PollInterval, err, want)
		}
	}
	for _, v := range []string{"-1m", "5s", "soon", "5"} {
		_, err := Load(map[string]string{"BANKMIRROR_POLL_INTERVAL": v})
		var ce *Error
		if !errors.As(err, &ce) || ce.Var != "BANKMIRROR_POLL_INTERVAL" {
			t.Errorf("POLL_INTERVAL=%q: %v, want an error naming the variable", v, err)
		}
	}
}

// writeToken writes a token file of mode perm into dir.
func writeToken(t *testing.T, dir, name, content string, perm os.FileMode) string {
	t.Helper()
	path := filepath.Join(dir, name)
	if err := os.WriteFile(path, []byte(content), perm); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(path, perm); err != nil { // whatever the umask
		t.Fatal(err)
	}
	return path
}

// wantPeople fails the test unless people are want, as "name=token@source".
func wantPeople(t *testing.T, people []Person, want ...string) {
	t.Helper()
	var got []string
	for _, p := range people {
		got = append(got, p.Name+"="+p.Token+"@"+p.Source)
	}
	if !slices.Equal(got, want) {
		t.Errorf("people = %q, want %q", got, want)
	}
}

// wantError fails the test unless err is an *Error for variable v whose
// message holds each of parts and none of the tokens.
func wantError(t *testing.T, err error, v string, parts ...string) {
	t.Helper()
	var ce *Error
	if !errors.As(err, &ce) || ce.Var != v {
		t.Fatalf("error %v (%T), want one for %s", err, err, v)
	}
	msg := err.Error()
	for _, p := range parts {
		if !strings.Contains(msg, p) {
			t.Errorf("error %q lacks %q", msg, p)
		}
	}
	if strings.Contains(msg, "SECRET") || strings.Contains(msg, "\n") {
		t.Errorf("error %q shows a token or is not one line", msg)
	}
}

func TestTokensDir(t *testing.T) {
	dir := t.TempDir()
	alex := writeToken(t, dir, "alex", "  SECRET-alex\n", 0o600)
	sam := writeToken(t, dir, "sam", "SECRET-sam", 0o400)
	environ := map[string]string{"BANKMIRROR_TOKENS_DIR": dir}
	people, err := People(environ)
	if err != nil {
		t.Fatal(err)
	}
	wantPeople(t, people, "alex=SECRET-alex@the file "+alex, "sam=SECRET-sam@the file "+sam)

	c, err := Load(environ)
	if err != nil {
		t.Fatal(err)
	}
	if c.Token != "" || !c.Household() || c.TokensDir != dir {
		t.Errorf("a household of two: Token %q, Household %v, TokensDir %q", c.Token, c.Household(), c.TokensDir)
	}

	// Read again (SIGHUP): a person added, one with a new token, one gone.
	kim := writeToken(t, dir, "kim", "SECRET-kim\n", 0o600)
	writeToken(t, dir, "alex", "SECRET-alex-2", 0o600)
	if err := os.Remove(sam); err != nil {
		t.Fatal(err)
	}
	people, err = People(environ)
	if err != nil {
		t.Fatal(err)
	}
	wantPeople(t, people, "alex=SECRET-alex-2@the file "+alex, "kim=SECRET-kim@the file "+kim)

	// A directory of one is a household of one: Token is that person's.
	one := t.TempDir()
	path := writeToken(t, one, "me_2", "SECRET-one", 0o600)
	c, err = Load(map[string]string{"BANKMIRROR_TOKENS_DIR": one})
	if err != nil || c.Token != "SECRET-one" || c.SecretFrom.Token != "the file "+path || c.Household() {
		t.Errorf("a directory of one: %q from %q, %v", c.Token, c.SecretFrom.Token, err)
	}
}

func TestTokensDirRefusals(t *testing.T) {
	const v = "BANKMIRROR_TOKENS_DIR"
	for _, tc := range []struct {
		name  string
		setup func(t *testing.T, dir string) string // the file the error names
		parts []string
	}{
		{"a capital letter", func(t *testing.T, dir string) string {
			return writeToken(t, dir, "Alex", "SECRET", 0o600)
		}, []string{"a person's name is 1 to 32 of a-z, 0-9, _ and -"}},
		{"a dot", func(t *testing.T, dir string) string {
			return writeToken(t, dir, "alex.txt", "SECRET", 0o600)
		}, []string{"rename or remove it"}},
		{"a hidden file", func(t *testing.T, dir string) string {
			return writeToken(t, dir, ".alex", "SECRET", 0o600)
		}, nil},
		{"33 characters", func(t *testing.T, dir string) string {
			return writeToken(t, dir, strings.Repeat("a", 33), "SECRET", 0o600)
		}, nil},
		{"group-readable", func(t *testing.T, dir string) string {
			return writeToken(t, dir, "alex", "SECRET", 0o640)
		}, []string{"open to group or others (mode 0640)", "chmod 600"}},
		{"world-readable", func(t *testing.T, dir string) string {
			return writeToken(t, dir, "sam", "SECRET", 0o604)
		}, []string{"mode 0604"}},
		{"a symbolic link", func(t *testing.T, dir string) string {
			target := writeToken(t, t.TempDir(), "target", "SECRET", 0o600)
			link := filepath.Join(dir, "alex")
			if err := os.Symlink(target, link); err != nil {
				t.Fatal(err)
			}
			return link
		}, []string{"is a symbolic link"}},
		{"a directory", func(t *testing.T, dir string) string {
			sub := filepath.Join(dir, "alex")
			if err := os.Mkdir(sub, 0o700); err != nil {
				t.Fatal(err)
			}
			return sub
		}, []string{"is not a regular file"}},
		{"an empty file", func(t *testing.T, dir string) string {
			return writeToken(t, dir, "alex", " \n", 0o600)
		}, []string{"holds no token"}},
		{"two lines", func(t *testing.T, dir string) string {
			return writeToken(t, dir, "alex", "SECRET\nmore\n", 0o600)
		}, []string{"control characters"}},
		{"the same token twice", func(t *testing.T, dir string) string {
			writeToken(t, dir, "alex", "SECRET-same", 0o600)
			return writeToken(t, dir, "sam", "SECRET-same\n", 0o600)
		}, []string{"hold the same token"}},
		{"a hard link", func(t *testing.T, dir string) string {
			// Another user's file (here a file elsewhere) linked in under a
			// person's name.
			target := writeToken(t, t.TempDir(), "target", "SECRET", 0o600)
			link := filepath.Join(dir, "alex")
			if err := os.Link(target, link); err != nil {
				t.Fatal(err)
			}
			return link
		}, []string{"has 2 hard links", "copy it, then remove the link"}},
		{"another owner", func(t *testing.T, dir string) string {
			if os.Geteuid() != 0 {
				t.Skip("a file of another user's can be made only as root")
			}
			path := writeToken(t, dir, "alex", "SECRET", 0o600)
			if err := os.Lchown(path, 65534, 65534); err != nil {
				t.Fatal(err)
			}
			return path
		}, []string{"belongs to uid 65534, not to uid 0 who reads the tokens", "chown it"}},
		{"empty", func(*testing.T, string) string { return "" }, []string{"holds no token file"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			writeToken(t, dir, "ok", "SECRET-ok", 0o600)
			if tc.name == "empty" {
				if err := os.Remove(filepath.Join(dir, "ok")); err != nil {
					t.Fatal(err)
				}
			}
			file := tc.setup(t, dir)
			environ := map[string]string{v: dir}
			_, err := People(environ)
			wantError(t, err, v, append(tc.parts, file)...)
			if _, lerr := Load(environ); lerr == nil || lerr.Error() != err.Error() {
				t.Errorf("Load: %v, want %v", lerr, err)
			}
		})
	}
	_, err := People(map[string]string{v: filepath.Join(t.TempDir(), "absent")})
	wantError(t, err, v, "cannot read directory", "absent")
}

// A tokens directory others may write is refused, naming its mode and the
// fix; one its group may only read is kept. One of another user's (not
// root's) is refused.
func TestTokensDirOpenToOthers(t *testing.T) {
	const v = "BANKMIRROR_TOKENS_DIR"
	for _, tc := range []struct {
		perm os.FileMode
		want []string // nil: read
	}{
		{0o777, []string{"may be written by group or others (mode 0777)", "chmod 0700", "0750"}},
		{0o770, []string{"(mode 0770)"}},
		{0o703, []string{"(mode 0703)"}},
		{0o777 | os.ModeSticky, []string{"(mode 0777)"}},
		{0o750, nil},
		{0o700, nil},
	} {
		t.Run(tc.perm.String(), func(t *testing.T) {
			dir := t.TempDir()
			writeToken(t, dir, "alex", "SECRET-alex", 0o600)
			if err := os.Chmod(dir, tc.perm); err != nil {
				t.Fatal(err)
			}
			people, err := People(map[string]string{v: dir})
			if tc.want == nil {
				if err != nil || len(people) != 1 {
					t.Fatalf("mode %04o: %v, %d people; want alex", tc.perm, err, len(people))
				}
				return
			}
			wantError(t, err, v, append(tc.want, dir)...)
		})
	}
	t.Run("another owner", func(t *testing.T) {
		if os.Geteuid() != 0 {
			t.Skip("a directory of another user's can be made only as root")
		}
		dir := t.TempDir()
		writeToken(t, dir, "alex", "SECRET-alex", 0o600)
		if err := os.Chown(dir, 65534, 65534); err != nil {
			t.Fatal(err)
		}
		_, err := People(map[string]string{v: dir})
		wantError(t, err, v, dir, "belongs to uid 65534, not to uid 0 who reads the tokens (or root)")
	})
}

// One token and a household's tokens together are refused, naming both.
func TestBothFormsRefused(t *testing.T) {
	dir := t.TempDir()
	writeToken(t, dir, "alex", "SECRET-alex", 0o600)
	creds := t.TempDir()
	writeToken(t, creds, "token.sam", "SECRET-sam", 0o400)
	single := t.TempDir()
	writeToken(t, single, "token", "SECRET-one", 0o400)
	file := writeToken(t, t.TempDir(), "token", "SECRET-file", 0o600)
	for _, tc := range []struct {
		name       string
		environ    map[string]string
		v, another string
	}{
		{"directory and token", map[string]string{"BANKMIRROR_TOKENS_DIR": dir, "BANKMIRROR_TOKEN": "SECRET"}, "BANKMIRROR_TOKENS_DIR", "BANKMIRROR_TOKEN"},
		{"directory and token file", map[string]string{"BANKMIRROR_TOKENS_DIR": dir, "BANKMIRROR_TOKEN_FILE": file}, "BANKMIRROR_TOKENS_DIR", "BANKMIRROR_TOKEN_FILE"},
		{"directory and the credential token", map[string]string{"BANKMIRROR_TOKENS_DIR": dir, "CREDENTIALS_DIRECTORY": single}, "BANKMIRROR_TOKENS_DIR", "$CREDENTIALS_DIRECTORY/token"},
		{"directory and credentials token.NAME", map[string]string{"BANKMIRROR_TOKENS_DIR": dir, "CREDENTIALS_DIRECTORY": creds}, "BANKMIRROR_TOKENS_DIR", "$CREDENTIALS_DIRECTORY/token.sam"},
		{"credentials token.NAME and a token", map[string]string{"CREDENTIALS_DIRECTORY": creds, "BANKMIRROR_TOKEN": "SECRET"}, "$CREDENTIALS_DIRECTORY/token.sam", "BANKMIRROR_TOKEN"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Load(tc.environ)
			wantError(t, err, tc.v, tc.another, "not both")
			if SettingOf(tc.v) != "TOKENS_DIR" {
				t.Errorf("SettingOf(%s) = %s", tc.v, SettingOf(tc.v))
			}
		})
	}
	// Both kinds of credential.
	writeToken(t, creds, "token", "SECRET-one", 0o400)
	_, err := People(map[string]string{"CREDENTIALS_DIRECTORY": creds})
	wantError(t, err, "$CREDENTIALS_DIRECTORY/token.sam", "$CREDENTIALS_DIRECTORY/token:")
}

// Under systemd, the credentials token.NAME are a household; other
// credentials are left alone.
func TestPersonCredentials(t *testing.T) {
	creds := t.TempDir()
	alex := writeToken(t, creds, "token.alex", "SECRET-alex\n", 0o400)
	sam := writeToken(t, creds, "token.sam", "SECRET-sam", 0o440)
	writeToken(t, creds, "export-token", "something else", 0o400)
	environ := map[string]string{"CREDENTIALS_DIRECTORY": creds}
	people, err := People(environ)
	if err != nil {
		t.Fatal(err)
	}
	wantPeople(t, people, "alex=SECRET-alex@the systemd credential "+alex, "sam=SECRET-sam@the systemd credential "+sam)
	// A new one is read the next time.
	kim := writeToken(t, creds, "token.kim", "SECRET-kim", 0o400)
	people, err = People(environ)
	if err != nil {
		t.Fatal(err)
	}
	wantPeople(t, people, "alex=SECRET-alex@the systemd credential "+alex, "kim=SECRET-kim@the systemd credential "+kim,
		"sam=SECRET-sam@the systemd credential "+sam)

	writeToken(t, creds, "token.Sam", "SECRET-Sam", 0o400)
	_, err = People(environ)
	wantError(t, err, "$CREDENTIALS_DIRECTORY/token.Sam", "a person's name")
	if _, setAside, err := LoadFor("status", environ); err != nil || len(setAside) != 1 || setAside[0].Var != "$CREDENTIALS_DIRECTORY/token.Sam" {
		t.Errorf("status with a bad credential name: set aside %v, %v", setAside, err)
	}
}

// The single-token forms are a household of one, named by
// BANKMIRROR_PERSON.
func TestHouseholdOfOne(t *testing.T) {
	file := writeToken(t, t.TempDir(), "token", "SECRET-file\n", 0o644) // as before: no mode check
	creds := t.TempDir()
	cred := writeToken(t, creds, "token", "SECRET-cred", 0o400)
	for _, tc := range []struct {
		name    string
		environ map[string]string
		want    string
	}{
		{"variable", map[string]string{"BANKMIRROR_TOKEN": " SECRET-var "}, "me=SECRET-var@BANKMIRROR_TOKEN"},
		{"file, named", map[string]string{"BANKMIRROR_TOKEN_FILE": file, "BANKMIRROR_PERSON": "alex"}, "alex=SECRET-file@BANKMIRROR_TOKEN_FILE=" + file},
		{"credential", map[string]string{"CREDENTIALS_DIRECTORY": creds, "BANKMIRROR_PERSON": "sam_2"}, "sam_2=SECRET-cred@the systemd credential " + cred},
	} {
		t.Run(tc.name, func(t *testing.T) {
			people, err := People(tc.environ)
			if err != nil {
				t.Fatal(err)
			}
			wantPeople(t, people, tc.want)
			c, err := Load(tc.environ)
			if err != nil || c.Token != people[0].Token || c.SecretFrom.Token != people[0].Source {
				t.Errorf("Load: token %q from %q, %v", c.Token, c.SecretFrom.Token, err)
			}
		})
	}
	people, err := People(map[string]string{"BANKMIRROR_TOKEN": "  "})
	if err != nil || len(people) != 0 {
		t.Errorf("a blank token: %v, %v; want no one", people, err)
	}
	for _, name := range []string{"Alex", "a b", strings.Repeat("x", 33), "ünï"} {
		_, err := Load(map[string]string{"BANKMIRROR_TOKEN": "SECRET", "BANKMIRROR_PERSON": name})
		wantError(t, err, "BANKMIRROR_PERSON", "a person's name")
		_, err = Load(map[string]string{"BANKMIRROR_PERSON": name})
		wantError(t, err, "BANKMIRROR_PERSON", "a person's name")
	}
}

// config lists each person with where their token came from, never a
// token; the token and the person setting say the people are listed.
func TestDumpShowsSourcesNotTokens(t *testing.T) {
	dir := t.TempDir()
	alex := writeToken(t, dir, "alex", "SECRET-alex", 0o600)
	sam := writeToken(t, dir, "sam", "SECRET-sam", 0o600)
	environ := map[string]string{"BANKMIRROR_TOKENS_DIR": dir, "BANKMIRROR_POLL_INTERVAL": "0"}
	c, err := Load(environ)
	if err != nil {
		t.Fatal(err)
	}
	people, err := People(environ)
	if err != nil {
		t.Fatal(err)
	}
	rows := map[string]string{}
	for _, r := range Dump(c, false, people) {
		if strings.Contains(r.Value, "SECRET") {
			t.Errorf("%s shows a token: %s", r.Name, r.Value)
		}
		rows[r.Name] = r.Value
	}
	for name, want := range map[string]string{
		"person alex":              "(token from the file " + alex + ", redacted)",
		"person sam":               "(token from the file " + sam + ", redacted)",
		"BANKMIRROR_TOKENS_DIR":    dir,
		"BANKMIRROR_TOKEN":         "(not set: the household's tokens, each person's below)",
		"BANKMIRROR_PERSON":        "(not used: each person's token is named by the person)",
		"BANKMIRROR_POLL_INTERVAL": "0s (off: joint accounts are not polled)",
	} {
		if rows[name] != want {
			t.Errorf("%s = %q, want %q", name, rows[name], want)
		}
	}
	c, err = Load(nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range Dump(c, false, nil) {
		switch r.Name {
		case "BANKMIRROR_TOKENS_DIR":
			if r.Value != "(not set: one token, BANKMIRROR_TOKEN's)" {
				t.Errorf("unset TOKENS_DIR: %q", r.Value)
			}
		case "BANKMIRROR_PERSON", "BANKMIRROR_POLL_INTERVAL":
			if r.Value != "me" && r.Value != "5m0s" {
				t.Errorf("%s = %q", r.Name, r.Value)
			}
		}
	}
}

// fields is every Config field read from the environment, by variable
// (prefix included); a test keeps it and Settings in step.
func fields() map[string]reflect.StructField {
	out := map[string]reflect.StructField{}
	t := reflect.TypeFor[Config]()
	for i := range t.NumField() {
		f := t.Field(i)
		if key := varOfField(f.Name); f.Tag.Get("env") != "-" {
			out[key] = f
		}
	}
	return out
}
