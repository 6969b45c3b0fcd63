package cli

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// testProgram is a small program with each kind of command: flags of
// each kind, positional arguments, argument choices, subcommands with a default, an
// alias and environment variables. ran records what ran.
func testProgram(ran *[]string) *Program {
	record := func(name string) func(context.Context, []string) error {
		return func(_ context.Context, args []string) error {
			*ran = append(*ran, strings.TrimSpace(name+" "+strings.Join(args, " ")))
			return nil
		}
	}
	sync := flag.NewFlagSet("sync", flag.ContinueOnError)
	full := sync.Bool("full", false, "list everything")
	export := flag.NewFlagSet("export", flag.ContinueOnError)
	export.String("o", "", "output `FILE`")
	export.String("since", "", "from this `DATE`")
	export.Int("limit", 20, "at most `N` rows")
	bsync := flag.NewFlagSet("bench sync", flag.ContinueOnError)
	bsync.Int("rounds", 3, "`N` rounds")
	env := []Var{{Name: "PROG_DB", Default: "prog.db", Doc: "the database"}, {Name: "PROG_TOKEN", Doc: "a token; it's a secret\\not shown"}}
	return &Program{
		Name: "prog", Summary: "do things to a database",
		Description: "prog does things.\n\nIt has two paragraphs, the second starting with a dot:\n.not a request",
		Env:         env,
		Commands: []*Command{
			{Name: "sync", Synopsis: "[--full]", Flags: sync, Summary: "one sync", Env: env,
				Run: func(context.Context, []string) error {
					*ran = append(*ran, fmt.Sprintf("sync full=%v", *full))
					return nil
				}},
			{Name: "export", Synopsis: "[-o FILE] [--since DATE] [--limit N]", Flags: export, Summary: "export rows", Run: record("export")},
			{Name: "backup", Synopsis: "FILE", TakesArgs: true, Summary: "copy the database", Run: func(_ context.Context, args []string) error {
				if len(args) != 1 {
					return fmt.Errorf("%w: backup takes one file", ErrUsage)
				}
				*ran = append(*ran, "backup "+args[0])
				return nil
			}},
			{Name: "hook", Summary: "manage hooks", Commands: []*Command{
				{Name: "list", Summary: "the hooks", Run: record("hook list")},
				{Name: "delete", Synopsis: "ID", TakesArgs: true, Summary: "delete a hook", Run: record("hook delete")},
			}},
			{Name: "bench", Default: "sync", Summary: "benchmarks", Commands: []*Command{
				{Name: "sync", Synopsis: "[--rounds N]", Flags: bsync, Summary: "the sync bench", Run: record("bench sync")},
				{Name: "idle", Summary: "the idle bench", Run: record("bench idle")},
			}},
			{Name: "completion", Synopsis: "bash|zsh|fish", TakesArgs: true, ArgChoices: Shells, Summary: "a completion script", Run: record("completion")},
			{Name: "version", Aliases: []string{"--version", "-v"}, Summary: "print the version", Run: record("version")},
			{Name: "fail", Summary: "fails", Run: func(context.Context, []string) error { return errors.New("boom") }},
		},
		Sections: []Section{{Title: "EXIT STATUS", Text: "0 on success.\n\n  prog sync\n  prog export -o x.csv"}},
	}
}

type result struct {
	err            error
	ran            []string
	stdout, stderr string
}

func execute(args ...string) result {
	var ran []string
	var stdout, stderr bytes.Buffer
	err := testProgram(&ran).Execute(context.Background(), args, &stdout, &stderr)
	return result{err, ran, stdout.String(), stderr.String()}
}

