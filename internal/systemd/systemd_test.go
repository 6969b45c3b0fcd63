package systemd

import (
	"net"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"
)

func TestNotifySendsStateToSocket(t *testing.T) {
	path := filepath.Join(t.TempDir(), "notify.sock")
	conn, err := net.ListenUnixgram("unixgram", &net.UnixAddr{Name: path, Net: "unixgram"})
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	t.Setenv("NOTIFY_SOCKET", path)
	if err := Notify("READY=1"); err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 64)
	n, _, err := conn.ReadFromUnix(buf)
	if err != nil {
		t.Fatal(err)
	}
	if got := string(buf[:n]); got != "READY=1" {
		t.Errorf("got %q", got)
	}
}

func TestNotifyWithoutSocketIsANoop(t *testing.T) {
	t.Setenv("NOTIFY_SOCKET", "")
	if err := Notify("READY=1"); err != nil {
		t.Fatal(err)
	}
}

func TestWatchdogInterval(t *testing.T) {
	t.Setenv("WATCHDOG_USEC", "30000000")
	t.Setenv("WATCHDOG_PID", strconv.Itoa(os.Getpid()))
	if got := WatchdogInterval(); got != 15*time.Second {
		t.Errorf("interval = %v, want 15s", got)
	}
	t.Setenv("WATCHDOG_PID", "1")
	if got := WatchdogInterval(); got != 0 {
		t.Errorf("interval for another pid = %v, want 0", got)
	}
	t.Setenv("WATCHDOG_USEC", "")
	if got := WatchdogInterval(); got != 0 {
		t.Errorf("interval without watchdog = %v", got)
	}
}

// A long start asks systemd for more time until it is stopped, and says
// what it is doing.
func TestExtendStartAsksForMoreTimeUntilStopped(t *testing.T) {
	path := filepath.Join(t.TempDir(), "notify.sock")
	conn, err := net.ListenUnixgram("unixgram", &net.UnixAddr{Name: path, Net: "unixgram"})
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	t.Setenv("NOTIFY_SOCKET", path)
	stop := ExtendStart(time.Millisecond, "opening the mirror")
	buf := make([]byte, 128)
	for i := range 3 { // the first at once, then one an interval
		n, _, err := conn.ReadFromUnix(buf)
		if err != nil {
			t.Fatal(err)
		}
		if got, want := string(buf[:n]), "EXTEND_TIMEOUT_USEC=2000\nSTATUS=opening the mirror"; got != want {
			t.Fatalf("message %d: got %q, want %q", i, got, want)
		}
	}
	stop()
	// Nothing after stop: the next message on the socket is the test's own.
	if err := Notify("READY=1"); err != nil {
		t.Fatal(err)
	}
	for {
		n, _, err := conn.ReadFromUnix(buf)
		if err != nil {
			t.Fatal(err)
		}
		if got := string(buf[:n]); got == "READY=1" {
			break
		} else if got != "EXTEND_TIMEOUT_USEC=2000\nSTATUS=opening the mirror" {
			t.Fatalf("got %q", got)
		}
	}
}

func TestExtendStartWithoutSocketIsANoop(t *testing.T) {
	t.Setenv("NOTIFY_SOCKET", "")
	ExtendStart(time.Millisecond, "x")() // returns and stops at once
}
