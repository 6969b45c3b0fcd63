package procinfo_test

import (
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/bankmirror/bankmirror/internal/procinfo"
)

func TestStatusMiB(t *testing.T) {
	path := filepath.Join(t.TempDir(), "status")
	if err := os.WriteFile(path, []byte("Name:\tbankmirror\nVmHWM:\t   51200 kB\nVmRSS:\t   20480 kB\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if mib, err := procinfo.StatusMiB(path, "VmRSS"); err != nil || mib != 20 {
		t.Errorf("VmRSS = %v MiB, %v; want 20", mib, err)
	}
	if _, err := procinfo.StatusMiB(path, "RssAnon"); err == nil {
		t.Error("a missing field read without error")
	}
}

// This process's CPU time grows as it works; a process that does not
// exist has none.
func TestCPU(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("reads /proc")
	}
	before := procinfo.CPU(os.Getpid())
	sum := 0
	for round := 0; procinfo.CPU(os.Getpid()) <= before; round++ {
		if round == 100_000 {
			t.Fatalf("CPU stayed at %v through 10^11 multiplications", before)
		}
		for i := range 1_000_000 {
			sum += i * i
		}
	}
	_ = sum
	if got := procinfo.CPU(1 << 30); got != 0 {
		t.Errorf("CPU of no process = %v, want 0", got)
	}
}
