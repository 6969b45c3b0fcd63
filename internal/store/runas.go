package store

import (
	"os"
	"os/exec"
	"os/user"
	"strconv"

	"github.com/bankmirror/bankmirror/internal/fsinfo"
)

// RunAs is the command line that runs `bankmirror args` as uid with the
// variables env ("NAME=value ...", or ""): sudo -u USER ...; for root
// where sudo is missing (a minimal Debian has runuser, of util-linux, and
// no sudo), runuser -u USER -- ... (runuser takes a user's name only: a
// uid without one keeps sudo's form).
func RunAs(uid int, env, args string) string { return runAs(os.Geteuid(), uid, env, args) }

// runAs is RunAs for a command run as caller.
func runAs(caller, uid int, env, args string) string {
	if caller == 0 {
		if _, err := exec.LookPath("sudo"); err != nil {
			if u, err := user.LookupId(strconv.Itoa(uid)); err == nil {
				if env != "" {
					return "runuser -u " + u.Username + " -- env " + env + " bankmirror " + args
				}
				return "runuser -u " + u.Username + " -- bankmirror " + args
			}
		}
	}
	if env != "" {
		return "sudo -u " + sudoUser(uid) + " " + env + " bankmirror " + args
	}
	return "sudo -u " + sudoUser(uid) + " bankmirror " + args
}

// Owner is the uid that owns path, when it can be told.
func Owner(path string) (int, bool) {
	fi, err := os.Stat(path)
	if err != nil {
		return 0, false
	}
	return fsinfo.Owner(fi)
}
