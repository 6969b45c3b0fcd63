package main

import (
	"context"
	"fmt"
	"os"

	"github.com/bankmirror/bankmirror/internal/cli"
	"github.com/bankmirror/bankmirror/internal/store"
)

func (a *app) backupCommand() *cli.Command {
	fs := newFlags("backup")
	force := fs.Bool("force", false, "replace FILE if it exists")
	withSecrets := fs.Bool("with-secrets", false, "also copy the webhook secrets file to FILE.secrets")
	return &cli.Command{Name: "backup", Synopsis: "[--force] [--with-secrets] FILE", Flags: fs, TakesArgs: true,
		Summary: "a consistent copy of the mirror, taken while the daemon runs (--with-secrets: and its webhook secrets)",
		Run: a.configured(func(ctx context.Context, args []string) error {
			if len(args) != 1 {
				return fmt.Errorf("%w: backup takes one destination file", cli.ErrUsage)
			}
			return a.backup(ctx, args[0], *force, *withSecrets)
		})}
}

func (a *app) backup(ctx context.Context, dest string, force, withSecrets bool) error {
	// Lstat: a symbolic link there, even dangling, is for the store to refuse by name.
	if _, err := os.Lstat(a.cfg.DB); err != nil {
		return fmt.Errorf("no mirror at %s to back up (set BANKMIRROR_DB): %w", a.cfg.DB, err)
	}
	if err := checkOutputDir(dest, "give a FILE in a directory that user can write, such as the mirror's own"); err != nil {
		return err
	}
	st, err := a.openStore(ctx, a.cfg.DB)
	if err != nil {
		return err
	}
	defer st.Close()
	res, err := st.Backup(ctx, dest, store.BackupOptions{Force: force, WithSecrets: withSecrets})
	if err != nil {
		return err
	}
	fmt.Fprintf(a.stdout, "backed up %s to %s (%.1f MiB, mode 0600)\n", a.cfg.DB, res.Path, float64(res.Bytes)/(1<<20))
	switch {
	case res.SecretsPath != "":
		fmt.Fprintf(a.stdout, "webhook secrets copied to %s (mode 0600)\n", res.SecretsPath)
	case withSecrets:
		fmt.Fprintln(a.stdout, "no webhook secrets to copy (no webhook registered with this mirror)")
	}
	return nil
}
