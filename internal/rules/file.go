package rules

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/expr-lang/expr"
	"github.com/expr-lang/expr/vm"

	"github.com/bankmirror/bankmirror/internal/store"
	"github.com/bankmirror/bankmirror/internal/textsafe"
	"github.com/bankmirror/bankmirror/internal/tomlfile"
	"github.com/bankmirror/bankmirror/internal/writeback"
)

// Limits of a rules file, so that a file pasted by mistake is refused
// rather than compiled.
const (
	MaxFileBytes   = 1 << 20
	MaxRules       = 2000
	MaxWhenLength  = 4096
	maxExprNodes   = 2000
	maxNameLength  = 200
	maxTagsPerRule = 6
)

// Rule is one [[rule]] of the file.
type Rule struct {
	Name string
	When string
	// Category is as written in the file (an id, a name, or "none");
	// CategoryID is what Resolve made of it ("" removes the category).
	Category   string
	CategoryID string
	Tags       []string
	Notify     []string
	// ExcludeFromSpending and Note are the mirror's own: they never reach
	// the bank.
	ExcludeFromSpending *bool
	Note                *string
	// Line is where the rule's [[rule]] header is in the file, WhenLine
	// its when key (errors of the condition point there).
	Line, WhenLine int
	categoryLine   int
	program        *vm.Program
}

// SetsCategory says whether the rule sets (or removes) the category.
func (r *Rule) SetsCategory() bool { return r.Category != "" }

// Channel is a [channel.NAME] of the file: where alerts go.
type Channel struct {
	Name       string
	URL        string
	SecretFile string
	// PerHour is the channel's rate limit (0: the default).
	PerHour int
	// Line is where the channel's table is in the file.
	Line int
}

// Set is a parsed, compiled rules file.
type Set struct {
	Path     string
	Rules    []*Rule
	Channels map[string]Channel
	// Alerts are the file's [alert.*] tables, by kind.
	Alerts []Alert
	// AlertSettings is the file's [alerts] table.
	AlertSettings AlertSettings
	// Unresolved says the categories could not be resolved yet (the
	// mirror had none: before its first sync); until they are, no rule
	// sets a category.
	Unresolved bool
}

// fileDoc is the TOML document.
type fileDoc struct {
	Rule []struct {
		Name                string   `toml:"name"`
		When                string   `toml:"when"`
		Category            string   `toml:"category"`
		Tags                []string `toml:"tags"`
		Notify              []string `toml:"notify"`
		ExcludeFromSpending *bool    `toml:"exclude_from_spending"`
		Note                *string  `toml:"note"`
	} `toml:"rule"`
	Channel map[string]struct {
		URL        string `toml:"url"`
		SecretFile string `toml:"secret_file"`
		PerHour    int    `toml:"per_hour"`
	} `toml:"channel"`
	// Alert is read by kind (parseAlert): each kind has its own keys.
	Alert  map[string]map[string]any `toml:"alert"`
	Alerts struct {
		DashboardURL string `toml:"dashboard_url"`
		QuietHours   string `toml:"quiet_hours"`
	} `toml:"alerts"`
}

// FileError is a problem of the rules file at a line: its Error is one
// line, "file:line: what".
type FileError = tomlfile.Error

// Categories is what resolving a file's categories needs of the mirror
// (*store.Store).
type Categories interface {
	CategoryTree(ctx context.Context) (map[string]store.CategoryNode, error)
}

// Options say how Load reads the rules file.
type Options struct {
	// MissingOK makes a missing file no rules (the default file, not
	// named in the configuration); otherwise a missing file is an error.
	MissingOK bool
	// Zone is the customer's zone, in which the quiet hours are and the
	// conditions' date functions read dates (UTC when nil).
	Zone *time.Location
	// Categories, if set, are the mirror's: each rule's category is
	// resolved against them (ResolveIn).
	Categories Categories
	// CheckChannel, if set, checks a channel (alerts.CheckChannel opens
	// it: its URL and its secret file); what it refuses is an error at the
	// channel's line.
	CheckChannel func(Channel) error
}

