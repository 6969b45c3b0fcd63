package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"runtime/debug"
	"strings"
	"testing"
)

const (
	mitText = `MIT License

Copyright (c) 2020 Someone

Permission is hereby granted, free of charge, to any person obtaining a copy
of this software and associated documentation files (the "Software"), to deal
in the Software without restriction.
`
	bsd3Text = `Copyright (c) 2009 The Go Authors. All rights reserved.

Redistribution and use in source and binary forms, with or without
modification, are permitted provided that the following conditions are met:
   * Neither the name of Google LLC nor the names of its
contributors may be used to endorse or promote products derived from
this software without specific prior written permission.
`
	bsd2Text = `Copyright (c) 2013 Someone

Redistribution and use in source and binary forms, with or without
modification, are permitted provided that the following conditions are met:
1. Redistributions of source code must retain the above copyright notice.
`
	iscText = `Copyright (c) 2015 Someone

Permission to use, copy, modify, and/or distribute this software for any
purpose with or without fee is hereby granted.
`
)

// writeFile creates dir/name (and dir) holding text.
func writeFile(t *testing.T, dir, name, text string) {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestModulesReadsLicenceFilesFromTheModuleCache(t *testing.T) {
	cache := t.TempDir()
	// Capital letters are escaped in the cache's directory names.
	writeFile(t, filepath.Join(cache, "github.com/!burnt!sushi/toml@v1.4.0"), "COPYING", mitText)
	writeFile(t, filepath.Join(cache, "example.com/apache@v1.2.3"), "LICENSE.txt", "Apache License\nVersion 2.0, January 2004\n")
	writeFile(t, filepath.Join(cache, "example.com/apache@v1.2.3"), "NOTICE", "Copyright 2015 The Authors\n")
	writeFile(t, filepath.Join(cache, "example.com/apache@v1.2.3"), "license.go", "package apache\n")
	writeFile(t, filepath.Join(cache, "example.com/apache@v1.2.3"), "README.md", "not a licence\n")
	writeFile(t, filepath.Join(cache, "example.com/fork@v2.0.0"), "LICENSE", bsd3Text)

	info := &debug.BuildInfo{Deps: []*debug.Module{
		{Path: "github.com/BurntSushi/toml", Version: "v1.4.0"},
		{Path: "example.com/apache", Version: "v1.2.3"},
		// A replaced module is compiled from its replacement.
		{Path: "example.com/original", Version: "v1.0.0", Replace: &debug.Module{Path: "example.com/fork", Version: "v2.0.0"}},
	}}
	mods, err := modules(info, cache)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, m := range mods {
		var names []string
		for _, f := range m.Files {
			names = append(names, f.Name)
		}
		got = append(got, m.Path+" "+m.Version+" "+strings.Join(names, ",")+" "+moduleLicense(m))
	}
	want := []string{
		"example.com/apache v1.2.3 LICENSE.txt,NOTICE Apache-2.0",
		"example.com/fork v2.0.0 LICENSE BSD-3-Clause",
		"github.com/BurntSushi/toml v1.4.0 COPYING MIT",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("modules:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

func TestModuleWithoutLicenceFileIsAnError(t *testing.T) {
	cache := t.TempDir()
	writeFile(t, filepath.Join(cache, "example.com/nolicence@v0.1.0"), "README.md", "hello\n")
	info := &debug.BuildInfo{Deps: []*debug.Module{{Path: "example.com/nolicence", Version: "v0.1.0"}}}
	_, err := modules(info, cache)
	if err == nil || !strings.Contains(err.Error(), "example.com/nolicence v0.1.0") || !strings.Contains(err.Error(), "no licence file") {
		t.Fatalf("err = %v, want one naming the module and the missing licence", err)
	}
}

func TestModuleMissingFromTheCacheIsAnError(t *testing.T) {
	info := &debug.BuildInfo{Deps: []*debug.Module{{Path: "example.com/absent", Version: "v1.0.0"}}}
	_, err := modules(info, t.TempDir())
	if err == nil || !strings.Contains(err.Error(), "example.com/absent") || !strings.Contains(err.Error(), "go mod download") {
		t.Fatalf("err = %v, want one naming the module and the fix", err)
	}
}

func TestModuleReplacedByADirectoryIsAnError(t *testing.T) {
	info := &debug.BuildInfo{Deps: []*debug.Module{{Path: "example.com/a", Version: "v1.0.0", Replace: &debug.Module{Path: "../a"}}}}
	if _, err := modules(info, t.TempDir()); err == nil || !strings.Contains(err.Error(), "replaced by a directory") {
		t.Fatalf("err = %v", err)
	}
}

func TestIdentify(t *testing.T) {
	apache, err := os.ReadFile("../../../LICENSE")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ name, text, want string }{
		{"the repository's LICENSE", string(apache), "Apache-2.0"},
		{"MIT", mitText, "MIT"},
		{"MIT with lines wrapped elsewhere", strings.ReplaceAll(mitText, "obtaining a copy\nof", "obtaining\na copy of"), "MIT"},
		{"BSD-3-Clause", bsd3Text, "BSD-3-Clause"},
		{"BSD-2-Clause", bsd2Text, "BSD-2-Clause"},
		{"ISC", iscText, "ISC"},
		{"unknown", "Copyright 2020 Someone. All rights reserved.\n", ""},
	} {
		if got := identify(c.text); got != c.want {
			t.Errorf("%s: identify = %q, want %q", c.name, got, c.want)
		}
	}
}

func TestWriteListsEveryModuleAndEachTextOnce(t *testing.T) {
	mods := []module{
		{Path: "example.com/a", Version: "v1.0.0", Files: []licenseFile{{Name: "LICENSE", Text: bsd3Text}}},
		{Path: "github.com/mattn/go-sqlite3", Version: "v1.14.53", Files: []licenseFile{{Name: "LICENSE", Text: mitText}}},
		// The same text with Windows line ends is the same text.
		{Path: "example.com/b", Version: "v0.0.0-20191010083416-a7dc8b61c822", Files: []licenseFile{{Name: "LICENSE", Text: strings.ReplaceAll(bsd3Text, "\n", "\r\n")}}},
		{Path: "example.com/odd", Version: "v3.0.0", Files: []licenseFile{{Name: "COPYING", Text: "Do what you like.\n"}}},
	}
	var out bytes.Buffer
	if err := write(&out, "go1.26.8", bsd3Text, mods); err != nil {
		t.Fatal(err)
	}
	s := out.String()
	for _, want := range []string{
		"License: Apache-2.0",
		"/usr/share/common-licenses/Apache-2.0",
		"built with Go 1.26.8",
		"Go standard library ",
		"example.com/a v1.0.0 ",
		"example.com/b v0.0.0-20191010083416-a7dc8b61c822  BSD-3-Clause",
		"github.com/mattn/go-sqlite3 v1.14.53 ",
		"example.com/odd v3.0.0 ",
		"SQLite (its amalgamation, sqlite3-binding.c), which is in the public domain",
		"Go standard library go1.26.8: LICENSE\nexample.com/a v1.0.0: LICENSE\nexample.com/b v0.0.0-20191010083416-a7dc8b61c822: LICENSE\n",
		"example.com/odd v3.0.0: COPYING\n\nDo what you like.\n",
		"github.com/mattn/go-sqlite3 v1.14.53: LICENSE\n\n" + mitText,
	} {
		if !strings.Contains(s, want) {
			t.Errorf("output lacks %q:\n%s", want, s)
		}
	}
	if n := strings.Count(s, "Neither the name of Google LLC"); n != 1 {
		t.Errorf("the shared BSD text appears %d times, want once", n)
	}
	if strings.Contains(s, "\r") {
		t.Error("output has carriage returns")
	}
	for _, line := range strings.Split(s, "\n") {
		if strings.HasPrefix(line, "  example.com/odd") && !strings.HasSuffix(line, "see its text") {
			t.Errorf("unknown licence listed as %q, want it to point at its text", line)
		}
	}
}

// TestRunReadsABinary runs the tool on the test binary itself: it has build
// information (no dependencies), and Go's licence comes from GOROOT.
func TestRunReadsABinary(t *testing.T) {
	goroot, err := exec.Command("go", "env", "GOROOT").Output()
	if err != nil {
		t.Fatal(err)
	}
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if err := run(&out, self, t.TempDir(), strings.TrimSpace(string(goroot))); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "\n  Go standard library  BSD-3-Clause\n") {
		t.Errorf("Go's licence is not named BSD-3-Clause:\n%s", out.String())
	}
	if err := run(&out, filepath.Join(t.TempDir(), "absent"), t.TempDir(), "/"); err == nil {
		t.Error("a missing binary gave no error")
	}
}
