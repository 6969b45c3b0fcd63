package main

import (
	"errors"
)

// member is a person of the household and their token.
type member struct{ Name, Token string }

// defaultPerson names the person of a single token (BANKMIRROR_PERSON unset).
const defaultPerson = "me"

// members are the people configured, in order: the single token
// (BANKMIRROR_TOKEN, its _FILE, the credential), named by BANKMIRROR_PERSON
// (default me), a household of one.
func (a *app) members() ([]member, error) {
	if err := a.cfg.requireToken(); err != nil {
		return nil, err
	}
	name := a.environ[envPrefix+"PERSON"]
	if name == "" {
		name = defaultPerson
	}
	if !validPersonName(name) {
		return nil, &configError{envPrefix + "PERSON", errors.New("a person's name is 1 to 32 characters of a-z, 0-9, _ and -")}
	}
	return []member{{Name: name, Token: a.cfg.Token}}, nil
}

// validPersonName reports whether name is a person's name: [a-z0-9_-],
// 1 to 32 characters.
func validPersonName(name string) bool {
	if len(name) == 0 || len(name) > 32 {
		return false
	}
	for i := range len(name) {
		c := name[i]
		if (c < 'a' || c > 'z') && (c < '0' || c > '9') && c != '_' && c != '-' {
			return false
		}
	}
	return true
}
