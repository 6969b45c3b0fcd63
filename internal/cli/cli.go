// Package cli describes a program's commands once, in a table, and derives
// everything else from it: running the command a command line names, the
// usage text, each command's --help, shell completions (bash, zsh, fish)
// and a manual page. A command's flags are its flag.FlagSet, so that what
// the help, the completions and the manual show is what the parser accepts.
package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"slices"
	"strings"
)

// Program is a command-line program: its commands and environment.
type Program struct {
	Name string
	// Summary is one line saying what the program does (the manual's NAME
	// line and the usage text's first line).
	Summary string
	// Description is the manual's DESCRIPTION: paragraphs separated by a
	// blank line.
	Description string
	Commands    []*Command
	// Footer ends the usage text.
	Footer string
	// Env is every environment variable the program reads (the manual's
	// ENVIRONMENT).
	Env []Var
	// Sections are more sections of the manual, after ENVIRONMENT (EXIT
	// STATUS, FILES, SEE ALSO).
	Sections []Section
}

// Command is one command, or a subcommand of one.
type Command struct {
	Name string
	// Aliases are other names that run the command ("--version").
	Aliases []string
	// Summary is one line, lowercase, no final period.
	Summary string
	// Synopsis is what follows the command's name in a usage line, e.g.
	// "[--full]" or "TX_ID CATEGORY | --from FILE". Alternative forms are
	// separated by " | ". Every flag it names must be in Flags.
	Synopsis string
	// Detail, if any, is shown after the summary by --help and the manual.
	Detail string
	// Flags are the command's flags (nil: none). The command's Run sees
	// them parsed.
	Flags *flag.FlagSet
	// TakesArgs says whether the command takes positional arguments; a
	// command that does not refuses them.
	TakesArgs bool
	// ArgChoices are the values its first argument may take, offered by
	// completion (completion: bash, zsh, fish).
	ArgChoices []string
	// Env are environment variables listed in the command's --help.
	Env []Var
	// Commands are subcommands: the first argument names one.
	Commands []*Command
	// Default is the subcommand run when the first argument is a flag or
	// absent; without one, the command needs a subcommand.
	Default string
	// Run runs the command with its positional arguments, its flags
	// parsed. A returned error wrapping ErrUsage is a usage error.
	Run func(ctx context.Context, args []string) error
}

// Var is an environment variable.
type Var struct {
	Name string
	// Default is its value when unset, "" when none.
	Default string
	Doc     string
}

// Section is a section of the manual page.
type Section struct {
	Title string // upper case: "EXIT STATUS"
	Text  string // paragraphs separated by a blank line
}

// ErrUsage is wrapped by usage errors: a bad command line.
var ErrUsage = errors.New("usage")

// ShownError is an error whose message the user has seen already: the
// caller only sets the exit status.
type ShownError struct{ Err error }

func (e *ShownError) Error() string { return e.Err.Error() }
func (e *ShownError) Unwrap() error { return e.Err }

// shown is a usage error already reported.
func shown(format string, args ...any) error {
	return &ShownError{fmt.Errorf("%w: "+format, append([]any{ErrUsage}, args...)...)}
}