// Load reads the rules file at path: the one way the daemon, the rules
// and alerts commands and the dashboard read it. It parses and compiles
// the file (Parse), checks its channels and resolves its categories, as o
// says.
func Load(ctx context.Context, path string, o Options) (*Set, error) {
	data, err := tomlfile.Read(path, MaxFileBytes)
	switch {
	case errors.Is(err, os.ErrNotExist) && o.MissingOK:
		return &Set{Path: path, Channels: map[string]Channel{}, AlertSettings: AlertSettings{Zone: o.Zone}}, nil
	case errors.Is(err, os.ErrNotExist):
		return nil, fmt.Errorf("no rules file at %s (set BANKMIRROR_RULES_FILE): %w", path, err)
	case err != nil:
		var fe *FileError
		if errors.As(err, &fe) {
			return nil, err
		}
		return nil, fmt.Errorf("read rules file: %w", err)
	}
	set, err := Parse(path, data, o.Zone)
	if err != nil {
		return nil, err
	}
	if o.CheckChannel != nil {
		for _, name := range slices.Sorted(maps.Keys(set.Channels)) {
			ch := set.Channels[name]
			if err := o.CheckChannel(ch); err != nil {
				return nil, &FileError{Path: path, Line: ch.Line, Err: err}
			}
		}
	}
	if o.Categories != nil && len(set.Rules) > 0 {
		if err := set.ResolveIn(ctx, o.Categories); err != nil {
			return nil, err
		}
	}
	return set, nil
}

// Parse parses and compiles a rules file's content; path names it in
// errors, zone is the customer's (Options.Zone).
func Parse(path string, data []byte, zone *time.Location) (*Set, error) {
	var doc fileDoc
	lines, err := tomlfile.Decode(path, data, &doc)
	if err != nil {
		return nil, err
	}
	if len(doc.Rule) > MaxRules {
		return nil, &FileError{Path: path, Err: fmt.Errorf("%d rules, at most %d", len(doc.Rule), MaxRules)}
	}
	if zone == nil {
		zone = time.UTC
	}
	set := &Set{Path: path, Channels: map[string]Channel{}, AlertSettings: AlertSettings{Zone: zone}}
	for name, c := range doc.Channel {
		line := lines.Table("channel." + name)
		if c.URL == "" {
			return nil, &FileError{Path: path, Line: line, Err: fmt.Errorf("channel %q has no url", name)}
		}
		if c.PerHour < 0 {
			return nil, &FileError{Path: path, Line: line, Err: fmt.Errorf("channel %q: per_hour must not be negative", name)}
		}
		set.Channels[name] = Channel{Name: name, URL: c.URL, SecretFile: c.SecretFile, PerHour: c.PerHour, Line: line}
	}
	set.AlertSettings.DashboardURL = strings.TrimRight(doc.Alerts.DashboardURL, "/")
	if q := doc.Alerts.QuietHours; q != "" {
		from, to, err := parseQuiet(q)
		if err != nil {
			return nil, &FileError{Path: path, Line: lines.Table("alerts"), Err: err}
		}
		set.AlertSettings.QuietFrom, set.AlertSettings.QuietTo = from, to
	}
	names := map[string]int{}
	for i, r := range doc.Rule {
		line := lines.ArrayTable("rule", i)
		rule := &Rule{
			Name: strings.TrimSpace(r.Name), When: r.When, Category: strings.TrimSpace(r.Category),
			Tags: dedupe(r.Tags), Notify: dedupe(r.Notify),
			ExcludeFromSpending: r.ExcludeFromSpending, Note: r.Note, Line: line,
			WhenLine: lines.ArrayKey("rule", i, "when"), categoryLine: lines.ArrayKey("rule", i, "category"),
		}
		if err := set.check(rule, names, zone); err != nil {
			at := line
			if errors.Is(err, errWhen) && rule.WhenLine > 0 {
				at = rule.WhenLine
			}
			return nil, &FileError{Path: path, Line: at, Err: err}
		}
		names[rule.Name] = line
		set.Rules = append(set.Rules, rule)
	}
	for _, k := range slices.Sorted(maps.Keys(doc.Alert)) {
		line := lines.Table("alert." + k)
		a, err := parseAlert(k, doc.Alert[k])
		if err != nil {
			return nil, &FileError{Path: path, Line: line, Err: err}
		}
		a.Line = line
		if err := set.checkNotify(a.Notify); err != nil {
			return nil, &FileError{Path: path, Line: line, Err: fmt.Errorf("alert %s: %w", k, err)}
		}
		set.Alerts = append(set.Alerts, a)
	}
	return set, nil
}

