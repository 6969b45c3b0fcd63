package config

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"unicode"

	"github.com/bankmirror/bankmirror/internal/fsinfo"
)

// Person is one person of the household and their personal access token.
type Person struct {
	// Name is the person's name: 1 to 32 of a-z, 0-9, _ and -.
	Name string
	// Token is the person's personal access token.
	Token string
	// Source says where the token came from (a variable, a file, a
	// systemd credential), never the token.
	Source string
}

// DefaultPerson names the person of a single token when BANKMIRROR_PERSON
// is not set.
const DefaultPerson = "me"

// tokenCredential is the token among systemd's credentials
// (LoadCredential=token:...), read when no variable names a token;
// personCredentialPrefix begins the name of a household's credentials
// (LoadCredential=token.alex:...).
const (
	tokenCredential        = "token"
	personCredentialPrefix = tokenCredential + "."
)

var personName = regexp.MustCompile(`^[a-z0-9_-]{1,32}$`)

// errPersonName says what a person's name may be.
var errPersonName = errors.New("a person's name is 1 to 32 of a-z, 0-9, _ and -")

// CheckPersonName refuses a name that is not a person's name.
func CheckPersonName(name string) error {
	if !personName.MatchString(name) {
		return fmt.Errorf("%q: %w", name, errPersonName)
	}
	return nil
}

// People reads the household's tokens from environ, every time it is
// called (SIGHUP calls it again): the directory BANKMIRROR_TOKENS_DIR (one
// file per person, named by the person), else the systemd credentials
// token.NAME, else the single token (BANKMIRROR_TOKEN_FILE,
// BANKMIRROR_TOKEN, the credential token) as a household of one whose
// person BANKMIRROR_PERSON names (default me). The people are sorted by
// name; none is returned, without an error, when no token is configured. A
// problem is one *Error naming the variable or the file, never a token.
func People(environ map[string]string) ([]Person, error) {
	single, singleVar, err := singleToken(environ)
	if err != nil {
		return nil, err
	}
	if single == "" { // set to blanks: not set
		singleVar = ""
	}
	dir := environ[Prefix+"TOKENS_DIR"]
	creds := personCredentials(environ)
	var people []Person
	switch {
	case dir != "" && len(creds) > 0:
		return nil, bothForms(Prefix+"TOKENS_DIR", credentialVar(creds[0]))
	case dir != "" && singleVar != "":
		return nil, bothForms(Prefix+"TOKENS_DIR", singleVar)
	case len(creds) > 0 && singleVar != "":
		return nil, bothForms(credentialVar(creds[0]), singleVar)
	case dir != "":
		if people, err = readTokensDir(dir); err != nil {
			return nil, err
		}
	case len(creds) > 0:
		if people, err = readPersonCredentials(environ["CREDENTIALS_DIRECTORY"], creds); err != nil {
			return nil, err
		}
	case singleVar != "":
		name := environ[Prefix+"PERSON"]
		if name == "" {
			name = DefaultPerson
		}
		if err := CheckPersonName(name); err != nil {
			return nil, &Error{Prefix + "PERSON", err}
		}
		return []Person{{Name: name, Token: single, Source: tokenSource(environ, singleVar)}}, nil
	default:
		return nil, nil
	}
	slices.SortFunc(people, func(a, b Person) int { return strings.Compare(a.Name, b.Name) })
	for i := 1; i < len(people); i++ {
		for _, p := range people[:i] {
			if p.Token == people[i].Token {
				return nil, &Error{houseVar(dir, people[i].Name), fmt.Errorf("%s and %s hold the same token: each person has their own", p.Source, people[i].Source)}
			}
		}
	}
	return people, nil
}

// houseVar names where a household's people come from, for errors.
func houseVar(dir, name string) string {
	if dir != "" {
		return Prefix + "TOKENS_DIR"
	}
	return credentialVar(personCredentialPrefix + name)
}

func bothForms(household, single string) error {
	return &Error{household, fmt.Errorf("set together with %s: use one or the other (a household's tokens or one token), not both", single)}
}