// Execute runs the command args names with the rest of args. Help (help,
// -h, --help anywhere a flag may be) is written to stdout and is not an
// error; usage errors are explained on stderr and returned wrapping
// ErrUsage. Other errors are Run's, returned as they are for the caller to
// print.
func (p *Program) Execute(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 {
		p.Usage(stderr)
		return shown("no command given")
	}
	switch args[0] {
	case "help", "-h", "-help", "--help":
		if len(args) > 1 {
			path, rest := p.Resolve(args[1:])
			if len(path) > 0 && len(rest) == 0 {
				p.Help(stdout, path...)
				return nil
			}
		}
		p.Usage(stdout)
		return nil
	}
	path, rest := p.Resolve(args)
	if len(path) == 0 {
		fmt.Fprintf(stderr, "%s: unknown command %q\n\n", p.Name, args[0])
		p.Usage(stderr)
		return shown("unknown command %q", args[0])
	}
	c := path[len(path)-1]
	if len(c.Commands) > 0 {
		// No subcommand named: the default one, or help.
		if len(rest) > 0 && isHelp(rest[0]) {
			p.Help(stdout, path...)
			return nil
		}
		if c.Default == "" || (len(rest) > 0 && !strings.HasPrefix(rest[0], "-")) {
			err := shown("%s needs a command: %s", p.pathName(path), strings.Join(names(c.Commands), ", "))
			if len(rest) > 0 {
				err = shown("unknown %s command %q", p.pathName(path), rest[0])
			}
			fmt.Fprintf(stderr, "%s: %v\n\n", p.Name, err)
			p.Help(stderr, path...)
			return err
		}
		c = c.sub(c.Default)
		path = append(path, c)
	}
	fs := c.Flags
	if fs == nil {
		fs = flag.NewFlagSet(p.pathName(path), flag.ContinueOnError)
	}
	fs.SetOutput(stderr)
	fs.Usage = func() {} // help and usage are written below
	pos, err := parse(fs, rest)
	if errors.Is(err, flag.ErrHelp) {
		p.Help(stdout, path...)
		return nil
	}
	if err != nil {
		// The flag package has printed the error.
		p.shortUsage(stderr, path)
		return &ShownError{fmt.Errorf("%w: %w", ErrUsage, err)}
	}
	switch {
	case !c.TakesArgs && len(pos) > 0:
		err = fmt.Errorf("%w: %s takes no arguments, got %q", ErrUsage, p.pathName(path), pos[0])
	case c.Run == nil:
		return fmt.Errorf("%s cannot be run", p.pathName(path))
	default:
		err = c.Run(ctx, pos)
	}
	var seen *ShownError
	if errors.Is(err, ErrUsage) && !errors.As(err, &seen) {
		fmt.Fprintf(stderr, "%s: %v\n", p.Name, err)
		p.shortUsage(stderr, path)
		return &ShownError{err}
	}
	return err
}

// Resolve finds the command (and subcommands) the first arguments name:
// it returns the path to the deepest one named, nil when args[0] names
// none, and the arguments after them.
func (p *Program) Resolve(args []string) (path []*Command, rest []string) {
	cmds := p.Commands
	for len(args) > 0 {
		c := find(cmds, args[0])
		if c == nil {
			break
		}
		path, args, cmds = append(path, c), args[1:], c.Commands
	}
	return path, args
}

// Walk calls fn for every command and subcommand, parents first.
func (p *Program) Walk(fn func(path []*Command)) {
	var walk func(parent []*Command, cmds []*Command)
	walk = func(parent []*Command, cmds []*Command) {
		for _, c := range cmds {
			path := append(slices.Clip(parent), c)
			fn(path)
			walk(path, c.Commands)
		}
	}
	walk(nil, p.Commands)
}

func find(cmds []*Command, name string) *Command {
	for _, c := range cmds {
		if c.Name == name || slices.Contains(c.Aliases, name) {
			return c
		}
	}
	return nil
}

func (c *Command) sub(name string) *Command { return find(c.Commands, name) }

func names(cmds []*Command) []string {
	var out []string
	for _, c := range cmds {
		out = append(out, c.Name)
	}
	return out
}

func isHelp(arg string) bool {
	return arg == "-h" || arg == "-help" || arg == "--help" || arg == "help"
}

// pathName is "webhook register" for that path.
func (p *Program) pathName(path []*Command) string {
	return strings.Join(names(path), " ")
}

// parse parses flags that may come before, between or after the
// positional arguments (`webhook logs ID --limit 5`); "--" ends the flags.
func parse(fs *flag.FlagSet, args []string) ([]string, error) {
	var flags, pos []string
	for i := 0; i < len(args); i++ {
		arg := args[i]
		if arg == "--" {
			pos = append(pos, args[i+1:]...)
			break
		}
		if !strings.HasPrefix(arg, "-") || arg == "-" {
			pos = append(pos, arg)
			continue
		}
		flags = append(flags, arg)
		name := strings.TrimLeft(arg, "-")
		if strings.Contains(name, "=") {
			continue
		}
		if f := fs.Lookup(name); f != nil && i+1 < len(args) {
			if isBool(f) {
				continue
			}
			flags = append(flags, args[i+1])
			i++
		}
	}
	if err := fs.Parse(flags); err != nil {
		return nil, err
	}
	return append(fs.Args(), pos...), nil
}

// isBool reports whether f is a flag without a value (--full).
func isBool(f *flag.Flag) bool {
	b, ok := f.Value.(interface{ IsBoolFlag() bool })
	return ok && b.IsBoolFlag()
}
