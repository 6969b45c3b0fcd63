package feeds

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/bankmirror/bankmirror/internal/secretfile"
	"github.com/bankmirror/bankmirror/internal/tomlfile"
)

// MaxFileBytes is the largest feeds file read.
const MaxFileBytes = 1 << 20

// Kinds are the apps a feed can feed.
var Kinds = []string{"actual", "ynab"}

// Feed is one [[feed]] of the feeds file.
type Feed struct {
	Name   string
	Kind   string // "actual" or "ynab"
	URL    string
	Budget string
	// SecretFile is password_file (Actual) or token_file (YNAB), made
	// absolute (a relative one is relative to the feeds file); "" when
	// the secret is the systemd credential feed.NAME.
	SecretFile string
	// Secret is the password or token read from SecretFile or the
	// credential. Never shown.
	Secret     string
	SecretFrom string // where Secret came from, for config
	// Since is the first local date fed (YYYY-MM-DD), "" for all.
	Since string
	// Accounts maps the file's account keys to app account names, in the
	// file's order.
	Accounts []AccountKey
	// Categories maps bank category ids to app category names.
	Categories map[string]string
	Line       int
}

// AccountKey is one line of [feed.accounts].
type AccountKey struct {
	Key  string // the bank account's id, display name, or "person/Display Name"
	App  string // the app account's name
	Line int
}

// File is a parsed feeds file.
type File struct {
	Path  string
	Feeds []Feed
}

// Feed returns the feed named name, or nil.
func (f *File) Feed(name string) *Feed {
	if f == nil {
		return nil
	}
	for i := range f.Feeds {
		if f.Feeds[i].Name == name {
			return &f.Feeds[i]
		}
	}
	return nil
}

// Names lists the feeds' names in the file's order.
func (f *File) Names() []string {
	if f == nil {
		return nil
	}
	out := make([]string, len(f.Feeds))
	for i, fd := range f.Feeds {
		out[i] = fd.Name
	}
	return out
}

type fileDoc struct {
	Feed []feedDoc `toml:"feed"`
}

type feedDoc struct {
	Name         string            `toml:"name"`
	Kind         string            `toml:"kind"`
	URL          string            `toml:"url"`
	PasswordFile string            `toml:"password_file"`
	TokenFile    string            `toml:"token_file"`
	Budget       string            `toml:"budget"`
	Since        any               `toml:"since"`
	Accounts     map[string]string `toml:"accounts"`
	Categories   map[string]string `toml:"categories"`
}

var nameRe = regexp.MustCompile(`^[a-z0-9_-]{1,32}$`)

// Load reads and parses the feeds file at path and reads each feed's
// secret (credentials: the directory of systemd credentials, "" for
// none). A missing file is no feeds when missingOK.
func Load(path string, missingOK bool, credentials string) (*File, error) {
	f, err := Read(path, missingOK)
	if err != nil {
		return nil, err
	}
	if err := f.ReadSecrets(credentials); err != nil {
		return nil, err
	}
	return f, nil
}

// Read reads and parses the feeds file at path without reading secrets.
// A missing file is no feeds when missingOK.
func Read(path string, missingOK bool) (*File, error) {
	data, err := tomlfile.Read(path, MaxFileBytes)
	if errors.Is(err, os.ErrNotExist) && missingOK {
		return &File{Path: path}, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read feeds file: %w", err)
	}
	return Parse(path, data)
}

// ReadSecrets reads each feed's password or token.
func (f *File) ReadSecrets(credentials string) error {
	for i := range f.Feeds {
		if err := f.Feeds[i].readSecret(credentials); err != nil {
			return &tomlfile.Error{Path: f.Path, Line: f.Feeds[i].Line, Err: err}
		}
	}
	return nil
}

