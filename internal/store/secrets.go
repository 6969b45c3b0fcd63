package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// The webhook secrets live in their own file beside the mirror (the mirror
// path plus ".secrets"), not in the mirror: the mirror can then be copied,
// shared or opened by any tool without exposing them. The file is a small
// JSON document, mode 0600, replaced whole on every change (a temporary
// file, fsync, rename, fsync of the directory), so that a crash leaves the
// old version or the new one, never a mix. Every change happens inside a
// write transaction of the mirror: SQLite's write lock serialises the
// read-modify-write cycles of every process sharing the mirror.

// secretsVersion is the format of the secrets file.
const secretsVersion = 1

// secretsDoc is the secrets file.
type secretsDoc struct {
	Version int `json:"version"`
	// Webhooks maps a webhook id to its secret.
	Webhooks map[string]storedSecret `json:"webhooks"`
}

type storedSecret struct {
	SecretKey string `json:"secret_key"`
	// StoredAt is when the secret was written (TimeLayout): a secret whose
	// webhook row never committed is erased SecretGrace after it.
	StoredAt string `json:"stored_at"`
}

func (s *Store) secretsPath() string { return SecretsPath(s.path) }

// readSecrets reads the secrets file; a missing one holds no secret. A
// symbolic link or another kind of file there is refused.
func readSecrets(path string) (secretsDoc, error) {
	doc := secretsDoc{Version: secretsVersion, Webhooks: map[string]storedSecret{}}
	b, err := readRegular(path)
	if errors.Is(err, fs.ErrNotExist) {
		return doc, nil
	}
	if err != nil {
		return doc, fmt.Errorf("read secrets file: %w", err)
	}
	if err := json.Unmarshal(b, &doc); err != nil {
		return doc, fmt.Errorf("secrets file %s is not valid: %w", path, err)
	}
	if doc.Version != secretsVersion {
		return doc, fmt.Errorf("secrets file %s has version %d, this binary knows %d", path, doc.Version, secretsVersion)
	}
	if doc.Webhooks == nil {
		doc.Webhooks = map[string]storedSecret{}
	}
	return doc, nil
}

// writeSecrets replaces the secrets file with doc.
func writeSecrets(path string, doc secretsDoc) error {
	b, err := json.MarshalIndent(doc, "", "  ")
	if err != nil {
		return fmt.Errorf("encode secrets: %w", err)
	}
	if err := WriteFileAtomic(path, append(b, '\n'), true); err != nil {
		return fmt.Errorf("write secrets file: %w", err)
	}
	return nil
}

// WriteFileAtomic writes data to path, mode 0600, so that path holds
// either its old content or data even if the machine stops meanwhile: a
// temporary file in the same directory, fsync, rename over path, fsync of
// the directory. Unless replace is set it refuses (fs.ErrExist) to replace
// an existing file, checked at the moment of the rename.
func WriteFileAtomic(path string, data []byte, replace bool) (err error) {
	dir := filepath.Dir(path)
	f, err := os.CreateTemp(dir, filepath.Base(path)+".tmp-*") // mode 0600
	if err != nil {
		return fmt.Errorf("create temporary file: %w", err)
	}
	tmp := f.Name()
	defer func() {
		if err != nil {
			_ = os.Remove(tmp)
		}
	}()
	if _, err := f.Write(data); err != nil {
		_ = f.Close()
		return fmt.Errorf("write %s: %w", tmp, err)
	}
	if err := f.Sync(); err != nil {
		_ = f.Close()
		return fmt.Errorf("sync %s: %w", tmp, err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("close %s: %w", tmp, err)
	}
	return commitFile(tmp, path, replace)
}

// commitFile moves the complete, synced file tmp to path (refusing to
// replace an existing path unless replace is set) and makes the move
// durable. tmp is removed either way.
func commitFile(tmp, path string, replace bool) error {
	if replace {
		if err := os.Rename(tmp, path); err != nil {
			return fmt.Errorf("rename to %s: %w", path, err)
		}
	} else {
		// A hard link fails if path exists, atomically: no window in
		// which another file there would be replaced.
		if err := os.Link(tmp, path); err != nil {
			return fmt.Errorf("create %s: %w", path, err)
		}
		_ = os.Remove(tmp)
	}
	return syncDir(filepath.Dir(path))
}

// syncDir makes a rename or creation in dir durable.
func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return fmt.Errorf("open directory %s: %w", dir, err)
	}
	defer d.Close()
	if err := d.Sync(); err != nil {
		return fmt.Errorf("sync directory %s: %w", dir, err)
	}
	return nil
}

