package main

import (
	"errors"

	"github.com/bankmirror/bankmirror/internal/config"
)

// members are the people configured, by name, each with their token: the
// household's tokens (BANKMIRROR_TOKENS_DIR, the credentials token.NAME),
// or the single token as a household of one (config.People).
func (a *app) members() ([]config.Person, error) {
	people, err := config.People(a.environ)
	if err != nil {
		return nil, asConfigError(err)
	}
	if len(people) == 0 {
		return nil, &configError{Var: envPrefix + "TOKEN", Err: errors.New("not set: set BANKMIRROR_TOKEN or BANKMIRROR_TOKEN_FILE to your personal access token, or BANKMIRROR_TOKENS_DIR to a household's tokens")}
	}
	return people, nil
}
