package cli

import (
	"fmt"
	"io"
	"strings"
)

// ManPage is what the manual page says of itself besides the program: the
// version it documents and its date (YYYY-MM-DD), "" when unknown.
type ManPage struct {
	Version string
	Date    string
}

// Man writes the program's manual page, section 1, in roff (man macros):
// every command with its forms, flags and subcommands, and every
// environment variable with its default.
func (p *Program) Man(w io.Writer, m ManPage) {
	source := p.Name
	if m.Version != "" {
		source += " " + m.Version
	}
	fmt.Fprintf(w, ".TH %s 1 %s %s \"User Commands\"\n", roffQuote(strings.ToUpper(p.Name)), roffQuote(m.Date), roffQuote(source))
	fmt.Fprintf(w, ".SH NAME\n%s \\- %s\n", roffEscape(p.Name), roffEscape(p.Summary))
	fmt.Fprintf(w, ".SH SYNOPSIS\n.B %s\n.I command\n.RI [ flags ]\n", roffEscape(p.Name))
	if p.Description != "" {
		fmt.Fprint(w, ".SH DESCRIPTION\n")
		roffParagraphs(w, p.Description)
	}
	fmt.Fprint(w, ".SH COMMANDS\n")
	p.Walk(func(path []*Command) {
		c := path[len(path)-1]
		fmt.Fprintf(w, ".SS %s\n", roffQuote(p.pathName(path)))
		fmt.Fprint(w, ".nf\n")
		for _, form := range p.Forms(path) {
			head := p.Name + " " + p.pathName(path)
			fmt.Fprintf(w, "\\fB%s\\fR%s\n", roffEscape(head), roffEscape(strings.TrimPrefix(form, head)))
		}
		fmt.Fprint(w, ".fi\n.PP\n")
		fmt.Fprintf(w, "%s.\n", roffEscape(capitalize(c.Summary)))
		if len(c.Aliases) > 0 {
			var as []string
			for _, a := range c.Aliases {
				as = append(as, `\fB`+roffEscape(a)+`\fR`)
			}
			fmt.Fprintf(w, "Also run by %s.\n", strings.Join(as, ", "))
		}
		if c.Detail != "" {
			roffParagraphs(w, c.Detail)
		}
		if len(c.Commands) > 0 {
			fmt.Fprintf(w, ".PP\nCommands: %s.\n", roffEscape(strings.Join(names(c.Commands), ", ")))
			if c.Default != "" {
				fmt.Fprintf(w, "Without one, \\fB%s\\fR.\n", roffEscape(c.Default))
			}
		}
		for _, f := range Flags(c.Flags) {
			fmt.Fprintf(w, ".TP\n\\fB%s\\fR", roffEscape(f.Dashed()))
			if f.Value != "" {
				fmt.Fprintf(w, " \\fI%s\\fR", roffEscape(f.Value))
			}
			fmt.Fprintf(w, "\n%s\n", roffEscape(f.UsageWithDefault()))
		}
		for _, v := range c.Env {
			if !p.hasEnv(v.Name) {
				roffVar(w, v)
			}
		}
	})
	if len(p.Env) > 0 {
		fmt.Fprint(w, ".SH ENVIRONMENT\n")
		for _, v := range p.Env {
			roffVar(w, v)
		}
	}
	for _, s := range p.Sections {
		fmt.Fprintf(w, ".SH %s\n", roffQuote(s.Title))
		roffParagraphs(w, s.Text)
	}
}

func (p *Program) hasEnv(name string) bool {
	for _, v := range p.Env {
		if v.Name == name {
			return true
		}
	}
	return false
}

func roffVar(w io.Writer, v Var) {
	fmt.Fprintf(w, ".TP\n.B %s\n%s\n", roffEscape(v.Name), roffEscape(v.Doc))
	if v.Default != "" {
		fmt.Fprintf(w, "Default: \\fB%s\\fR.\n", roffEscape(v.Default))
	}
}

// roffParagraphs writes text's paragraphs (separated by a blank line), each
// after .PP. Lines that begin with two spaces are kept as they are
// (examples).
func roffParagraphs(w io.Writer, text string) {
	for para := range strings.SplitSeq(strings.TrimSpace(text), "\n\n") {
		fmt.Fprint(w, ".PP\n")
		lines := strings.Split(para, "\n")
		if strings.HasPrefix(lines[0], "  ") {
			fmt.Fprint(w, ".RS\n.nf\n")
			for _, l := range lines {
				fmt.Fprintf(w, "%s\n", roffEscape(strings.TrimPrefix(l, "  ")))
			}
			fmt.Fprint(w, ".fi\n.RE\n")
			continue
		}
		for _, l := range lines {
			fmt.Fprintf(w, "%s\n", roffEscape(strings.TrimSpace(l)))
		}
	}
}

// roffEscape makes s safe as roff text: backslashes and dashes escaped
// (\- is the minus sign options are typed with), and a line that would
// begin with a control character protected.
func roffEscape(s string) string {
	s = strings.ReplaceAll(s, `\`, `\e`)
	s = strings.ReplaceAll(s, "-", `\-`)
	if strings.HasPrefix(s, ".") || strings.HasPrefix(s, "'") {
		s = `\&` + s
	}
	return s
}

// roffQuote is s as one argument of a macro.
func roffQuote(s string) string {
	return `"` + strings.ReplaceAll(roffEscape(s), `"`, `\(dq`) + `"`
}
