package store

import (
	"bytes"
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"testing"
	"unsafe"

	sysunix "golang.org/x/sys/unix"
)

// created watches dir and returns a function listing the entries created
// in it (or moved into it) since, directories with a trailing "/".
func created(t *testing.T, dir string) func() []string {
	t.Helper()
	fd, err := sysunix.InotifyInit1(sysunix.IN_NONBLOCK | sysunix.IN_CLOEXEC)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = sysunix.Close(fd) })
	if _, err := sysunix.InotifyAddWatch(fd, dir, sysunix.IN_CREATE|sysunix.IN_MOVED_TO); err != nil {
		t.Fatal(err)
	}
	return func() []string {
		var names []string
		buf := make([]byte, 64<<10)
		for {
			n, err := sysunix.Read(fd, buf)
			if errors.Is(err, sysunix.EAGAIN) {
				return names
			}
			if err != nil {
				t.Fatal(err)
			}
			for off := 0; off+sysunix.SizeofInotifyEvent <= n; {
				ev := (*sysunix.InotifyEvent)(unsafe.Pointer(&buf[off]))
				if ev.Mask&sysunix.IN_Q_OVERFLOW != 0 {
					t.Fatal("inotify queue overflowed")
				}
				raw := buf[off+sysunix.SizeofInotifyEvent : off+sysunix.SizeofInotifyEvent+int(ev.Len)]
				name := string(bytes.TrimRight(raw, "\x00"))
				if ev.Mask&sysunix.IN_ISDIR != 0 {
					name += "/"
				}
				names = append(names, name)
				off += sysunix.SizeofInotifyEvent + int(ev.Len)
			}
		}
	}
}

// A backup creates nothing beside its destination but the destination and
// one private directory, which it removes: neither its temporary copy nor
// SQLite's rollback journal (opened without O_EXCL, so a name another user
// of a shared directory could plant first) is ever made there.
func TestBackupWritesNothingBesideTheDestination(t *testing.T) {
	ctx := context.Background()
	s, err := Open(ctx, filepath.Join(t.TempDir(), "mirror.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	tmpDir := regexp.MustCompile(`^backup\.db\.tmp-[0-9]+/$`)
	for _, force := range []bool{false, true} {
		dir := t.TempDir()
		dest := filepath.Join(dir, "backup.db")
		list := created(t, dir)
		if _, err := s.Backup(ctx, dest, BackupOptions{Force: force}); err != nil {
			t.Fatal(err)
		}
		names := list()
		if len(names) != 2 || !tmpDir.MatchString(names[0]) || names[1] != "backup.db" {
			t.Errorf("force=%v: created beside the backup: %q, want one backup.db.tmp-N/ then backup.db", force, names)
		}
		if got := dirNames(t, dir); !slices.Equal(got, []string{"backup.db"}) {
			t.Errorf("force=%v: left beside the backup: %q", force, got)
		}
	}
}

// vacuumInto writes its copy into a new directory beside dest that only
// the owner can enter, and remove deletes it with whatever is inside.
func TestVacuumIntoPrivateDirectory(t *testing.T) {
	ctx := context.Background()
	s, err := Open(ctx, filepath.Join(t.TempDir(), "mirror.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	dir := t.TempDir()
	dest := filepath.Join(dir, "backup.db")
	tmp, size, remove, err := vacuumInto(ctx, s.ro, dest)
	if err != nil {
		remove()
		t.Fatal(err)
	}
	priv := filepath.Dir(tmp)
	if filepath.Dir(priv) != dir {
		t.Errorf("copy written to %s, want a directory in %s", tmp, dir)
	}
	fi, err := os.Lstat(priv)
	if err != nil {
		t.Fatal(err)
	}
	if !fi.IsDir() || fi.Mode().Perm() != 0o700 {
		t.Errorf("%s is %v, want a directory of mode 0700", priv, fi.Mode())
	}
	if m := mode(t, tmp); m != 0o600 {
		t.Errorf("copy is mode %04o, want 0600", m)
	}
	if fi, err := os.Stat(tmp); err != nil || fi.Size() != size || size == 0 {
		t.Errorf("copy: %v, %v; reported size %d", fi, err, size)
	}
	if got := dirNames(t, dir); !slices.Equal(got, []string{filepath.Base(priv)}) {
		t.Errorf("beside the destination: %q", got)
	}
	remove()
	if _, err := os.Lstat(priv); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("after remove, %s: %v", priv, err)
	}
}

// A backup of dest removes what an interrupted backup of dest left beside
// it (its private directory, the partial copy inside), but not the
// directory of a backup of dest still running (locked), nor a directory of
// another destination or another name, nor a symbolic link.
func TestBackupRemovesWhatAnInterruptedBackupLeft(t *testing.T) {
	ctx := context.Background()
	s, err := Open(ctx, filepath.Join(t.TempDir(), "mirror.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	dir := t.TempDir()
	dest := filepath.Join(dir, "backup.db")
	// An interrupted backup: vacuumInto's directory with its partial copy
	// and journal, its process gone (so its lock is gone too).
	stale, err := os.MkdirTemp(dir, "backup.db.tmp-*")
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"backup.db", "backup.db-journal"} {
		if err := os.WriteFile(filepath.Join(stale, f), []byte("partial"), 0o600); err != nil {
			t.Fatal(err)
		}
	}

	running := filepath.Join(dir, "backup.db.tmp-222")
	other := filepath.Join(dir, "other.db.tmp-333")
	named := filepath.Join(dir, "backup.db.tmp-keep")
	for _, d := range []string{running, other, named} {
		if err := os.Mkdir(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	unlock, err := tryLockDir(running)
	if err != nil {
		t.Fatal(err)
	}
	defer unlock()
	link := filepath.Join(dir, "backup.db.tmp-444")
	if err := os.Symlink(other, link); err != nil {
		t.Fatal(err)
	}

	if _, err := s.Backup(ctx, dest, BackupOptions{}); err != nil {
		t.Fatal(err)
	}
	want := []string{"backup.db", "backup.db.tmp-222", "backup.db.tmp-444", "backup.db.tmp-keep", "other.db.tmp-333"}
	if got := dirNames(t, dir); !slices.Equal(got, want) {
		t.Errorf("beside the backup: %q, want %q (%s removed)", got, want, filepath.Base(stale))
	}
	// Once the running backup is gone, the next backup removes its directory.
	unlock()
	if _, err := s.Backup(ctx, dest, BackupOptions{Force: true}); err != nil {
		t.Fatal(err)
	}
	if got := dirNames(t, dir); slices.Contains(got, "backup.db.tmp-222") {
		t.Errorf("beside the backup: %q, the unlocked backup.db.tmp-222 stays", got)
	}
}
