package ui

import (
	"strings"
	"testing"
	"testing/fstest"
)

// A template no page renders, or a page whose template is missing, stops
// the dashboard at start.
func TestTemplatesCheckedAtStart(t *testing.T) {
	fsys := fstest.MapFS{
		"templates/layout.html":   {Data: []byte(`{{template "content" .}}`)},
		"templates/overview.html": {Data: []byte(`{{define "content"}}o{{end}}`)},
		"templates/orphan.html":   {Data: []byte(`{{define "content"}}x{{end}}`)},
	}
	static := func(string) string { return "" }
	if _, err := parsePages(fsys, []string{"overview"}, static); err == nil || !strings.Contains(err.Error(), "orphan.html is rendered by no page") {
		t.Errorf("a template no page uses: %v, want an error naming it", err)
	}
	if _, err := parsePages(fsys, []string{"overview", "orphan", "missing"}, static); err == nil || !strings.Contains(err.Error(), "missing.html is missing") {
		t.Errorf("a page without its template: %v, want an error naming it", err)
	}
	if _, err := parsePages(fsys, []string{"overview", "orphan"}, static); err != nil {
		t.Errorf("every template used: %v", err)
	}
	// The dashboard's own templates and routes agree.
	used := append([]string(nil), sharedTemplates...)
	for _, rt := range routes {
		if rt.template != "" {
			used = append(used, rt.template)
		}
	}
	if _, err := parsePages(templateFS, used, static); err != nil {
		t.Error(err)
	}
}
