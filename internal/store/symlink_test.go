//go:build unix

package store

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/bankmirror/bankmirror/internal/fsinfo"
)

// victim is a file outside the mirror's directory that a planted link
// points at: a real one (mode 0644, known content), or a dangling name in
// the same directory that must never be created.
type victim struct {
	path     string
	dangling bool
}

const victimContent = "precious = true\n"

func newVictims(t *testing.T) []victim {
	t.Helper()
	dir := t.TempDir()
	target := filepath.Join(dir, "some.conf")
	if err := os.WriteFile(target, []byte(victimContent), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(target, 0o644); err != nil { // whatever the umask
		t.Fatal(err)
	}
	return []victim{{path: target}, {path: filepath.Join(dir, "created-through-a-link"), dangling: true}}
}

func (v victim) name() string {
	if v.dangling {
		return "dangling"
	}
	return "real"
}

// assertUntouched fails unless the victim is as newVictims made it: the
// real file's mode and bytes unchanged, the dangling name still absent.
func (v victim) assertUntouched(t *testing.T) {
	t.Helper()
	fi, err := os.Stat(v.path)
	if v.dangling {
		if !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("the dangling link's target %s was created (%v)", v.path, err)
		}
		return
	}
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != 0o644 {
		t.Errorf("target %s is now mode %04o, want 0644", v.path, fi.Mode().Perm())
	}
	if b, _ := os.ReadFile(v.path); string(b) != victimContent {
		t.Errorf("target %s now holds %q", v.path, b)
	}
}

// assertSymlinkRefusal fails unless err is ErrSymlink in one line naming
// the link.
func assertSymlinkRefusal(t *testing.T, err error, link string) {
	t.Helper()
	if !errors.Is(err, ErrSymlink) {
		t.Fatalf("err = %v, want ErrSymlink", err)
	}
	msg := err.Error()
	if strings.Contains(msg, "\n") || !strings.Contains(msg, link+" is a symbolic link") {
		t.Errorf("message is not one line naming %s: %q", link, msg)
	}
}

// closedMirror makes a mirror at dir/m.db with one row and closes it: the
// WAL and shared memory files are gone (SQLite removes them at the last
// close), the lock files are not there yet.
func closedMirror(t *testing.T) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "m.db")
	ctx := context.Background()
	s, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.PutState(ctx, "k", 1); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	for _, f := range companions(path) {
		if err := os.Remove(f); err != nil && !errors.Is(err, fs.ErrNotExist) {
			t.Fatal(err)
		}
	}
	return path
}

// A symbolic link in place of the mirror or of any file beside it (WAL,
// shared memory, secrets, either lock), dangling or pointing at a real
// file, is refused by Open and by OpenReadOnly (status, export) with one
// line naming it: the file it points at keeps its mode and content, a
// dangling one is not created, and no file is added beside the mirror.
func TestOpenRefusesSymlinkedFiles(t *testing.T) {
	for _, suffix := range []string{"", walSuffix, shmSuffix, secretsSuffix, ".sync-lock", ".heal-lock"} {
		for _, v := range newVictims(t) {
			for _, readOnly := range []bool{false, true} {
				name := "mirror" + suffix + "/" + v.name()
				if readOnly {
					name += "/read-only"
				}
				t.Run(name, func(t *testing.T) {
					path := closedMirror(t)
					link := path + suffix
					if suffix == "" {
						if err := os.Rename(path, path+".real"); err != nil {
							t.Fatal(err)
						}
					}
					if err := os.Symlink(v.path, link); err != nil {
						t.Fatal(err)
					}
					before := dirNames(t, filepath.Dir(path))
					var err error
					if readOnly {
						_, err = OpenReadOnly(context.Background(), path)
					} else {
						_, err = Open(context.Background(), path)
					}
					assertSymlinkRefusal(t, err, link)
					v.assertUntouched(t)
					if got := dirNames(t, filepath.Dir(path)); !slices.Equal(got, before) {
						t.Errorf("files after the refusal = %q, want %q", got, before)
					}
				})
			}
		}
	}
}

