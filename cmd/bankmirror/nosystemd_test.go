package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Outside systemd nothing makes the mirror's directory: a command says in
// one line what to create, and creates nothing.
func TestCLIMissingMirrorDirectorySaysWhatToCreate(t *testing.T) {
	b := newTokenBank(t, 5, cliToken)
	dir := filepath.Join(t.TempDir(), "bankmirror")
	for _, args := range [][]string{{"sync"}, {"webhook", "list"}} {
		r := runCLI(t, cliEnv(b, filepath.Join(dir, "bankmirror.db")), args...)
		wantCode(t, r, 1)
		want := "the mirror's directory " + dir + " does not exist: create it, owned by the user who runs bankmirror (install -d -m 0700 -o "
		if lines := strings.Split(strings.TrimSpace(r.stderr), "\n"); len(lines) != 1 || !strings.Contains(r.stderr, want) {
			t.Errorf("%v: want one line saying %q:\n%s", args, want, r)
		}
		if _, err := os.Stat(dir); err == nil {
			t.Errorf("%v created %s", args, dir)
		}
	}
}

// A command that writes a file (backup FILE, export -o FILE) where the
// user it runs as cannot write says so before doing any work, in one line
// naming that user and the directory.
func TestCLIUnwritableOutputSaidFirst(t *testing.T) {
	b := newTokenBank(t, 20, cliToken)
	db := filepath.Join(t.TempDir(), "mirror.db")
	env := cliEnv(b, db)
	wantCode(t, runCLI(t, env, "sync", "--full"), 0)
	out := t.TempDir()
	undo := readOnly(t, out)
	t.Cleanup(func() { undo(); must(t, os.Chmod(out, 0o700)) }) // before t.TempDir removes it
	for _, args := range [][]string{
		{"backup", filepath.Join(out, "b.db")},
		{"export", "-o", filepath.Join(out, "x.csv")},
		{"export", "--format", "xlsx", "-o", filepath.Join(out, "x.xlsx")},
	} {
		r := runCLI(t, env, args...)
		wantCode(t, r, 1)
		path := args[len(args)-1]
		want := "cannot write " + path + ": this command runs as " + currentUser() + ", who may not create files in " + out + "; "
		if lines := strings.Split(strings.TrimSpace(r.stderr), "\n"); len(lines) != 1 || !strings.Contains(r.stderr, want) {
			t.Errorf("%v: want one line saying %q:\n%s", args, want, r)
		}
		if r.stdout != "" {
			t.Errorf("%v wrote to stdout: %q", args, r.stdout)
		}
	}
	if entries, err := os.ReadDir(out); err != nil || len(entries) != 0 {
		t.Errorf("the directory holds %v (%v), want nothing", entries, err)
	}
}
