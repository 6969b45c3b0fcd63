package config

import (
	"fmt"
	"io"
	"strings"
)

//go:generate go test -tags sqlite_fts5 -run TestGeneratedFiles -update

// Doc is one variable as --help and the manual list it.
type Doc struct {
	Name string
	// Default is its value when unset, or how it is computed; "" when none.
	Default string
	Doc     string
}

// Docs lists every variable, each _FILE variant after its secret, for
// --help and the manual's ENVIRONMENT.
func Docs() []Doc {
	var out []Doc
	for _, s := range Settings {
		def := s.Default
		if def == "" {
			def = s.DefaultDoc
		}
		out = append(out, Doc{Name: s.Var(), Default: def, Doc: s.Doc})
		if s.File {
			out = append(out, Doc{Name: s.Var() + "_FILE", Doc: s.fileDoc()})
		}
	}
	return out
}

func (s *Setting) fileDoc() string {
	if s.FileDoc != "" {
		return s.FileDoc
	}
	return "a file holding " + s.Var()
}

// Table markers of docs/configuration.md: the lines between them are
// MarkdownTable's.
const (
	TableBegin = "<!-- Generated from internal/config/settings.go by `go generate ./internal/config`: edit it there. -->"
	TableEnd   = "<!-- End of the generated table. -->"
)

// MarkdownTable writes the table of every variable of
// docs/configuration.md.
func MarkdownTable(w io.Writer) {
	fmt.Fprint(w, "| variable | default | meaning |\n|---|---|---|\n")
	for _, s := range Settings {
		name := "`" + s.Var() + "`"
		if s.File {
			name += " / `" + s.Var() + "_FILE`"
		}
		def := s.ManualDefault
		switch {
		case def != "":
		case s.Default != "":
			def = "`" + s.Default + "`"
		case s.DefaultDoc != "":
			def = s.DefaultDoc
		}
		meaning := s.Manual
		if meaning == "" {
			meaning = s.Doc
		}
		fmt.Fprintf(w, "| %s | %s | %s |\n", name, def, strings.ReplaceAll(meaning, "|", `\|`))
	}
}

// ExampleFile is the path of the example environment file in the
// source, and where the package installs it.
const (
	ExampleFile      = "packaging/bankmirror.env.example"
	ExampleInstalled = "/usr/share/doc/bankmirror/bankmirror.env.example"
)

// Example writes the commented example environment file: every variable
// with what it means and its default, commented out. Secrets are shown by
// their _FILE variant only, since a secret does not belong in such a file.
func Example(w io.Writer) {
	fmt.Fprint(w, `# bankmirror's settings: every BANKMIRROR_* variable, with what it means and
# its default (commented out). Copy this file, uncomment and change what you
# need, and load it with systemd's EnvironmentFile= or, in a shell:
#   set -a; . ./bankmirror.env; set +a
# Secrets (tokens) do not belong here: put each in a file of mode 0600 named
# by its _FILE variable, or load it as a systemd credential. "bankmirror
# config" prints the values in effect; docs/configuration.md says more.
#
# Generated from internal/config/settings.go by "go generate ./internal/config".
`)
	for _, s := range Settings {
		fmt.Fprintln(w)
		for _, line := range wrap(s.Doc, 76) {
			fmt.Fprintf(w, "# %s\n", line)
		}
		name, value := s.Var(), s.Default
		switch {
		case s.Secret && s.File:
			name += "_FILE"
			value = s.Example
		case value == "":
			if s.DefaultDoc != "" {
				for _, line := range wrap("Default: "+s.DefaultDoc+".", 76) {
					fmt.Fprintf(w, "# %s\n", line)
				}
			}
			value = s.Example
		}
		fmt.Fprintf(w, "#%s=%s\n", name, envQuote(value))
	}
}

// envQuote quotes a value with blanks or shell characters for both
// systemd's EnvironmentFile= and a POSIX shell.
func envQuote(v string) string {
	if v == "" || !strings.ContainsAny(v, " \t\"'$\\`#;&|<>()*?[]~") {
		return v
	}
	return `"` + strings.NewReplacer(`\`, `\\`, `"`, `\"`, "$", `\$`, "`", "\\`").Replace(v) + `"`
}

// wrap splits text into lines of at most width characters, at blanks.
func wrap(text string, width int) []string {
	var lines []string
	line := ""
	for _, word := range strings.Fields(text) {
		if line != "" && len(line)+1+len(word) > width {
			lines = append(lines, line)
			line = ""
		}
		if line != "" {
			line += " "
		}
		line += word
	}
	if line != "" {
		lines = append(lines, line)
	}
	return lines
}