// A link planted after Open, where the store creates or reads a file
// later (a lock at every sync, the secrets at every change), is refused
// at that moment: O_NOFOLLOW, not only the check at Open.
func TestLinksPlantedAfterOpenAreRefused(t *testing.T) {
	ctx := context.Background()
	for _, v := range newVictims(t) {
		t.Run(v.name(), func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "m.db")
			s, err := Open(ctx, path)
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()

			sync := path + ".sync-lock"
			if err := os.Symlink(v.path, sync); err != nil {
				t.Fatal(err)
			}
			_, err = s.LockSync()
			assertSymlinkRefusal(t, err, sync)

			heal := path + ".heal-lock"
			if err := os.Symlink(v.path, heal); err != nil {
				t.Fatal(err)
			}
			hctx, cancel := context.WithTimeout(ctx, time.Minute)
			defer cancel()
			_, err = s.LockHeal(hctx) // refused at once, not waited for
			assertSymlinkRefusal(t, err, heal)
			if hctx.Err() != nil {
				t.Error("LockHeal waited for the link instead of refusing it")
			}

			secrets := path + secretsSuffix
			if err := os.Symlink(v.path, secrets); err != nil {
				t.Fatal(err)
			}
			err = s.SaveWebhook(ctx, Webhook{ID: "w1", URL: "https://x", SecretKey: "sec", CreatedAt: "2026-01-01T00:00:00Z"})
			assertSymlinkRefusal(t, err, secrets)
			_, err = s.WebhookSecrets(ctx)
			assertSymlinkRefusal(t, err, secrets)
			if fi, err := os.Lstat(secrets); err != nil || fi.Mode()&fs.ModeSymlink == 0 {
				t.Errorf("the secrets link was replaced: %v", err)
			}
			v.assertUntouched(t)
		})
	}
}

// A named pipe in place of a file beside the mirror is refused by name,
// at Open and later, without blocking on it.
func TestNamedPipeBesideMirrorRefused(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "m.db")
	s, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	secrets := path + secretsSuffix
	if err := syscall.Mkfifo(secrets, 0o600); err != nil {
		t.Fatal(err)
	}
	_, err = s.WebhookSecrets(ctx)
	if err == nil || !strings.Contains(err.Error(), secrets+" is a named pipe, not a regular file") {
		t.Errorf("secrets read from a named pipe: err = %v", err)
	}
	lock := path + ".sync-lock"
	if err := syscall.Mkfifo(lock, 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := s.LockSync(); err == nil || !strings.Contains(err.Error(), lock+" is a named pipe") {
		t.Errorf("lock on a named pipe: err = %v", err)
	}
	if _, err := OpenReadOnly(ctx, path); err == nil || !strings.Contains(err.Error(), " is a named pipe") {
		t.Errorf("open beside named pipes: err = %v", err)
	}
}

