package main

import (
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/rs/zerolog"

	"github.com/bankmirror/bankmirror/internal/config"
	"github.com/bankmirror/bankmirror/internal/store"
)

// envPrefix prefixes every configuration variable.
const envPrefix = config.Prefix

// Config is bankmirror's whole configuration, read from BANKMIRROR_*
// variables: internal/config's, with the methods the commands use.
type Config config.Config

// configError is a configuration problem, reported as one line naming the
// variable (config.Error, whose errors loadConfig returns as this type).
type configError config.Error

func (e *configError) Error() string { return (*config.Error)(e).Error() }
func (e *configError) Unwrap() error { return e.Err }

// asConfigError makes a *config.Error a *configError, so that errors.As
// finds either; other errors are returned as they are.
func asConfigError(err error) error {
	if ce, ok := err.(*config.Error); ok {
		return (*configError)(ce)
	}
	return err
}

// adminOff is Config.AdminListen when the admin listener is disabled.
const adminOff = config.AdminOff

// loadConfig reads the configuration from environ (os.Environ() in main, a
// map in tests) and fills in derived defaults (config.Load).
func loadConfig(environ map[string]string) (Config, error) {
	c, err := config.Load(environ)
	return Config(c), asConfigError(err)
}

// loadConfigFor is loadConfig for command cmd: for the commands that must
// run whatever an unrelated setting says, each bad variable the command
// does not read is set aside and returned in setAside (config.LoadFor).
func loadConfigFor(cmd string, environ map[string]string) (Config, []*configError, error) {
	c, aside, err := config.LoadFor(cmd, environ)
	setAside := make([]*configError, len(aside))
	for i, ce := range aside {
		setAside[i] = (*configError)(ce)
	}
	return Config(c), setAside, asConfigError(err)
}

// warnSetAside tells on stderr which bad settings cmd runs without; status
// and config report them in their own output.
func warnSetAside(w io.Writer, cmd string, setAside []*configError) {
	if cmd == "status" || cmd == "config" || cmd == "version" {
		return
	}
	for _, ce := range setAside {
		fmt.Fprintf(w, "bankmirror: warning: %v (%s does not use it and runs without it; commands that use it refuse to start)\n", ce, cmd)
	}
}

// redactURL is raw with the credentials of its userinfo hidden
// (config.RedactURL).
func redactURL(raw string) string { return config.RedactURL(raw) }

// loadZone loads an IANA zone by name; "" and "Local" are refused
// (config.LoadZone).
func loadZone(name string) (*time.Location, error) { return config.LoadZone(name) }

// storeOptions are the store options the configuration sets; the store
// logs to log.
func (c *Config) storeOptions(log zerolog.Logger) []store.Option {
	opts := []store.Option{store.WithMigrationBackup(c.MigrationBackup != "off"), store.WithLogger(log)}
	if loc, err := loadZone(c.Timezone); err == nil {
		opts = append(opts, store.WithTimeZone(loc))
	} // else not validated: the store's default zone
	return opts
}

// openMirrorError is the error of opening the mirror at path; when the copy
// kept before a migration failed, it says what to do.
func openMirrorError(path string, err error) error {
	if errors.Is(err, store.ErrMigrationBackup) {
		return fmt.Errorf("open mirror %s: %w (the mirror is unchanged and not migrated: fix this, e.g. free space beside it, or set %sMIGRATION_BACKUP=off to migrate without a copy)",
			path, err, envPrefix)
	}
	return fmt.Errorf("open mirror %s: %w", path, err)
}
