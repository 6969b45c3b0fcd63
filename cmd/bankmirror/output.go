package main

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/user"
	"path/filepath"
	"strconv"
)

// checkOutputDir says, before any work, when the user this command runs as
// cannot create files in the directory of path (a file that backup or
// export -o writes): run through an alias as the service user, a relative
// path lands in the caller's directory, which that user usually cannot
// write. It tries what the command will do: create a file there, removed
// at once.
func checkOutputDir(path, hint string) error {
	dir := filepath.Dir(path)
	f, err := os.CreateTemp(dir, ".bankmirror-check-*")
	if err == nil {
		name := f.Name()
		_ = f.Close()
		return os.Remove(name)
	}
	if !errors.Is(err, fs.ErrPermission) {
		if errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("cannot write %s: its directory %s does not exist", path, dir)
		}
		return fmt.Errorf("cannot write %s: %w", path, errors.Unwrap(err))
	}
	abs, aerr := filepath.Abs(dir)
	if aerr != nil {
		abs = dir
	}
	return fmt.Errorf("cannot write %s: this command runs as %s, who may not create files in %s; %s", path, currentUser(), abs, hint)
}

// currentUser names the user this process runs as.
func currentUser() string {
	if u, err := user.Current(); err == nil {
		return u.Username
	}
	return "uid " + strconv.Itoa(os.Getuid())
}