// removeTempSecrets removes temporary secrets files a crash left behind.
// Called with the mirror's write lock held, so no writer is using one.
func (s *Store) removeTempSecrets() {
	tmps, _ := filepath.Glob(escapeGlob(s.secretsPath()) + ".tmp-*")
	for _, t := range tmps {
		_ = os.Remove(t)
	}
}

// escapeGlob quotes the metacharacters of filepath.Match in p.
func escapeGlob(p string) string {
	out := make([]byte, 0, len(p))
	for i := 0; i < len(p); i++ {
		switch p[i] {
		case '*', '?', '[', '\\':
			out = append(out, '\\')
		}
		out = append(out, p[i])
	}
	return string(out)
}

// updateSecrets applies change to the secrets file within tx (whose write
// lock serialises updates across processes) and erases, in the same
// write, every secret past its grace.
func (s *Store) updateSecrets(ctx context.Context, tx *sql.Tx, change func(doc *secretsDoc)) error {
	doc, err := readSecrets(s.secretsPath())
	if err != nil {
		return err
	}
	rows, err := webhookDeletions(ctx, tx)
	if err != nil {
		return err
	}
	if change != nil {
		change(&doc)
	}
	expired := s.expiredSecrets(doc, rows)
	if change == nil && len(expired) == 0 {
		return nil
	}
	for _, id := range expired {
		delete(doc.Webhooks, id)
	}
	s.removeTempSecrets()
	return writeSecrets(s.secretsPath(), doc)
}

// webhookRow is what the secrets need of a webhooks row.
type webhookRow struct {
	deletedAt *string
}

// webhookDeletions reads every webhook row's deleted_at.
func webhookDeletions(ctx context.Context, q querier) (map[string]webhookRow, error) {
	rows, err := q.QueryContext(ctx, "SELECT id, deleted_at FROM webhooks")
	if err != nil {
		return nil, fmt.Errorf("read webhooks: %w", err)
	}
	defer rows.Close()
	out := map[string]webhookRow{}
	for rows.Next() {
		var id string
		var r webhookRow
		if err := rows.Scan(&id, &r.deletedAt); err != nil {
			return nil, fmt.Errorf("read webhooks: %w", err)
		}
		out[id] = r
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("read webhooks: %w", err)
	}
	return out, nil
}

// secretValid reports whether a stored secret still verifies deliveries:
// its webhook is active, or was deleted less than SecretGrace ago. A secret
// whose row never committed (a registration that failed at its last step,
// its webhook deleted again) counts as deleted when it was stored.
func (s *Store) secretValid(sec storedSecret, row webhookRow, hasRow bool) bool {
	cutoff := s.now().Add(-SecretGrace).UTC().Format(TimeLayout)
	switch {
	case !hasRow:
		return sec.StoredAt > cutoff
	case row.deletedAt == nil:
		return true
	default:
		return *row.deletedAt > cutoff
	}
}

// expiredSecrets lists the secrets in doc past their grace.
func (s *Store) expiredSecrets(doc secretsDoc, rows map[string]webhookRow) []string {
	var out []string
	for id, sec := range doc.Webhooks {
		row, ok := rows[id]
		if !s.secretValid(sec, row, ok) {
			out = append(out, id)
		}
	}
	return out
}

// pruneSecrets erases the secrets past their grace, if there are any.
func (s *Store) pruneSecrets(ctx context.Context, rows map[string]webhookRow, doc secretsDoc) error {
	if len(s.expiredSecrets(doc, rows)) == 0 {
		return nil
	}
	return s.InTx(ctx, func(tx *sql.Tx) error { return s.updateSecrets(ctx, tx, nil) })
}

// secretOf returns the stored secret of webhook id, or "".
func (s *Store) secretOf(id string) (string, error) {
	doc, err := readSecrets(s.secretsPath())
	if err != nil {
		return "", err
	}
	return doc.Webhooks[id].SecretKey, nil
}