func TestExecuteRuns(t *testing.T) {
	for _, c := range []struct {
		args []string
		ran  string
	}{
		{[]string{"sync"}, "sync full=false"},
		{[]string{"sync", "--full"}, "sync full=true"},
		{[]string{"sync", "-full"}, "sync full=true"},
		{[]string{"backup", "x.db"}, "backup x.db"},
		{[]string{"export", "--limit", "5", "-o", "x.csv"}, "export"},
		{[]string{"hook", "delete", "h1"}, "hook delete h1"},
		// Flags may follow the positional arguments; "--" ends the flags.
		{[]string{"backup", "--", "-x.db"}, "backup -x.db"},
		{[]string{"bench"}, "bench sync"},
		{[]string{"bench", "--rounds", "1"}, "bench sync"},
		{[]string{"bench", "idle"}, "bench idle"},
		{[]string{"--version"}, "version"},
		{[]string{"-v"}, "version"},
		{[]string{"completion", "fish"}, "completion fish"},
	} {
		r := execute(c.args...)
		if r.err != nil || !slices.Equal(r.ran, []string{c.ran}) || r.stdout != "" || r.stderr != "" {
			t.Errorf("%q: err %v, ran %q, stdout %q, stderr %q; want %q to run", c.args, r.err, r.ran, r.stdout, r.stderr, c.ran)
		}
	}
}

// Help goes to stdout and is not an error, wherever it is asked for; it
// runs nothing.
func TestExecuteHelp(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"help"}, "Usage: prog <command> [flags]"},
		{[]string{"--help"}, "Usage: prog <command> [flags]"},
		{[]string{"-h"}, "Usage: prog <command> [flags]"},
		{[]string{"help", "sync"}, "Usage: prog sync [--full]"},
		{[]string{"sync", "--help"}, "Usage: prog sync [--full]"},
		{[]string{"sync", "-h"}, "Usage: prog sync [--full]"},
		{[]string{"hook", "--help"}, "Usage: prog hook <command> [flags]"},
		{[]string{"hook", "delete", "--help"}, "Usage: prog hook delete ID"},
		{[]string{"bench", "--help"}, "Usage: prog bench [<command>] [flags]"},
		{[]string{"bench", "sync", "-h"}, "Usage: prog bench sync [--rounds N]"},
		{[]string{"backup", "x", "--help"}, "Usage: prog backup FILE"},
	} {
		r := execute(c.args...)
		if r.err != nil || len(r.ran) > 0 || !strings.HasPrefix(r.stdout, c.want) && !strings.Contains(r.stdout, "\n"+c.want) || r.stderr != "" {
			t.Errorf("%q: err %v, ran %q, stderr %q, stdout:\n%s\nwant %q", c.args, r.err, r.ran, r.stderr, r.stdout, c.want)
		}
	}
	r := execute("sync", "--help")
	for _, want := range []string{"One sync", "Flags:\n  --full\n        list everything\n", "Environment:\n  PROG_DB (default prog.db)\n        the database\n"} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("sync --help lacks %q:\n%s", want, r.stdout)
		}
	}
	r = execute("export", "-h")
	for _, want := range []string{"  -o FILE\n        output FILE\n", "  --limit N\n        at most N rows (default 20)\n"} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("export -h lacks %q:\n%s", want, r.stdout)
		}
	}
}

// Usage errors are explained on stderr, run nothing and wrap ErrUsage; the
// caller need not print them again.
func TestExecuteUsageErrors(t *testing.T) {
	for _, c := range []struct {
		args []string
		want []string
	}{
		{nil, []string{"Usage: prog <command> [flags]"}},
		{[]string{"frob"}, []string{`prog: unknown command "frob"`, "Usage: prog <command> [flags]"}},
		{[]string{"sync", "--bogus"}, []string{"flag provided but not defined: -bogus", "Usage: prog sync [--full]"}},
		{[]string{"export", "--limit", "x"}, []string{`invalid value "x" for flag -limit`}},
		{[]string{"sync", "now"}, []string{`prog: usage: sync takes no arguments, got "now"`, "Usage: prog sync [--full]"}},
		{[]string{"hook"}, []string{"prog: usage: hook needs a command: list, delete\n", "Usage: prog hook <command>"}},
		{[]string{"hook", "frob"}, []string{`prog: usage: unknown hook command "frob"`, "Usage: prog hook <command>"}},
		{[]string{"bench", "frob"}, []string{`prog: usage: unknown bench command "frob"`, "Usage: prog bench [<command>]"}},
		{[]string{"backup"}, []string{"prog: usage: backup takes one file", "Usage: prog backup FILE", `Run "prog backup --help" for more.`}},
	} {
		r := execute(c.args...)
		var shown *ShownError
		if !errors.Is(r.err, ErrUsage) || !errors.As(r.err, &shown) || len(r.ran) > 0 || r.stdout != "" {
			t.Errorf("%q: err %v, ran %q, stdout %q", c.args, r.err, r.ran, r.stdout)
		}
		for _, w := range c.want {
			if !strings.Contains(r.stderr, w) {
				t.Errorf("%q: stderr lacks %q:\n%s", c.args, w, r.stderr)
			}
		}
	}
	if r := execute("hook"); r.err == nil || !strings.Contains(r.err.Error(), "hook needs a command: list, delete") {
		t.Errorf("hook: %v", r.err)
	}
	if r := execute("hook", "frob"); r.err == nil || !strings.Contains(r.err.Error(), `unknown hook command "frob"`) {
		t.Errorf("hook frob: %v", r.err)
	}
	// A command's own error is returned as it is, for the caller to show.
	r := execute("fail")
	var shown *ShownError
	if r.err == nil || r.err.Error() != "boom" || errors.As(r.err, &shown) || r.stderr != "" {
		t.Errorf("fail: err %v, stderr %q", r.err, r.stderr)
	}
}

