package main

import (
	"bytes"
	"debug/buildinfo"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"runtime/debug"
	"slices"
	"strings"
	"unicode"
)

// module is one module compiled into the binary and its licence files.
type module struct {
	Path, Version string
	Files         []licenseFile
}

type licenseFile struct {
	Name string // the file's name in the module, e.g. LICENSE
	Text string
}

// licenseFileName matches the names of the files that carry a module's
// licence terms at its root: LICENSE, LICENCE.md, COPYING, NOTICE (Apache's
// NOTICE must travel with the binary), UNLICENSE, LICENSE-MIT and the like;
// isLicenseFile leaves out Go source files such as license.go.
var licenseFileName = regexp.MustCompile(`(?i)^(licen[cs]e|copying|notice|unlicen[cs]e)(\.(md|txt|rst)|[-_][a-z0-9.-]+)?$`)

func isLicenseFile(name string) bool {
	return licenseFileName.MatchString(name) && !strings.HasSuffix(strings.ToLower(name), ".go")
}

// notes are facts about a module's contents that its licence file does not
// state: code from elsewhere that the module compiles in.
var notes = map[string]string{
	"github.com/mattn/go-sqlite3": "This module compiles in SQLite (its amalgamation, sqlite3-binding.c), which is in the public domain.",
}

// modules lists the modules of info (the binary's dependencies, with their
// replacements applied) and reads their licence files from the module cache
// modcache. A module without a licence file is an error: its terms would be
// missing from the list.
func modules(info *debug.BuildInfo, modcache string) ([]module, error) {
	var mods []module
	for _, dep := range info.Deps {
		m := dep
		if m.Replace != nil {
			m = m.Replace
		}
		if m.Version == "" {
			return nil, fmt.Errorf("module %s is replaced by a directory (%s): only modules from the module cache can be listed", dep.Path, m.Path)
		}
		dir, err := moduleDir(modcache, m.Path, m.Version)
		if err != nil {
			return nil, err
		}
		files, err := licenseFiles(dir)
		if err != nil {
			return nil, fmt.Errorf("module %s %s: %w", m.Path, m.Version, err)
		}
		mods = append(mods, module{Path: m.Path, Version: m.Version, Files: files})
	}
	slices.SortFunc(mods, func(a, b module) int { return strings.Compare(a.Path, b.Path) })
	return mods, nil
}

// moduleDir is where the go command keeps a module's files: its path and
// version with each capital letter written as '!' and the letter in lower
// case (the module cache's escaping, so that it works on case-insensitive
// file systems).
func moduleDir(modcache, path, version string) (string, error) {
	p, err := escape(path)
	if err != nil {
		return "", err
	}
	v, err := escape(version)
	if err != nil {
		return "", err
	}
	return filepath.Join(modcache, filepath.FromSlash(p)+"@"+v), nil
}

func escape(s string) (string, error) {
	var b strings.Builder
	for _, r := range s {
		switch {
		case r == '!' || r > unicode.MaxASCII:
			return "", fmt.Errorf("module path or version %q: not allowed in a module cache path", s)
		case 'A' <= r && r <= 'Z':
			b.WriteByte('!')
			b.WriteRune(unicode.ToLower(r))
		default:
			b.WriteRune(r)
		}
	}
	return b.String(), nil
}

// licenseFiles reads the licence files at the root of dir, sorted by name.
func licenseFiles(dir string) ([]licenseFile, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("read module directory: %w (is the module in the cache? go mod download)", err)
	}
	var files []licenseFile
	for _, e := range entries {
		if !e.Type().IsRegular() || !isLicenseFile(e.Name()) {
			continue
		}
		text, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			return nil, fmt.Errorf("read licence: %w", err)
		}
		files = append(files, licenseFile{Name: e.Name(), Text: string(text)})
	}
	if len(files) == 0 {
		return nil, fmt.Errorf("no licence file (LICENSE, COPYING, ...) in %s", dir)
	}
	return files, nil
}

// licenseSignatures name a licence by phrases its standard text contains,
// checked in order; the first whose phrases are all present wins.
var licenseSignatures = []struct {
	id      string
	phrases []string
}{
	{"Apache-2.0", []string{"apache license", "version 2.0"}},
	{"MPL-2.0", []string{"mozilla public license", "2.0"}},
	{"ISC", []string{"permission to use, copy, modify, and/or distribute this software for any purpose"}},
	{"MIT", []string{"permission is hereby granted, free of charge, to any person obtaining a copy"}},
	{"BSD-3-Clause", []string{"redistribution and use in source and binary forms", "neither the name"}},
	{"BSD-2-Clause", []string{"redistribution and use in source and binary forms"}},
	{"Unlicense", []string{"this is free and unencumbered software released into the public domain"}},
}

