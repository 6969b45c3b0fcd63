package bench

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"testing"
)

// The benchmarks' children run from a byte-for-byte copy of the binary
// they would have run, with the same arguments and environment, and the
// copy is removed after.
func TestInstalledRunsACopyOfTheBinary(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	env := Env{Command: func(ctx context.Context, args ...string) (*exec.Cmd, error) {
		c := exec.CommandContext(ctx, exe, args...)
		c.Env = []string{"MARK=1"}
		return c, nil
	}}
	dir := t.TempDir()
	remove, err := env.installed(context.Background(), dir)
	if err != nil {
		t.Fatal(err)
	}
	if env.Binary == exe || env.Binary == "" {
		t.Fatalf("children run %q, want a copy of %s", env.Binary, exe)
	}
	want, err := os.ReadFile(exe)
	if err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(env.Binary)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("the copy differs from the binary: %d bytes, want %d", len(got), len(want))
	}
	c, err := env.Command(context.Background(), "-test.run=^$")
	if err != nil {
		t.Fatal(err)
	}
	if c.Path != env.Binary || c.Args[0] != env.Binary || c.Args[1] != "-test.run=^$" || len(c.Env) != 1 {
		t.Fatalf("command %q %q env %q, want the copy with the same arguments and environment", c.Path, c.Args, c.Env)
	}
	if out, err := c.CombinedOutput(); err != nil {
		t.Fatalf("the copy does not run: %v: %s", err, out)
	}
	remove()
	if _, err := os.Stat(env.Binary); !os.IsNotExist(err) {
		t.Errorf("the copy is still there after remove: %v", err)
	}
}