// Parse parses a feeds file's content (secrets are not read); path names
// it in errors and anchors relative *_file paths.
func Parse(path string, data []byte) (*File, error) {
	var doc fileDoc
	ix, err := tomlfile.Decode(path, data, &doc)
	if err != nil {
		return nil, err
	}
	f := &File{Path: path}
	seen := map[string]int{}
	for i, d := range doc.Feed {
		line := ix.ArrayTable("feed", i)
		fd := Feed{Name: d.Name, Kind: d.Kind, URL: strings.TrimRight(d.URL, "/"), Budget: d.Budget, Line: line,
			Categories: d.Categories}
		at := func(key string) int { return ix.Within("feed", i, "", key) }
		if !nameRe.MatchString(d.Name) {
			return nil, ix.Errorf(at("name"), "feed name %q: want 1 to 32 of a-z, 0-9, _ and -", d.Name)
		}
		if l, ok := seen[d.Name]; ok {
			return nil, ix.Errorf(line, "feed %q is already defined at line %d", d.Name, l)
		}
		seen[d.Name] = line
		switch d.Kind {
		case "actual":
			if d.TokenFile != "" {
				return nil, ix.Errorf(at("token_file"), "feed %q: an actual feed takes password_file, not token_file", d.Name)
			}
			if fd.URL == "" {
				return nil, ix.Errorf(line, "feed %q: url is needed (Actual's server, e.g. http://127.0.0.1:5006)", d.Name)
			}
			fd.SecretFile = d.PasswordFile
		case "ynab":
			if d.PasswordFile != "" {
				return nil, ix.Errorf(at("password_file"), "feed %q: a ynab feed takes token_file, not password_file", d.Name)
			}
			fd.SecretFile = d.TokenFile
		case "":
			return nil, ix.Errorf(line, "feed %q has no kind (one of %s)", d.Name, strings.Join(Kinds, ", "))
		default:
			return nil, ix.Errorf(at("kind"), "feed %q: unknown kind %q (one of %s)", d.Name, d.Kind, strings.Join(Kinds, ", "))
		}
		if fd.URL != "" && !strings.HasPrefix(fd.URL, "http://") && !strings.HasPrefix(fd.URL, "https://") {
			return nil, ix.Errorf(at("url"), "feed %q: url %q must start with http:// or https://", d.Name, d.URL)
		}
		if fd.SecretFile != "" && !filepath.IsAbs(fd.SecretFile) {
			fd.SecretFile = filepath.Join(filepath.Dir(path), fd.SecretFile)
		}
		if strings.TrimSpace(d.Budget) == "" {
			return nil, ix.Errorf(line, "feed %q has no budget (Actual: sync id or name; YNAB: plan id or name)", d.Name)
		}
		switch s := d.Since.(type) {
		case nil:
		case time.Time:
			fd.Since = s.Format(time.DateOnly)
		case string:
			t, err := time.Parse(time.DateOnly, s)
			if err != nil {
				return nil, ix.Errorf(at("since"), "feed %q: since %q: want a date, 2026-01-01", d.Name, s)
			}
			fd.Since = t.Format(time.DateOnly)
		default:
			return nil, ix.Errorf(at("since"), "feed %q: since: want a date, 2026-01-01", d.Name)
		}
		if len(d.Accounts) == 0 {
			return nil, ix.Errorf(line, "feed %q has no [feed.accounts]: name the bank accounts to feed", d.Name)
		}
		keys := make([]string, 0, len(d.Accounts))
		for k := range d.Accounts {
			keys = append(keys, k)
		}
		apps := map[string]string{}
		for _, k := range keys {
			l := ix.Within("feed", i, "accounts", k)
			if strings.TrimSpace(d.Accounts[k]) == "" {
				return nil, ix.Errorf(l, "feed %q: account %q maps to an empty app account name", d.Name, k)
			}
			if other, ok := apps[d.Accounts[k]]; ok {
				return nil, ix.Errorf(l, "feed %q: accounts %q and %q both map to %q", d.Name, other, k, d.Accounts[k])
			}
			apps[d.Accounts[k]] = k
			fd.Accounts = append(fd.Accounts, AccountKey{Key: k, App: d.Accounts[k], Line: l})
		}
		sort.Slice(fd.Accounts, func(a, b int) bool { return fd.Accounts[a].Line < fd.Accounts[b].Line })
		f.Feeds = append(f.Feeds, fd)
	}
	return f, nil
}

