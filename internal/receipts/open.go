package receipts

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/rs/zerolog"

	"github.com/bankmirror/bankmirror/internal/logfield"
)

// keptName is the shape of a kept receipt's file name (save): its
// content's SHA-256 and a short extension.
var keptName = regexp.MustCompile(`^([0-9a-f]{64})\.[a-z0-9]{1,8}$`)

// Open opens, for serving, the kept receipt stored as path (an
// attachment's local_path): its base name, of the shape save gives, in
// dir, through os.Root (nothing outside dir is reached). It refuses what
// is not exactly the file that was kept: a symbolic link, anything but a
// regular file, and a file whose content's SHA-256 is not the one it was
// saved under (local_sha256, which its name carries): a hard link to
// another file (/etc/passwd) put in its place, or a file changed since.
// The file is returned at its start; the caller closes it.
func Open(dir, path string) (*os.File, error) {
	if dir == "" {
		return nil, errors.New("no attachments directory (BANKMIRROR_ATTACHMENTS_DIR) set")
	}
	name := filepath.Base(path)
	m := keptName.FindStringSubmatch(name)
	if m == nil {
		return nil, fmt.Errorf("stored file name %q is not a receipt's", name)
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		return nil, fmt.Errorf("attachments directory: %w", err)
	}
	defer root.Close()
	if fi, err := root.Lstat(name); err != nil {
		return nil, fmt.Errorf("receipt file: %w", err)
	} else if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("receipt file %s is not a regular file (%s)", name, fi.Mode().Type())
	}
	f, err := root.Open(name)
	if err != nil {
		return nil, fmt.Errorf("receipt file: %w", err)
	}
	if err := checkKept(f, name, m[1]); err != nil {
		_ = f.Close()
		return nil, err
	}
	return f, nil
}

// checkKept checks the open file f, named name, is a regular file whose
// content hashes to sum, and rewinds it. The hash is of what is served:
// whatever replaces the name afterwards, f stays the file checked.
func checkKept(f *os.File, name, sum string) error {
	fi, err := f.Stat()
	if err != nil {
		return fmt.Errorf("receipt file: %w", err)
	}
	if !fi.Mode().IsRegular() {
		return fmt.Errorf("receipt file %s is not a regular file", name)
	}
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return fmt.Errorf("receipt file: %w", err)
	}
	if got := hex.EncodeToString(h.Sum(nil)); got != sum {
		return fmt.Errorf("receipt file %s changed since it was kept (its content's SHA-256 is %s)", name, got)
	}
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return fmt.Errorf("receipt file: %w", err)
	}
	return nil
}

// WarnIfOpen logs a warning when the attachments directory dir exists and
// other users may enter or read it (receipts say where and what one
// bought): it should be mode 0700, as the fetcher creates it.
func WarnIfOpen(log zerolog.Logger, dir string) {
	if err := checkPrivate(dir); err != nil {
		log.Warn().Str(logfield.Path, dir).Msg(err.Error())
	}
}

// checkPrivate says, as an error, that dir exists and is open to users
// other than its owner; nil otherwise.
func checkPrivate(dir string) error {
	if dir == "" {
		return nil
	}
	fi, err := os.Stat(dir)
	if errors.Is(err, fs.ErrNotExist) || err != nil || !fi.IsDir() {
		return nil
	}
	if perm := fi.Mode().Perm(); perm&0o077 != 0 {
		return fmt.Errorf("attachments directory is open to other users (mode %04o): run chmod 700 %s", perm, shellQuote(dir))
	}
	return nil
}

func shellQuote(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789/._-") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
