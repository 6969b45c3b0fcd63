package bench

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
)

// How the file of a binary was written decides how much of it a process
// run from it holds in RSS. The Go linker writes its output in large
// writes, which leave the file in the page cache in large folios, and a
// page fault maps a large folio whole: a daemon started from a binary
// fresh from `go build` or `go install` holds nearly all of its loaded
// image (about 30 MiB). The same file written a little at a time (a
// package manager unpacking the .deb, cp), or read back from the disk, as
// a service started at boot reads it, is cached in small folios, and the
// daemon holds only what it touches (18-20 MiB). The benches run their
// children from a copy written the second way: what users run.

// installChunk is how much of the binary installCopy writes at a time.
const installChunk = 64 << 10

// installCopy writes a copy of the binary src into dir as name, a chunk
// at a time as a package manager writes the files it unpacks, and returns
// its path.
func installCopy(src, dir, name string) (string, error) {
	in, err := os.Open(src) //nolint:gosec // the benchmark's own binary, or the one the user named
	if err != nil {
		return "", fmt.Errorf("install a copy of the binary: %w", err)
	}
	defer in.Close()
	dst := filepath.Join(dir, name)
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o700) //nolint:gosec // a file of the benchmark's own directory
	if err != nil {
		return "", fmt.Errorf("install a copy of the binary: %w", err)
	}
	// A plain write of each chunk: io.Copy between two files lets the
	// kernel copy the file, in whatever folios it likes.
	buf := make([]byte, installChunk)
	for err == nil {
		var n int
		n, err = in.Read(buf)
		if n > 0 {
			if _, werr := out.Write(buf[:n]); werr != nil {
				err = werr
			}
		}
	}
	if errors.Is(err, io.EOF) {
		err = nil
	}
	if cerr := out.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		_ = os.Remove(dst)
		return "", fmt.Errorf("install a copy of the binary: %w", err)
	}
	return dst, nil
}

// installed makes env run its children from a copy of its binary in dir
// (installCopy); remove deletes the copy.
func (env *Env) installed(ctx context.Context, dir string) (remove func(), err error) {
	probe, err := env.Command(ctx)
	if err != nil {
		return nil, err
	}
	path, err := installCopy(probe.Path, dir, "bankmirror-installed")
	if err != nil {
		return nil, err
	}
	env.Command = runFrom(env.Command, path)
	env.Binary = path
	return func() { _ = os.Remove(path) }, nil
}

// runFrom returns command with its commands running the binary at path.
func runFrom(command func(ctx context.Context, args ...string) (*exec.Cmd, error), path string) func(ctx context.Context, args ...string) (*exec.Cmd, error) {
	return func(ctx context.Context, args ...string) (*exec.Cmd, error) {
		c, err := command(ctx, args...)
		if err != nil {
			return nil, err
		}
		c.Path = path
		if len(c.Args) > 0 {
			c.Args[0] = path
		}
		return c, nil
	}
}
