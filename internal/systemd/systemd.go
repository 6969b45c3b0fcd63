// Package systemd speaks the sd_notify protocol without dependencies: it
// tells systemd the service is ready and feeds its watchdog.
package systemd

import (
	"fmt"
	"net"
	"os"
	"strconv"
	"time"
)

// Notify sends state (e.g. "READY=1") to $NOTIFY_SOCKET. Without a socket
// (not started by systemd with Type=notify) it does nothing.
func Notify(state string) error {
	socket := os.Getenv("NOTIFY_SOCKET")
	if socket == "" {
		return nil
	}
	if socket[0] == '@' {
		socket = "\x00" + socket[1:] // abstract namespace
	}
	conn, err := net.DialUnix("unixgram", nil, &net.UnixAddr{Name: socket, Net: "unixgram"})
	if err != nil {
		return fmt.Errorf("sd_notify: %w", err)
	}
	defer conn.Close()
	if _, err := conn.Write([]byte(state)); err != nil {
		return fmt.Errorf("sd_notify: %w", err)
	}
	return nil
}

// WatchdogInterval is how often to send WATCHDOG=1: half of $WATCHDOG_USEC,
// or 0 when the watchdog is off or meant for another process.
func WatchdogInterval() time.Duration {
	usec, err := strconv.ParseInt(os.Getenv("WATCHDOG_USEC"), 10, 64)
	if err != nil || usec <= 0 {
		return 0
	}
	if pid := os.Getenv("WATCHDOG_PID"); pid != "" && pid != strconv.Itoa(os.Getpid()) {
		return 0
	}
	return time.Duration(usec) * time.Microsecond / 2
}

// ExtendStart keeps a start that takes long (a schema migration of a large
// mirror) inside systemd's start timeout: at once and then every interval,
// it asks for twice the interval more (EXTEND_TIMEOUT_USEC, systemd 236 and
// later) with status as the unit's status line, until stop is called. Not
// started by systemd, it sends nothing.
func ExtendStart(interval time.Duration, status string) (stop func()) {
	if os.Getenv("NOTIFY_SOCKET") == "" {
		return func() {}
	}
	msg := fmt.Sprintf("EXTEND_TIMEOUT_USEC=%d\nSTATUS=%s", (2 * interval).Microseconds(), status)
	done := make(chan struct{})
	finished := make(chan struct{})
	go func() {
		defer close(finished)
		t := time.NewTicker(interval)
		defer t.Stop()
		for {
			_ = Notify(msg)
			select {
			case <-done:
				return
			case <-t.C:
			}
		}
	}()
	return func() {
		close(done)
		<-finished
	}
}
