package actual

import (
	"bufio"
	"bytes"
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"time"

	"github.com/rs/zerolog"

	"github.com/bankmirror/bankmirror/internal/procinfo"
)

// clientJS is the Node script that runs @actual-app/api for a session.
//
//go:embed client.js
var clientJS []byte

// scriptName is the script's file in the feed's directory: .cjs, so that
// Node reads it as CommonJS whatever a package.json there says.
const scriptName = "bankmirror-actual.cjs"

// exitGrace is how long a child that was asked to end (its requests
// closed) has before it is killed.
const exitGrace = 10 * time.Second

// errChildGone is a call on a child that has ended or was killed.
var errChildGone = errors.New("actual client ended")

// child is one Node process running client.js: requests go to its fd 3,
// answers come from its fd 4, one at a time; its stdout and stderr go to
// the log.
type child struct {
	cmd     *exec.Cmd
	req     *os.File
	answers chan []byte // one answer line a request; closed when fd 4 ends
	exited  chan struct{}
	waitErr error
	stderr  *lineLog
	next    int
	broken  error
}

// hello is the first answer (id 0): what the child runs with.
type hello struct {
	Node     string `json:"node"`
	API      string `json:"api"`
	APIError string `json:"apiError"`
}

// answer is one line of fd 4.
type answer struct {
	ID     int             `json:"id"`
	Result json.RawMessage `json:"result"`
	Error  *childError     `json:"error"`
}

// childError is an error the child answered with; Code is one of
// client.js's codes or an Actual error code.
type childError struct {
	Message string `json:"message"`
	Code    string `json:"code"`
}

func (e *childError) Error() string { return e.Message }

// writeScript puts client.js in dir unless it is there already.
func writeScript(dir string) (string, error) {
	path := filepath.Join(dir, scriptName)
	if have, err := os.ReadFile(path); err == nil && bytes.Equal(have, clientJS) {
		return path, nil
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", fmt.Errorf("make feed directory: %w", err)
	}
	tmp, err := os.CreateTemp(dir, scriptName+".*")
	if err != nil {
		return "", fmt.Errorf("write client script: %w", err)
	}
	_, err = tmp.Write(clientJS)
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp.Name(), path)
	}
	if err != nil {
		_ = os.Remove(tmp.Name())
		return "", fmt.Errorf("write client script: %w", err)
	}
	return path, nil
}

// childEnv is the child's whole environment: nothing of the daemon's
// (which names its secrets' files) reaches Node.
func childEnv(dir string) []string {
	env := []string{
		"HOME=" + dir,
		"NODE_PATH=" + filepath.Join(dir, "node_modules"),
		"NODE_ENV=production",
	}
	for _, k := range []string{"PATH", "LANG", "TZ", "TMPDIR"} {
		if v, ok := os.LookupEnv(k); ok {
			env = append(env, k+"="+v)
		}
	}
	return env
}

// startChild starts node on the script in dir and reads its hello. The
// child holds the directory's lock (lockDir) for its life: a second child
// waits for the first to end.
func startChild(ctx context.Context, node, dir string, log zerolog.Logger) (*child, hello, error) {
	script, err := writeScript(dir)
	if err != nil {
		return nil, hello{}, err
	}
	lock, err := lockDir(ctx, dir)
	if err != nil {
		return nil, hello{}, err
	}
	// The child holds the lock from here: its copy of the file ends with it.
	defer func() { _ = lock.Close() }()
	reqR, reqW, err := os.Pipe()
	if err != nil {
		return nil, hello{}, fmt.Errorf("pipe: %w", err)
	}
	respR, respW, err := os.Pipe()
	if err != nil {
		_ = reqR.Close()
		_ = reqW.Close()
		return nil, hello{}, fmt.Errorf("pipe: %w", err)
	}
	c := &child{
		req:     reqW,
		answers: make(chan []byte, 1),
		exited:  make(chan struct{}),
		stderr:  newLineLog(log),
	}
	// The child lives for the session, not for Open's context: Close or kill ends it.
	c.cmd = exec.Command(node, script) //nolint:gosec,noctx // the node the operator named (BANKMIRROR_NODE), on the script we embed
	c.cmd.Dir = dir
	c.cmd.Env = childEnv(dir)
	c.cmd.ExtraFiles = []*os.File{reqR, respW, lock} // fd 3, fd 4, fd 5
	c.cmd.Stdout = newLineLog(log)
	c.cmd.Stderr = c.stderr
	c.cmd.WaitDelay = exitGrace
	dieWithParent(c.cmd)
	// The parent-death signal follows the thread that forked the child,
	// not the process: the goroutine that starts the child keeps its
	// thread locked (so that the runtime never ends that thread) until
	// the child has ended.
	started := make(chan error, 1)
	go func() {
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		if err := c.cmd.Start(); err != nil {
			started <- err
			return
		}
		started <- nil
		c.waitErr = c.cmd.Wait()
		close(c.exited)
	}()
	err = <-started
	_ = reqR.Close()
	_ = respW.Close()
	if err != nil {
		_ = reqW.Close()
		_ = respR.Close()
		return nil, hello{}, fmt.Errorf("start %s: %w", node, err)
	}
	go c.read(respR)
	var h hello
	if err := c.await(ctx, 0, &h); err != nil {
		_ = c.kill()
		return nil, hello{}, fmt.Errorf("actual client: %w", err)
	}
	return c, h, nil
}