// identify names the licence of text (an SPDX identifier), or "" when it is
// none of the known ones: the full text is listed either way.
func identify(text string) string {
	t := strings.Join(strings.Fields(strings.ToLower(text)), " ")
	for _, s := range licenseSignatures {
		if !slices.ContainsFunc(s.phrases, func(p string) bool { return !strings.Contains(t, p) }) {
			return s.id
		}
	}
	return ""
}

// moduleLicense names a module's licence from its licence files (a NOTICE
// names none): "MIT", "Apache-2.0", or "see its text" when unknown.
func moduleLicense(m module) string {
	var ids []string
	for _, f := range m.Files {
		if strings.HasPrefix(strings.ToLower(f.Name), "notice") {
			continue
		}
		id := identify(f.Text)
		if id == "" {
			id = "see its text"
		}
		if !slices.Contains(ids, id) {
			ids = append(ids, id)
		}
	}
	if len(ids) == 0 {
		return "see its text"
	}
	return strings.Join(ids, " AND ")
}

// header describes the package and bankmirror's own licence.
const header = `bankmirror: a local SQLite mirror of your bank data
Source: https://github.com/bankmirror/bankmirror

Copyright: the bankmirror authors
License: Apache-2.0
 On Debian systems the full text of the Apache License, Version 2.0 is in
 /usr/share/common-licenses/Apache-2.0; it is also the file LICENSE in the
 source and in the release tarballs.

`

// write renders the copyright file: bankmirror's licence, then every module
// compiled into the binary (as go version -m lists them) with its licence,
// then the text of each licence file once, naming the modules that carry it.
func write(w io.Writer, goVersion, goLicense string, mods []module) error {
	var b bytes.Buffer
	b.WriteString(header)
	fmt.Fprintf(&b, "The program /usr/bin/bankmirror is built with Go %s and compiles in the Go\n", strings.TrimPrefix(goVersion, "go"))
	b.WriteString("standard library and runtime and these modules (go version -m /usr/bin/bankmirror):\n\n")
	width := len("Go standard library")
	for _, m := range mods {
		width = max(width, len(m.Path)+1+len(m.Version))
	}
	goID := identify(goLicense)
	if goID == "" {
		goID = "see its text"
	}
	fmt.Fprintf(&b, "  %-*s  %s\n", width, "Go standard library", goID)
	for _, m := range mods {
		fmt.Fprintf(&b, "  %-*s  %s\n", width, m.Path+" "+m.Version, moduleLicense(m))
	}
	for _, m := range mods {
		if n, ok := notes[m.Path]; ok {
			fmt.Fprintf(&b, "\n%s: %s\n", m.Path, n)
		}
	}

	// Each distinct text once, in the order first met, with its modules.
	type text struct {
		body  string
		names []string
	}
	var texts []*text
	add := func(body, name string) {
		body = strings.TrimRight(strings.ReplaceAll(body, "\r\n", "\n"), "\n \t") + "\n"
		for _, t := range texts {
			if t.body == body {
				t.names = append(t.names, name)
				return
			}
		}
		texts = append(texts, &text{body: body, names: []string{name}})
	}
	add(goLicense, "Go standard library "+goVersion+": LICENSE")
	for _, m := range mods {
		for _, f := range m.Files {
			add(f.Text, m.Path+" "+m.Version+": "+f.Name)
		}
	}
	for _, t := range texts {
		b.WriteString("\n" + strings.Repeat("-", 78) + "\n")
		for _, n := range t.names {
			b.WriteString(n + "\n")
		}
		b.WriteString("\n" + t.body)
	}
	_, err := w.Write(b.Bytes())
	return err
}

// run writes the copyright file of binary to w.
func run(w io.Writer, binary, modcache, goroot string) error {
	if binary == "" || modcache == "" || goroot == "" {
		return errors.New("need -binary, -modcache and -goroot")
	}
	info, err := buildinfo.ReadFile(binary)
	if err != nil {
		return fmt.Errorf("read build information: %w", err)
	}
	goLicense, err := os.ReadFile(filepath.Join(goroot, "LICENSE"))
	if err != nil {
		return fmt.Errorf("go's licence: %w", err)
	}
	mods, err := modules(info, modcache)
	if err != nil {
		return err
	}
	return write(w, info.GoVersion, string(goLicense), mods)
}
