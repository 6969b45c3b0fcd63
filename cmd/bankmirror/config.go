package main

import (
	"errors"
	"fmt"
	"io"

	"github.com/rs/zerolog"

	"github.com/bankmirror/bankmirror/internal/config"
	"github.com/bankmirror/bankmirror/internal/store"
)

// warnSetAside tells on stderr which bad settings cmd runs without; status
// and config report them in their own output.
func warnSetAside(w io.Writer, cmd string, setAside []*config.Error) {
	if cmd == "status" || cmd == "config" || cmd == "version" {
		return
	}
	for _, ce := range setAside {
		fmt.Fprintf(w, "bankmirror: warning: %v (%s does not use it and runs without it; commands that use it refuse to start)\n", ce, cmd)
	}
}

// storeOptions are the store options the configuration sets; the store
// logs to log.
func storeOptions(c config.Config, log zerolog.Logger) []store.Option {
	opts := []store.Option{store.WithMigrationBackup(c.MigrationBackup != "off"), store.WithLogger(log)}
	if c.Location != nil {
		opts = append(opts, store.WithTimeZone(c.Location))
	} // else not loaded: the store's default zone
	return opts
}

// openMirrorError is the error of opening the mirror at path; when the copy
// kept before a migration failed, it says what to do.
func openMirrorError(path string, err error) error {
	if errors.Is(err, store.ErrMigrationBackup) {
		return fmt.Errorf("open mirror %s: %w (the mirror is unchanged and not migrated: fix this, e.g. free space beside it, or set %sMIGRATION_BACKUP=off to migrate without a copy)",
			path, err, config.Prefix)
	}
	return fmt.Errorf("open mirror %s: %w", path, err)
}