// read passes fd 4's lines to answers until it ends.
func (c *child) read(r *os.File) {
	defer close(c.answers)
	defer func() { _ = r.Close() }()
	br := bufio.NewReaderSize(r, 64<<10)
	for {
		line, err := br.ReadBytes('\n')
		if len(line) > 0 && err == nil {
			c.answers <- line
		}
		if err != nil {
			return
		}
	}
}

// call sends one request and decodes its answer into out (nil: ignored).
// A cancelled ctx kills the child: a request cannot be taken back.
func (c *child) call(ctx context.Context, op string, args, out any) error {
	if c.broken != nil {
		return c.broken
	}
	c.next++
	id := c.next
	line, err := json.Marshal(struct {
		ID   int    `json:"id"`
		Op   string `json:"op"`
		Args any    `json:"args"`
	}{id, op, args})
	if err != nil {
		return fmt.Errorf("encode %s: %w", op, err)
	}
	line = append(line, '\n')
	written := make(chan error, 1)
	go func() {
		_, err := c.req.Write(line)
		written <- err
	}()
	err = c.await(ctx, id, out)
	if werr := <-written; werr != nil && err == nil {
		err = fmt.Errorf("send %s: %w", op, werr)
	}
	if err != nil {
		var ce *childError
		if !errors.As(err, &ce) {
			c.broken = fmt.Errorf("%w: %w", errChildGone, err)
			_ = c.kill()
		}
		return fmt.Errorf("%s: %w", op, err)
	}
	return nil
}

// await reads the answer with id; on a cancelled ctx it kills the child
// (which ends any write still blocked on fd 3).
func (c *child) await(ctx context.Context, id int, out any) error {
	select {
	case line, ok := <-c.answers:
		if !ok {
			<-c.exited
			return c.gone()
		}
		var a answer
		if err := json.Unmarshal(line, &a); err != nil {
			return fmt.Errorf("decode answer: %w", err)
		}
		if a.ID != id {
			return fmt.Errorf("answer %d to request %d", a.ID, id)
		}
		if a.Error != nil {
			return a.Error
		}
		if out != nil {
			if err := json.Unmarshal(a.Result, out); err != nil {
				return fmt.Errorf("decode answer: %w", err)
			}
		}
		return nil
	case <-ctx.Done():
		_ = c.kill()
		return ctx.Err()
	}
}

// gone says why the child ended, with the last lines it wrote to stderr.
func (c *child) gone() error {
	err := errChildGone
	if c.waitErr != nil {
		err = fmt.Errorf("%w: %w", errChildGone, c.waitErr)
	}
	if tail := c.stderr.Tail(); tail != "" {
		return fmt.Errorf("%w; stderr: %s", err, tail)
	}
	return err
}

// end asks the child to end (closes fd 3) and waits for it, killing it
// when ctx ends first.
func (c *child) end(ctx context.Context) error {
	_ = c.req.Close()
	select {
	case <-c.exited:
	case <-ctx.Done():
		_ = c.kill()
		return ctx.Err()
	}
	for range c.answers { // joins read
	}
	if c.waitErr != nil {
		return c.gone()
	}
	return nil
}

// kill ends the child at once and waits for it.
func (c *child) kill() error {
	if c.broken == nil {
		c.broken = errChildGone
	}
	_ = c.req.Close()
	err := c.cmd.Process.Kill()
	<-c.exited
	for range c.answers {
	}
	if errors.Is(err, os.ErrProcessDone) {
		return nil
	}
	return err
}

// peakRSS is the child's peak resident set size in bytes (VmHWM), 0 when
// it cannot be read (the child ended, or no /proc).
func (c *child) peakRSS() int64 {
	mib, err := procinfo.StatusMiB(procinfo.StatusPath(c.cmd.Process.Pid), "VmHWM")
	if err != nil {
		return 0
	}
	return int64(mib * (1 << 20))
}

// cpuTime is the CPU time (user and system) the child has used so far, 0
// when it cannot be read.
func (c *child) cpuTime() time.Duration { return procinfo.CPU(c.cmd.Process.Pid) }

// Bounds of what a child writes to the log: a line is cut at maxLine
// bytes, and past maxLines lines a session's output is counted, not
// logged; the last tailLines lines of stderr go into errors.
const (
	maxLine   = 1024
	maxLines  = 2000
	tailLines = 5
)

// lineLog writes a child's output to the log a line at a time, at debug
// level (the Actual API is chatty), bounded.
type lineLog struct {
	log     zerolog.Logger
	mu      sync.Mutex
	partial []byte
	lines   int
	dropped int
	tail    []string
}

func newLineLog(log zerolog.Logger) *lineLog {
	return &lineLog{log: log}
}

func (l *lineLog) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	n := len(p)
	for len(p) > 0 {
		i := bytes.IndexByte(p, '\n')
		if i < 0 {
			room := max(maxLine-len(l.partial), 0)
			l.partial = append(l.partial, p[:min(room, len(p))]...)
			break
		}
		room := max(maxLine-len(l.partial), 0)
		l.partial = append(l.partial, p[:min(room, i)]...)
		l.emit(string(l.partial))
		l.partial = l.partial[:0]
		p = p[i+1:]
	}
	return n, nil
}

func (l *lineLog) emit(line string) {
	line = strings.TrimRight(line, "\r")
	if line == "" {
		return
	}
	l.tail = append(l.tail, line)
	if len(l.tail) > tailLines {
		l.tail = l.tail[1:]
	}
	if l.lines >= maxLines {
		l.dropped++
		return
	}
	l.lines++
	l.log.Debug().Msg(line)
}

// Tail is the last lines written, joined by " | ".
func (l *lineLog) Tail() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return strings.Join(l.tail, " | ")
}

var _ io.Writer = (*lineLog)(nil)
