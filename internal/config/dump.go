package config

import "fmt"

// Row is a line of the config command: a variable, or a person, and the
// value in effect.
type Row struct{ Name, Value string }

// Dump lists each variable of Settings with its value in effect, then each
// person of people with where their token came from. A default computed
// at start is shown as computed (the log format from whether stderr is a
// terminal), one that turns something off says so. Secrets show only
// where they came from, never their value; a _FILE variant is folded into
// its secret.
func Dump(c Config, stderrTerminal bool, people []Person) []Row {
	var out []Row
	for i := range Settings {
		s := &Settings[i]
		out = append(out, Row{s.Var(), s.value(&c, stderrTerminal)})
	}
	for _, p := range people {
		out = append(out, Row{"person " + p.Name, "(token from " + p.Source + ", redacted)"})
	}
	return out
}

// value is the setting's value in effect, as config shows it.
func (s *Setting) value(c *Config, terminal bool) string {
	if s.show != nil {
		if v, ok := s.show(c, terminal); ok {
			return v
		}
	}
	if s.Secret {
		return s.secretLine(s.secretSource(c))
	}
	f := fieldValue(c, s.Name)
	if s.Unset != "" && f.IsZero() {
		return "(not set: " + s.Unset + ")"
	}
	if !f.IsValid() {
		return ""
	}
	return fmt.Sprint(f.Interface())
}

// secretLine is how config shows a secret that came from from: never its
// value.
func (s *Setting) secretLine(from string) string {
	switch from {
	case "":
		if s.Unset != "" {
			return "(not set: " + s.Unset + ")"
		}
		return "(not set)"
	case s.Var():
		return "(set, redacted)"
	}
	return "(from " + from + ", redacted)"
}