// singleToken reads the single token: the file BANKMIRROR_TOKEN_FILE
// names, else BANKMIRROR_TOKEN, else the systemd credential token. name is
// the variable (or credential) that set it, "" when none did.
func singleToken(environ map[string]string) (token, name string, err error) {
	if path := environ[Prefix+"TOKEN_FILE"]; path != "" {
		name = Prefix + "TOKEN_FILE"
		b, err := readFile(name, path)
		if err != nil {
			return "", name, err
		}
		token, err = tokenFromFile(name, b)
		return token, name, err
	}
	if v := environ[Prefix+"TOKEN"]; v != "" {
		name = Prefix + "TOKEN"
		token, err = checkToken(name, v)
		return token, name, err
	}
	if dir := environ["CREDENTIALS_DIRECTORY"]; dir != "" {
		if b, err := os.ReadFile(filepath.Join(dir, tokenCredential)); err == nil {
			name = credentialVar(tokenCredential)
			token, err = checkToken(name, string(b))
			return token, name, err
		}
	}
	return "", "", nil
}

// tokenSource says where singleToken took the token variable name gave.
func tokenSource(environ map[string]string, name string) string {
	if strings.HasPrefix(name, Prefix) {
		return VarSource(environ, name)
	}
	return "the systemd credential " + filepath.Join(environ["CREDENTIALS_DIRECTORY"], tokenCredential)
}

// personCredentials are the names of the credentials token.NAME in
// $CREDENTIALS_DIRECTORY, sorted.
func personCredentials(environ map[string]string) []string {
	dir := environ["CREDENTIALS_DIRECTORY"]
	if dir == "" {
		return nil
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil
	}
	var out []string
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), personCredentialPrefix) {
			out = append(out, e.Name())
		}
	}
	return out
}

func readPersonCredentials(dir string, names []string) ([]Person, error) {
	var people []Person
	for _, cred := range names {
		v := credentialVar(cred)
		name := strings.TrimPrefix(cred, personCredentialPrefix)
		if err := CheckPersonName(name); err != nil {
			return nil, &Error{v, err}
		}
		path := filepath.Join(dir, cred)
		b, err := readFile(v, path)
		if err != nil {
			return nil, err
		}
		token, err := tokenFromFile(v, b)
		if err != nil {
			return nil, err
		}
		people = append(people, Person{Name: name, Token: token, Source: "the systemd credential " + path})
	}
	return people, nil
}

// readTokensDir reads a household's directory: every entry is a regular
// file named by its person, readable by its owner only, and that owner is
// the user reading it. The directory is checked first (checkTokensDir).
func readTokensDir(dir string) ([]Person, error) {
	v := Prefix + "TOKENS_DIR"
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, &Error{v, fmt.Errorf("cannot read directory %q: %w", dir, errors.Unwrap(err))}
	}
	if err := checkTokensDir(dir, os.Geteuid()); err != nil {
		return nil, &Error{v, err}
	}
	var people []Person
	for _, e := range entries {
		path := filepath.Join(dir, e.Name())
		if err := CheckPersonName(e.Name()); err != nil {
			return nil, &Error{v, fmt.Errorf("%s: the file's name is its person's, and %w: rename or remove it", path, errPersonName)}
		}
		info, err := os.Lstat(path)
		if err != nil {
			return nil, &Error{v, fmt.Errorf("%s: %w", path, errors.Unwrap(err))}
		}
		switch {
		case info.Mode()&os.ModeSymlink != 0:
			return nil, &Error{v, fmt.Errorf("%s is a symbolic link: put the token file itself in the directory", path)}
		case !info.Mode().IsRegular():
			return nil, &Error{v, fmt.Errorf("%s is not a regular file", path)}
		case info.Mode().Perm()&0o077 != 0:
			return nil, &Error{v, fmt.Errorf("%s is open to group or others (mode %04o): chmod 600 it", path, info.Mode().Perm())}
		}
		if err := checkTokenFile(path, info, os.Geteuid()); err != nil {
			return nil, &Error{v, err}
		}
		b, err := readFile(v, path)
		if err != nil {
			return nil, err
		}
		token, err := tokenFromFile(v, b)
		if err != nil {
			var ce *Error
			if errors.As(err, &ce) {
				err = &Error{v, fmt.Errorf("%s: %w", path, ce.Err)}
			}
			return nil, err
		}
		people = append(people, Person{Name: e.Name(), Token: token, Source: "the file " + path})
	}
	if len(people) == 0 {
		return nil, &Error{v, fmt.Errorf("%q holds no token file: put one file per person in it, named by the person", dir)}
	}
	return people, nil
}