// check validates and compiles one rule.
func (s *Set) check(r *Rule, names map[string]int, zone *time.Location) error {
	switch {
	case r.Name == "":
		return errors.New("a rule needs a name")
	case len(r.Name) > maxNameLength:
		return fmt.Errorf("rule name longer than %d bytes", maxNameLength)
	case names[r.Name] != 0:
		return fmt.Errorf("rule %q is already defined at line %d", r.Name, names[r.Name])
	case strings.TrimSpace(r.When) == "":
		return fmt.Errorf("rule %q has no when", r.Name)
	case len(r.When) > MaxWhenLength:
		return fmt.Errorf("rule %q: when longer than %d bytes", r.Name, MaxWhenLength)
	case !r.SetsCategory() && len(r.Tags) == 0 && len(r.Notify) == 0 && r.ExcludeFromSpending == nil && r.Note == nil:
		return fmt.Errorf("rule %q does nothing: give it category, tags, notify, exclude_from_spending or note", r.Name)
	case len(r.Tags) > maxTagsPerRule:
		return fmt.Errorf("rule %q adds %d tags, the bank allows %d on a transaction", r.Name, len(r.Tags), maxTagsPerRule)
	}
	for _, t := range r.Tags {
		if t == "" || strings.TrimSpace(t) != t {
			return fmt.Errorf("rule %q: tag %q is empty or has spaces around it", r.Name, t)
		}
	}
	if err := s.checkNotify(r.Notify); err != nil {
		return fmt.Errorf("rule %q: %w", r.Name, err)
	}
	prog, err := compile(r.When, zone)
	if err != nil {
		return fmt.Errorf("rule %q: %w: %w", r.Name, errWhen, err)
	}
	r.program = prog
	return nil
}

// errWhen marks an error of a rule's condition.
var errWhen = errors.New("when")

func (s *Set) checkNotify(channels []string) error {
	for _, c := range channels {
		if _, ok := s.Channels[c]; !ok {
			return fmt.Errorf("notify names channel %q, which has no [channel.%s]", c, c)
		}
	}
	return nil
}

// compile compiles a `when` expression against Transaction, its date
// functions in zone: unknown names, wrong types, a result that is not a
// boolean and what cannot be bounded (bounds.go) are errors here, not at
// run time.
func compile(when string, zone *time.Location) (*vm.Program, error) {
	if err := checkBounds(when); err != nil {
		return nil, err
	}
	prog, err := expr.Compile(when, compileOptions(zone)...)
	if err != nil {
		return nil, errors.New(textsafe.FirstLine(err.Error()))
	}
	return prog, nil
}

// Resolve turns each rule's category (an id, a name or "none") into an
// id through resolve, which answers the id ("" for none) or why the value
// names no category.
func (s *Set) Resolve(resolve func(v string) (id, reason string)) error {
	for _, r := range s.Rules {
		if !r.SetsCategory() {
			continue
		}
		id, reason := resolve(r.Category)
		if reason != "" {
			line := r.categoryLine
			if line == 0 {
				line = r.Line
			}
			return &FileError{Path: s.Path, Line: line, Err: fmt.Errorf("rule %q: category %q: %s", r.Name, r.Category, reason)}
		}
		r.CategoryID = id
	}
	return nil
}

// ResolveIn resolves the categories against the mirror's; with none in
// the mirror yet, the set stays Unresolved.
func (s *Set) ResolveIn(ctx context.Context, c Categories) error {
	tree, err := c.CategoryTree(ctx)
	if err != nil {
		return err
	}
	if len(tree) == 0 {
		s.Unresolved = slices.ContainsFunc(s.Rules, (*Rule).SetsCategory)
		return nil
	}
	if err := s.Resolve(func(v string) (string, string) { return writeback.ResolveCategory(tree, v) }); err != nil {
		return err
	}
	s.Unresolved = false
	return nil
}

// Rule returns the rule of that name, or nil.
func (s *Set) Rule(name string) *Rule {
	for _, r := range s.Rules {
		if r.Name == name {
			return r
		}
	}
	return nil
}

func dedupe(in []string) []string {
	var out []string
	for _, v := range in {
		if !slices.Contains(out, v) {
			out = append(out, v)
		}
	}
	return out
}

// unresolved says the rule's category has not been resolved to an id.
func (r *Rule) unresolved() bool {
	return r.SetsCategory() && r.CategoryID == "" && !strings.EqualFold(r.Category, writeback.None)
}
