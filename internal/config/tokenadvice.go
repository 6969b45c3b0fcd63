package config

import (
	"path/filepath"
)

// TokenAdvice says what to do about person's token the bank rejected,
// with the configuration environ: where the new token goes (the file's
// own path, not a variable's name) and what makes the daemon take it. A
// tokens directory and a token file are read again on a reload (SIGHUP);
// a systemd credential is copied by the unit at start only, so it takes a
// restart. person is "" for a single token's advice.
func TokenAdvice(environ map[string]string, person string) string {
	const (
		reload  = "`systemctl reload bankmirror` (without systemd, send the daemon SIGHUP)"
		restart = "`systemctl restart bankmirror`: the unit copies its credentials at start (without systemd, send the daemon SIGHUP)"
	)
	dir := environ[Prefix+"TOKENS_DIR"]
	creds := environ["CREDENTIALS_DIRECTORY"]
	switch {
	case dir != "" && person != "":
		return "put a new token in " + filepath.Join(dir, person) + ", then " + reload
	case creds != "" && person != "" && environ[Prefix+"TOKEN_FILE"] == "" && environ[Prefix+"TOKEN"] == "":
		return "put a new token in the file the unit's LoadCredential=token." + person + ": names (`systemctl cat bankmirror`), then " + restart
	case environ[Prefix+"TOKEN_FILE"] != "":
		return "put a new token in " + environ[Prefix+"TOKEN_FILE"] + ", then " + restart
	case person != "":
		return "put a new token for " + person + " where the daemon reads it (the file " + person +
			" in its BANKMIRROR_TOKENS_DIR, or the file its unit's LoadCredential=token." + person + ": names), then " + restart
	default:
		return "put a new token in the token file (the one the unit's LoadCredential=token: names, /etc/bankmirror/token by default), then " + restart
	}
}
