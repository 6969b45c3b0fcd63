package config

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the files made from Settings (docs/configuration.md's table, the example environment file)")

// root is the repository's root, from this package's directory.
const root = "../.."

// The table of docs/configuration.md and the example environment file are
// what Settings makes: "go generate ./internal/config" (this test with
// -update) rewrites them.
func TestGeneratedFiles(t *testing.T) {
	t.Run("docs/configuration.md", func(t *testing.T) {
		path := filepath.Join(root, "docs", "configuration.md")
		doc, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		begin := bytes.Index(doc, []byte(TableBegin+"\n"))
		end := bytes.Index(doc, []byte(TableEnd+"\n"))
		if begin < 0 || end < begin {
			t.Fatalf("%s lacks the markers of the generated table:\n%s\n%s", path, TableBegin, TableEnd)
		}
		var table bytes.Buffer
		MarkdownTable(&table)
		head := doc[:begin+len(TableBegin)+1]
		want := string(head) + "\n" + table.String() + "\n" + string(doc[end:])
		check(t, path, string(doc), want)
	})
	t.Run(ExampleFile, func(t *testing.T) {
		path := filepath.Join(root, ExampleFile)
		got, err := os.ReadFile(path)
		if err != nil && !*update {
			t.Fatal(err)
		}
		var want strings.Builder
		Example(&want)
		check(t, path, string(got), want.String())
	})
}

// check fails the test unless the file at path holds want, or with
// -update writes want there.
func check(t *testing.T, path, got, want string) {
	t.Helper()
	if got == want {
		return
	}
	if *update {
		if err := os.WriteFile(path, []byte(want), 0o644); err != nil { //nolint:gosec // a document of the repository
			t.Fatal(err)
		}
		t.Logf("rewrote %s", path)
		return
	}
	t.Errorf("%s is not what internal/config/settings.go makes: run go generate ./internal/config\n%s", path, firstDifference(got, want))
}

// firstDifference shows the first line where got and want differ.
func firstDifference(got, want string) string {
	g, w := strings.Split(got, "\n"), strings.Split(want, "\n")
	for i := range max(len(g), len(w)) {
		var gl, wl string
		if i < len(g) {
			gl = g[i]
		}
		if i < len(w) {
			wl = w[i]
		}
		if gl != wl {
			return "line " + strconv.Itoa(i+1) + ":\n  have: " + gl + "\n  want: " + wl
		}
	}
	return ""
}

// The example environment file shows every variable, each secret by its
// _FILE variant only, commented out, and wrapped to fit 80 columns.
func TestExampleFile(t *testing.T) {
	var b strings.Builder
	Example(&b)
	out := b.String()
	for _, s := range Settings {
		want := "\n#" + s.Var() + "="
		if s.Secret {
			want = "\n#" + s.Var() + "_FILE="
			if strings.Contains(out, "\n#"+s.Var()+"=") {
				t.Errorf("the secret %s is shown as a value", s.Var())
			}
		}
		if !strings.Contains(out, want) {
			t.Errorf("the example lacks %q", want)
		}
	}
	for line := range strings.Lines(out) {
		if len(strings.TrimRight(line, "\n")) > 80 {
			t.Errorf("line longer than 80 columns: %q", line)
		}
		if !strings.HasPrefix(line, "#") && line != "\n" {
			t.Errorf("line not commented out: %q", line)
		}
	}
	for _, want := range []string{"\n#BANKMIRROR_SYNC_SCHEDULE=\"@every 30m\"\n", "\n#BANKMIRROR_POLL_INTERVAL=5m\n", "\n#BANKMIRROR_TOKENS_DIR=/etc/bankmirror/tokens\n"} {
		if !strings.Contains(out, want) {
			t.Errorf("the example lacks %q:\n%s", want, out)
		}
	}
}

// Each value of the example file, uncommented, loads to the default it
// shows (and the examples of settings without one load too).
func TestExampleFileLoads(t *testing.T) {
	var b strings.Builder
	Example(&b)
	environ := map[string]string{}
	for line := range strings.Lines(b.String()) {
		name, value, ok := strings.Cut(strings.TrimSuffix(strings.TrimPrefix(line, "#"), "\n"), "=")
		if !ok || !strings.HasPrefix(name, Prefix) || strings.HasSuffix(name, "_FILE") || name == Prefix+"TOKENS_DIR" {
			continue
		}
		environ[name] = strings.Trim(value, `"`)
	}
	c, err := Load(environ)
	if err != nil {
		t.Fatal(err)
	}
	d, err := Load(nil)
	if err != nil {
		t.Fatal(err)
	}
	// Those with an example rather than a default differ from the defaults.
	d.DB, d.LogFormat, d.AttachmentsDir, d.UIListen, d.TrustedProxies, d.Proxies = c.DB, c.LogFormat, c.AttachmentsDir, c.UIListen, c.TrustedProxies, c.Proxies
	if c.Location.String() != d.Location.String() {
		t.Errorf("the example's zone loads to %v, not the default %v", c.Location, d.Location)
	}
	c.Location, d.Location = nil, nil
	if !reflect.DeepEqual(c, d) {
		t.Errorf("the example's values load to\n%+v\nnot the defaults\n%+v", c, d)
	}
}
