package main

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/user"
	"path/filepath"
	"strconv"

	"github.com/bankmirror/bankmirror/internal/store"
)

// serviceMirror is the service's mirror: the unit's StateDirectory=
// holds it (a variable, so that a test can put one elsewhere).
var serviceMirror = "/var/lib/bankmirror/bankmirror.db"

// noMirror says, in one line, that there is no mirror at a.cfg.DB, and
// what to do: where the service has its mirror, read that one as its
// owner; else set BANKMIRROR_DB or make one (a second mirror beside the
// service's would be of no use).
func (a *app) noMirror() error {
	svc := serviceMirror
	_, err := os.Stat(svc)
	there := err == nil || errors.Is(err, fs.ErrPermission)
	if abs, aerr := filepath.Abs(a.cfg.DB); !there || (aerr == nil && abs == svc) {
		return fmt.Errorf("no mirror at %s (set BANKMIRROR_DB, or run `bankmirror sync --full` first)", a.cfg.DB)
	}
	args := a.command
	if args == "" {
		args = "status"
	}
	run := "as the user who owns it, with BANKMIRROR_DB=" + svc
	if uid, ok := serviceOwner(svc); ok {
		run = store.RunAs(uid, "BANKMIRROR_DB="+svc, args)
	}
	return fmt.Errorf("no mirror at %s; the service's mirror is %s: run %s", a.cfg.DB, svc, run)
}

// serviceOwner is the uid of the service's mirror's owner: the file's, or
// its directory's when the file cannot be read, or the user bankmirror's.
func serviceOwner(svc string) (int, bool) {
	if uid, ok := store.Owner(svc); ok {
		return uid, true
	}
	if uid, ok := store.Owner(filepath.Dir(svc)); ok {
		return uid, true
	}
	if u, err := user.Lookup("bankmirror"); err == nil {
		if uid, err := strconv.Atoi(u.Uid); err == nil {
			return uid, true
		}
	}
	return 0, false
}