// scripts are the completion scripts of the test program, by shell.
func scripts(t *testing.T) map[string]string {
	t.Helper()
	var ran []string
	p := testProgram(&ran)
	dir := t.TempDir()
	out := map[string]string{}
	for _, sh := range Shells {
		var b bytes.Buffer
		if err := p.Completion(&b, sh); err != nil {
			t.Fatal(err)
		}
		path := filepath.Join(dir, "prog."+sh)
		if err := os.WriteFile(path, b.Bytes(), 0o600); err != nil {
			t.Fatal(err)
		}
		out[sh] = path
	}
	if err := p.Completion(&bytes.Buffer{}, "tcsh"); !errors.Is(err, ErrUsage) {
		t.Errorf("tcsh: %v", err)
	}
	return out
}

// CheckScript checks a completion script's syntax with its shell: bash -n,
// zsh -n, fish --no-execute. It skips a shell that is not installed.
func checkScript(t *testing.T, shell, path string) {
	t.Helper()
	bin, err := exec.LookPath(shell)
	if err != nil {
		t.Skipf("%s is not installed", shell)
	}
	flag := "-n"
	if shell == "fish" {
		flag = "--no-execute"
	}
	if out, err := exec.Command(bin, flag, path).CombinedOutput(); err != nil || len(out) > 0 {
		t.Errorf("%s %s %s: %v\n%s", shell, flag, path, err, out)
	}
}

// completions runs a shell's completion of line (the cursor at its end)
// through the script, and returns the candidates, one a line.
func completions(t *testing.T, shell, script, line string) []string {
	t.Helper()
	bin, err := exec.LookPath(shell)
	if err != nil {
		t.Skipf("%s is not installed", shell)
	}
	var cmd *exec.Cmd
	switch shell {
	case "bash":
		cmd = exec.Command(bin, "--norc", "--noprofile", "-c", `source "$1"; read -ra COMP_WORDS <<<"$2"; `+
			`[[ $2 == *" " ]] && COMP_WORDS+=(""); COMP_CWORD=$((${#COMP_WORDS[@]} - 1)); _prog; printf '%s\n' "${COMPREPLY[@]}"`, "bash", script, line)
	case "zsh":
		// Outside the completion system: its functions print what they
		// would offer that begins with the word being completed.
		cmd = exec.Command(bin, "-f", "-c", `compdef() { :; }
_describe() { local e; for e in "${(@P)${@[-1]}}"; do [[ ${e%%:*} == ${words[CURRENT]}* ]] && print -r -- "${e%%:*}"; done; true; }
compadd() { local e; for e in "${(@P)2}"; do [[ $e == ${words[CURRENT]}* ]] && print -r -- "$e"; done; true; }
_files() { print -r -- FILES; }
source "$1"; words=(${(z)2}); [[ $2 == *" " ]] && words+=(""); CURRENT=${#words}; _prog`, "zsh", script, line)
	case "fish":
		cmd = exec.Command(bin, "--no-config", "-c", `source $argv[1]; complete -C"$argv[2]" | string replace -r '\t.*' ''; true`, script, line)
	}
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%s completing %q: %v\n%s", shell, line, err, out)
	}
	return strings.Fields(string(out))
}

