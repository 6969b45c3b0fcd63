package cli

import (
	"flag"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
)

// Usage writes the program's usage: its commands with their summaries.
func (p *Program) Usage(w io.Writer) {
	fmt.Fprintf(w, "%s: %s.\n\nUsage: %s <command> [flags]\n\nCommands:\n", p.Name, p.Summary, p.Name)
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	for _, c := range p.Commands {
		fmt.Fprintf(tw, "  %s\t%s\n", c.Name, c.summaryWithAliases())
	}
	_ = tw.Flush()
	fmt.Fprintf(w, "\nRun \"%s COMMAND --help\" for a command's flags.\n", p.Name)
	if p.Footer != "" {
		fmt.Fprint(w, p.Footer)
	}
}

// Help writes the help of the command at path: its usage lines, summary,
// details, subcommands, flags and environment.
func (p *Program) Help(w io.Writer, path ...*Command) {
	c := path[len(path)-1]
	p.usageLines(w, path)
	fmt.Fprintf(w, "\n%s\n", capitalize(c.summaryWithAliases()))
	if c.Detail != "" {
		fmt.Fprintf(w, "\n%s\n", strings.TrimRight(c.Detail, "\n"))
	}
	if len(c.Commands) > 0 {
		fmt.Fprint(w, "\nCommands:\n")
		tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
		for _, s := range c.Commands {
			name := s.Name
			if s.Name == c.Default {
				name += " (default)"
			}
			fmt.Fprintf(tw, "  %s\t%s\n", name, s.Summary)
		}
		_ = tw.Flush()
		fmt.Fprintf(w, "\nRun \"%s %s COMMAND --help\" for a command's flags.\n", p.Name, p.pathName(path))
	}
	if flags := Flags(c.Flags); len(flags) > 0 {
		fmt.Fprint(w, "\nFlags:\n")
		for _, f := range flags {
			fmt.Fprintf(w, "  %s\n        %s\n", f.Form(), f.UsageWithDefault())
		}
	}
	if len(c.Env) > 0 {
		fmt.Fprint(w, "\nEnvironment:\n")
		for _, v := range c.Env {
			fmt.Fprintf(w, "  %s", v.Name)
			if v.Default != "" {
				fmt.Fprintf(w, " (default %s)", v.Default)
			}
			fmt.Fprintf(w, "\n        %s\n", v.Doc)
		}
	}
}

// shortUsage writes the usage lines of the command at path and where to
// find more.
func (p *Program) shortUsage(w io.Writer, path []*Command) {
	p.usageLines(w, path)
	fmt.Fprintf(w, "Run \"%s %s --help\" for more.\n", p.Name, p.pathName(path))
}

// usageLines writes "Usage: prog cmd SYNOPSIS", one line per form.
func (p *Program) usageLines(w io.Writer, path []*Command) {
	for i, form := range p.Forms(path) {
		head := "Usage: "
		if i > 0 {
			head = "       "
		}
		fmt.Fprintf(w, "%s%s\n", head, form)
	}
}

// Forms are the command lines of the command at path, one per alternative
// of its synopsis: "bankmirror sync [--full]".
func (p *Program) Forms(path []*Command) []string {
	c := path[len(path)-1]
	head := p.Name + " " + p.pathName(path)
	syn := c.Synopsis
	if syn == "" && len(c.Commands) > 0 {
		syn = "<command> [flags]"
		if c.Default != "" {
			syn = "[<command>] [flags]"
		}
	}
	if syn == "" {
		return []string{head}
	}
	var out []string
	for form := range strings.SplitSeq(syn, " | ") {
		out = append(out, head+" "+form)
	}
	return out
}

func (c *Command) summaryWithAliases() string {
	if len(c.Aliases) == 0 {
		return c.Summary
	}
	return fmt.Sprintf("%s (also %s)", c.Summary, strings.Join(c.Aliases, ", "))
}

func capitalize(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

// Flag is a flag as help, completions and the manual show it.
type Flag struct {
	Name string
	// Value names its value ("FILE"), "" for a flag without one.
	Value   string
	Usage   string
	Default string // "" when it is the zero value
}

// metavars name the values of flags whose usage names none (in
// backquotes), by the type flag.UnquoteUsage gives instead.
var metavars = map[string]string{"int": "N", "uint": "N", "float": "NUMBER", "string": "VALUE", "value": "VALUE", "duration": "DURATION"}

// Flags lists fs's flags in name order.
func Flags(fs *flag.FlagSet) []Flag {
	if fs == nil {
		return nil
	}
	var out []Flag
	fs.VisitAll(func(f *flag.Flag) {
		value, usage := flag.UnquoteUsage(f)
		switch {
		case isBool(f):
			value = ""
		case metavars[value] != "":
			value = metavars[value]
		}
		def := f.DefValue
		switch def {
		case "", "0", "0s", "false", "[]":
			def = ""
		}
		out = append(out, Flag{Name: f.Name, Value: value, Usage: usage, Default: def})
	})
	return out
}

// Dashed is the flag as typed: "--name", or "-o" for a one-letter name.
func (f Flag) Dashed() string {
	if len(f.Name) == 1 {
		return "-" + f.Name
	}
	return "--" + f.Name
}

// Form is "--name VALUE", or "--name" for a flag without a value.
func (f Flag) Form() string {
	if f.Value == "" {
		return f.Dashed()
	}
	return f.Dashed() + " " + f.Value
}

// UsageWithDefault is the usage text with the default value, if any.
func (f Flag) UsageWithDefault() string {
	if f.Default == "" {
		return f.Usage
	}
	return fmt.Sprintf("%s (default %s)", f.Usage, f.Default)
}