// tokenFromFile is the token a file read for variable name holds.
func tokenFromFile(name string, b []byte) (string, error) {
	if strings.TrimSpace(string(b)) == "" {
		return "", &Error{name, errors.New("the file holds no token")}
	}
	return checkToken(name, string(b))
}

// checkToken trims v and refuses control characters (a line break inside,
// a tab, an escape): such a token is never what the bank issued, and would
// be retried against the bank for nothing.
func checkToken(name, v string) (string, error) {
	v = strings.TrimSpace(v)
	if strings.IndexFunc(v, unicode.IsControl) >= 0 {
		return "", &Error{name, errors.New("the token contains control characters (a line break, tab or other invisible character); it must be one line")}
	}
	return v, nil
}

// checkTokensDir refuses a household's directory that users other than
// uid (who reads the tokens) may write: one whose group or every user may
// write it, or that belongs to another user than uid or root. Whoever can
// write the directory can put a token file of their own in it (a person
// whose transactions then join the mirror) or swap one. Without Unix
// ownership only the mode is checked.
func checkTokensDir(dir string, uid int) error {
	fi, err := os.Stat(dir)
	if err != nil {
		return fmt.Errorf("cannot read directory %q: %w", dir, errors.Unwrap(err))
	}
	if perm := fi.Mode().Perm(); perm&0o022 != 0 {
		return fmt.Errorf("%s may be written by group or others (mode %04o), who could add a token file or swap one: chmod 0700 %s (or 0750 to let its group read it)",
			dir, perm, dir)
	}
	if owner, ok := fsinfo.Owner(fi); ok && owner != uid && owner != 0 {
		return fmt.Errorf("%s belongs to uid %d, not to uid %d who reads the tokens (or root), and its owner could add a token file or swap one: chown it to bankmirror's user",
			dir, owner, uid)
	}
	return nil
}

// checkTokenFile refuses a token file (described by fi, not following a
// link) with another name than path (a hard link: whoever may write that
// other name writes this token, and a link to another user's file would
// read it as a token) or that belongs to another user than uid.
func checkTokenFile(path string, fi os.FileInfo, uid int) error {
	if n, ok := fsinfo.Links(fi); ok && n > 1 {
		return fmt.Errorf("%s has %d hard links (the same file under other names): give each token a file of its own (copy it, then remove the link)", path, n)
	}
	if owner, ok := fsinfo.Owner(fi); ok && owner != uid {
		return fmt.Errorf("%s belongs to uid %d, not to uid %d who reads the tokens: chown it to bankmirror's user", path, owner, uid)
	}
	return nil
}

// Members are the people configured (People), by name, each with their
// token: the household's tokens (BANKMIRROR_TOKENS_DIR, the credentials
// token.NAME), or the single token as a household of one. None is an
// error naming BANKMIRROR_TOKEN.
func Members(environ map[string]string) ([]Person, error) {
	people, err := People(environ)
	if err != nil {
		return nil, err
	}
	if len(people) == 0 {
		return nil, &Error{Var: Prefix + "TOKEN", Err: errors.New("not set: set BANKMIRROR_TOKEN or BANKMIRROR_TOKEN_FILE to your personal access token, or BANKMIRROR_TOKENS_DIR to a household's tokens")}
	}
	return people, nil
}

// Names are the names of the people configured, nil when the tokens
// cannot be read (status reports on the mirror without them).
func Names(environ map[string]string) []string {
	people, err := People(environ)
	if err != nil || len(people) == 0 {
		return nil
	}
	names := make([]string, len(people))
	for i, p := range people {
		names[i] = p.Name
	}
	return names
}