func TestCompletionScripts(t *testing.T) {
	paths := scripts(t)
	for _, shell := range Shells {
		t.Run(shell, func(t *testing.T) {
			checkScript(t, shell, paths[shell])
			for _, c := range []struct {
				line string
				want []string
			}{
				{"prog ", []string{"sync", "export", "backup", "hook", "bench", "completion", "version", "fail"}},
				{"prog ho", []string{"hook"}},
				{"prog hook ", []string{"list", "delete"}},
				{"prog hook d", []string{"delete"}},
				{"prog sync --", []string{"--full", "--help"}},
				{"prog export --since x --l", []string{"--limit"}},
				{"prog bench --r", []string{"--rounds"}},
				{"prog completion ", []string{"bash", "zsh", "fish"}},
				{"prog --ver", []string{"--version"}},
			} {
				got := completions(t, shell, paths[shell], c.line)
				if shell == "fish" && strings.HasSuffix(c.line, " ") {
					slices.Sort(got)
					c.want = slices.Sorted(slices.Values(c.want))
				}
				if !slices.Equal(got, c.want) {
					t.Errorf("%q completes to %q, want %q", c.line, got, c.want)
				}
			}
		})
	}
}

// A flag's value is a file name: bash leaves it to its default completion,
// zsh offers files.
func TestCompletionOfFlagValues(t *testing.T) {
	paths := scripts(t)
	if got := completions(t, "bash", paths["bash"], "prog export -o "); len(got) != 0 {
		t.Errorf("bash offers %q for -o's value", got)
	}
	if got := completions(t, "zsh", paths["zsh"], "prog export -o "); !slices.Equal(got, []string{"FILES"}) {
		t.Errorf("zsh offers %q for -o's value", got)
	}
}

func TestMan(t *testing.T) {
	var ran []string
	p := testProgram(&ran)
	var b bytes.Buffer
	p.Man(&b, ManPage{Version: "1.2.3", Date: "2026-01-02"})
	page := b.String()
	for _, want := range []string{
		`.TH "PROG" 1 "2026\-01\-02" "prog 1.2.3" "User Commands"`,
		".SH NAME\nprog \\- do things to a database\n",
		".SS \"hook delete\"\n",
		"\\fBprog sync\\fR [\\-\\-full]\n",
		".TP\n\\fB\\-\\-limit\\fR \\fIN\\fR\nat most N rows (default 20)\n",
		".B PROG_DB\nthe database\nDefault: \\fBprog.db\\fR.\n",
		"a token; it's a secret\\enot shown",
		"\\&.not a request",
		".SH \"EXIT STATUS\"\n",
		".RS\n.nf\nprog sync\nprog export \\-o x.csv\n.fi\n.RE\n",
		"Also run by \\fB\\-\\-version\\fR, \\fB\\-v\\fR.",
	} {
		if !strings.Contains(page, want) {
			t.Errorf("manual lacks %q:\n%s", want, page)
		}
	}
	p.Walk(func(path []*Command) {
		if !strings.Contains(page, fmt.Sprintf(".SS %q\n", p.pathName(path))) {
			t.Errorf("manual lacks command %q", p.pathName(path))
		}
	})
	if strings.Count(page, ".B PROG_DB\n") != 1 {
		t.Errorf("PROG_DB listed %d times", strings.Count(page, ".B PROG_DB\n"))
	}
	checkManPage(t, page)
}

// checkManPage renders page with groff, which must give no warning.
func checkManPage(t *testing.T, page string) {
	t.Helper()
	groff, err := exec.LookPath("groff")
	if err != nil {
		t.Skip("groff is not installed")
	}
	cmd := exec.Command(groff, "-man", "-Tutf8", "-ww", "-z")
	cmd.Stdin = strings.NewReader(page)
	if out, err := cmd.CombinedOutput(); err != nil || len(out) > 0 {
		t.Errorf("groff: %v\n%s", err, out)
	}
}