// readSecret reads the feed's password or token from its file, or the
// systemd credential feed.NAME.
func (fd *Feed) readSecret(credentials string) error {
	what := "password"
	if fd.Kind == "ynab" {
		what = "token"
	}
	path := fd.SecretFile
	fd.SecretFrom = path
	if path == "" {
		if credentials == "" {
			return fmt.Errorf("feed %q has no %s: set %s_file, or the systemd credential feed.%s", fd.Name, what,
				what, fd.Name)
		}
		path = filepath.Join(credentials, "feed."+fd.Name)
		fd.SecretFrom = "the systemd credential feed." + fd.Name
	}
	read := secretfile.Read
	if fd.SecretFile == "" {
		read = secretfile.ReadCredential
	}
	s, err := read(path)
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return fmt.Errorf("feed %q: read %s from %s: %w", fd.Name, what, fd.SecretFrom, pe.Err)
	}
	if err != nil {
		return fmt.Errorf("feed %q: %w", fd.Name, err)
	}
	fd.Secret = s
	return nil
}

// ResolveAccounts maps the feed's account keys to bank account ids: a
// key is an account's id, its display name when no other account of the
// household has it, or "person/Display Name". It returns bank account id
// -> app account name; an unknown or ambiguous key is an error naming the
// candidates.
func (fd *Feed) ResolveAccounts(accounts []BankAccount) (map[string]string, error) {
	out := map[string]string{}
	for _, k := range fd.Accounts {
		id, err := resolveKey(k.Key, accounts)
		if err != nil {
			return nil, fmt.Errorf("feed %q: line %d: %w", fd.Name, k.Line, err)
		}
		if _, dup := out[id]; dup {
			return nil, fmt.Errorf("feed %q: line %d: account %q is already fed by another key", fd.Name, k.Line, k.Key)
		}
		out[id] = k.App
	}
	return out, nil
}

// BankAccount is a mirrored account and who sees it.
type BankAccount struct {
	ID, Name string
	People   []string
}

func resolveKey(key string, accounts []BankAccount) (string, error) {
	for _, a := range accounts {
		if a.ID == key {
			return a.ID, nil
		}
	}
	var match []BankAccount
	if person, name, ok := strings.Cut(key, "/"); ok {
		for _, a := range accounts {
			if a.Name == name && slices.Contains(a.People, person) {
				match = append(match, a)
			}
		}
	}
	if len(match) == 0 {
		for _, a := range accounts {
			if a.Name == key {
				match = append(match, a)
			}
		}
	}
	switch len(match) {
	case 1:
		return match[0].ID, nil
	case 0:
		return "", fmt.Errorf("no bank account %q; the accounts are: %s", key, candidates(accounts))
	default:
		return "", fmt.Errorf("bank account %q is ambiguous: %s", key, candidates(match))
	}
}

// candidates names each account by the keys that name it.
func candidates(accounts []BankAccount) string {
	names := map[string]int{}
	for _, a := range accounts {
		names[a.Name]++
	}
	var out []string
	for _, a := range accounts {
		switch {
		case names[a.Name] == 1:
			out = append(out, fmt.Sprintf("%q", a.Name))
		case len(a.People) == 1:
			out = append(out, fmt.Sprintf("%q", a.People[0]+"/"+a.Name))
		default:
			out = append(out, fmt.Sprintf("%q (%s)", a.ID, a.Name))
		}
	}
	if len(out) == 0 {
		return "none (run bankmirror sync first)"
	}
	return strings.Join(out, ", ")
}
