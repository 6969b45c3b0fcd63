package main

import (
	"net"
	"net/url"

	"github.com/bankmirror/bankmirror/internal/config"
	"github.com/bankmirror/bankmirror/internal/logfield"
)

// simulatedBank reports whether cfg's bank is a simulated one: the
// simulator's control URL is in environ (as `bankmirror simulator`
// prints it), or the API is on this machine's loopback.
func simulatedBank(cfg config.Config, environ map[string]string) bool {
	if environ[config.Prefix+"SIM_CONTROL_URL"] != "" {
		return true
	}
	u, err := url.Parse(cfg.APIURL)
	if err != nil {
		return false
	}
	host := u.Hostname()
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// withoutSystemRules is cfg for a daemon against a simulated bank (the
// demo, serve against the simulator): the rules file is read only when
// given (BANKMIRROR_RULES_FILE), never the system's default
// (/etc/bankmirror/rules.toml), whose channels would send the simulated
// bank's alerts to a real mail box or webhook; nor the feeds file's, which
// would put the simulated bank into the household's real budget. It
// reports whether it left a default out.
func withoutSystemRules(cfg config.Config) (config.Config, bool) {
	off := false
	if !cfg.FeedsFileSet && cfg.FeedsFile != "" {
		// The system's feeds are the household's real budget.
		cfg.FeedsFile, off = "", true
	}
	if cfg.RulesFileSet || cfg.RulesFile == "" {
		return cfg, off
	}
	cfg.RulesFile = ""
	return cfg, true
}

// daemonConfig is the configuration serve runs with: against a simulated
// bank, without the system's rules file unless one is given.
func (a *app) daemonConfig() config.Config {
	if !simulatedBank(a.cfg, a.environ) {
		return a.cfg
	}
	cfg, off := withoutSystemRules(a.cfg)
	if off {
		a.log.Info().Str(logfield.Path, a.cfg.RulesFile).Msg("the bank is a simulated one: the system's rules and feeds files are not read (set BANKMIRROR_RULES_FILE or BANKMIRROR_FEEDS_FILE to use one)")
	}
	return cfg
}