// A backup's destination (or its secrets file) that is a symbolic link,
// dangling or not, is refused with or without --force: the copy is never
// written where the link points, and the link stays.
func TestBackupRefusesSymlinkedDestination(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	s, err := Open(ctx, filepath.Join(dir, "m.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if err := s.SaveWebhook(ctx, Webhook{ID: "w1", URL: "https://x", SecretKey: "sec", CreatedAt: "2026-01-01T00:00:00Z"}); err != nil {
		t.Fatal(err)
	}
	for _, v := range newVictims(t) {
		for _, force := range []bool{false, true} {
			for _, which := range []string{"file", "secrets"} {
				name := v.name() + "/" + which
				if force {
					name += "/force"
				}
				t.Run(name, func(t *testing.T) {
					out := t.TempDir()
					dest := filepath.Join(out, "b.db")
					link := dest
					if which == "secrets" {
						link = SecretsPath(dest)
					}
					if err := os.Symlink(v.path, link); err != nil {
						t.Fatal(err)
					}
					_, err := s.Backup(ctx, dest, BackupOptions{Force: force, WithSecrets: true})
					assertSymlinkRefusal(t, err, link)
					v.assertUntouched(t)
					if got := dirNames(t, out); !slices.Equal(got, []string{filepath.Base(link)}) {
						t.Errorf("files after the refusal = %q, want only the link", got)
					}
				})
			}
		}
	}
}

// A mirror in a directory every user may write (sticky or not) is refused
// before anything is created: those users could swap its files.
func TestOpenRefusesWorldWritableDirectory(t *testing.T) {
	for _, m := range []fs.FileMode{0o777, 0o777 | fs.ModeSticky, 0o703} {
		t.Run(m.String(), func(t *testing.T) {
			dir := t.TempDir()
			if err := os.Chmod(dir, m); err != nil {
				t.Fatal(err)
			}
			path := filepath.Join(dir, "m.db")
			for _, open := range []func() error{
				func() error { _, err := Open(context.Background(), path); return err },
				func() error {
					if err := os.WriteFile(path, nil, 0o600); err != nil {
						t.Fatal(err)
					}
					defer os.Remove(path)
					_, err := OpenReadOnly(context.Background(), path)
					return err
				},
			} {
				err := open()
				if !errors.Is(err, ErrUnsafeDir) || !strings.Contains(err.Error(), "every user may write "+dir) ||
					!strings.Contains(err.Error(), "chmod o-w") || strings.Contains(err.Error(), "\n") {
					t.Errorf("err = %v, want one line naming the directory and chmod o-w", err)
				}
				if got := dirNames(t, dir); len(got) != 0 {
					t.Errorf("the refusal left %q", got)
				}
			}
		})
	}
}

// A mirror in a directory owned by another user than its owner (or root)
// is refused: that user could replace its files. As root the directory is
// given away; otherwise the mirror is opened as if for another user.
func TestOpenRefusesAnotherUsersDirectory(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "m.db")
	var opts []Option
	owner := 54321
	if os.Getuid() == 0 {
		if err := os.Chown(dir, owner, owner); err != nil {
			t.Fatal(err)
		}
	} else {
		owner = os.Getuid()
		opts = append(opts, WithUID(owner+4242))
	}
	_, err := Open(context.Background(), path, opts...)
	if !errors.Is(err, ErrUnsafeDir) || !strings.Contains(err.Error(), dir+" belongs to ") || !strings.Contains(err.Error(), "uid "+strconv.Itoa(owner)) {
		t.Fatalf("err = %v, want ErrUnsafeDir naming the directory and its owner", err)
	}
	if got := dirNames(t, dir); len(got) != 0 {
		t.Errorf("the refusal left %q", got)
	}
}

// checkDir's rules on a real directory's stat, with the private-group
// lookup injected (which groups are private is the system's).
func TestCheckDir(t *testing.T) {
	dir := t.TempDir()
	if os.Getuid() == 0 {
		// A group that is not root's, whose members the check cannot know.
		if err := os.Chown(dir, 0, 54321); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Chmod(dir, 0o770); err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(dir)
	if err != nil {
		t.Fatal(err)
	}
	uid := os.Getuid()
	gid, _ := fsinfo.Group(fi)
	if gid == 0 {
		t.Skip("the test's directory belongs to root's group, which the check trusts")
	}
	yes := func(u, g int) bool { return u == uid && g == gid }
	no := func(int, int) bool { return false }

	if err := checkDir(dir, fi, uid, yes); err != nil {
		t.Errorf("group-writable by the owner's private group: %v", err)
	}
	err = checkDir(dir, fi, uid, no)
	if !errors.Is(err, ErrUnsafeDir) || !strings.Contains(err.Error(), "may write "+dir+" (mode 0770)") ||
		!strings.Contains(err.Error(), "chmod g-w "+dir) || !strings.Contains(err.Error(), "gid "+strconv.Itoa(gid)) {
		t.Errorf("group-writable by a shared group: err = %v", err)
	}

	if err := os.Chmod(dir, 0o750); err != nil {
		t.Fatal(err)
	}
	if fi, err = os.Stat(dir); err != nil {
		t.Fatal(err)
	}
	if err := checkDir(dir, fi, uid, no); err != nil {
		t.Errorf("a directory only its owner writes: %v", err)
	}
	// Root's directory is safe for any user's mirror; another user's is
	// not (TestOpenRefusesAnotherUsersDirectory goes through Open).
	other := uid + 4242
	err = checkDir(dir, fi, other, no)
	switch {
	case uid == 0 && err != nil:
		t.Errorf("root's directory for uid %d: %v", other, err)
	case uid != 0 && !errors.Is(err, ErrUnsafeDir):
		t.Errorf("uid %d's directory for uid %d: err = %v", uid, other, err)
	}
}
