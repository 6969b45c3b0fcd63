package ui

import (
	"bytes"
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"errors"
	"fmt"
	"html/template"
	"io/fs"
	"mime"
	"net/http"
	"path"
	"slices"
	"strings"
	"time"

	"github.com/bankmirror/bankmirror/internal/logfield"
	"github.com/bankmirror/bankmirror/internal/store"
)

//go:embed templates/*.html
var templateFS embed.FS

//go:embed static
var staticFS embed.FS

// layoutTemplate wraps every page; the others are pages, each rendered by
// a route (routes) or by the handler itself (sharedTemplates).
const layoutTemplate = "layout"

// parsePages parses each template of fsys's templates/ that a page uses,
// inside the layout. A template no page uses, or a page whose template is
// missing, is an error: at start, not when the page is first asked for.
func parsePages(fsys fs.FS, used []string, static func(string) string) (map[string]*template.Template, error) {
	files, err := fs.Glob(fsys, "templates/*.html")
	if err != nil {
		return nil, fmt.Errorf("dashboard templates: %w", err)
	}
	for _, f := range files {
		name := strings.TrimSuffix(path.Base(f), ".html")
		if name != layoutTemplate && !slices.Contains(used, name) {
			return nil, fmt.Errorf("dashboard template %s.html is rendered by no page: add its route", name)
		}
	}
	funcs := template.FuncMap{"money": aud, "moneyIn": moneyIn, "monthName": monthName, "shortMonth": shortMonth,
		"plural": plural, "static": static, "short": short, "long": long, "text": clean,
		"int64": func(n int) int64 { return int64(n) }}
	out := map[string]*template.Template{}
	for _, name := range used {
		if !slices.Contains(files, "templates/"+name+".html") {
			return nil, fmt.Errorf("dashboard template %s.html is missing", name)
		}
		t, err := template.New(layoutTemplate+".html").Funcs(funcs).ParseFS(fsys, "templates/"+layoutTemplate+".html", "templates/"+name+".html")
		if err != nil {
			return nil, fmt.Errorf("dashboard template %s: %w", name, err)
		}
		out[name] = t
	}
	return out, nil
}

// view is what the layout renders: the session's base path (every link
// of a page is relative to it), the page's title, the person switch (a
// household of several: the household's pages and each person's) and the
// page's data.
type view struct {
	Base, Title string
	Person      string
	Switch      []switchLink
	D           any
}

// switchLink is a choice of the person switch: the same page, for the
// household or for one person.
type switchLink struct {
	Label, Href string
	Current     bool
}

// personSwitch is the switch of a session's page at w: none for a
// household of one.
func personSwitch(w where) []switchLink {
	if len(w.People) < 2 {
		return nil
	}
	out := []switchLink{{Label: "Household", Href: w.Root + strings.TrimPrefix(w.Path, "/"), Current: w.Person == ""}}
	for _, p := range w.People {
		out = append(out, switchLink{Label: personLabel(p), Href: w.Root + personPrefix + p.Name + w.Path, Current: w.Person == p.Name})
	}
	return out
}

// render writes page name with data, whole or (on a template error) not
// at all, with the time the server took in its Server-Timing header
// (`bankmirror bench ui` reads it; a browser's developer tools show it).
func (h *Handler) render(w http.ResponseWriter, r *http.Request, status int, name, title string, data any) {
	var buf bytes.Buffer
	at := whereOf(r.Context())
	if err := h.pages[name].Execute(&buf, view{Base: at.base(), Title: title, Person: at.Person, Switch: personSwitch(at), D: data}); err != nil {
		h.log.Error().Err(err).Str(logfield.Page, name).Msg("dashboard: render failed")
		http.Error(w, "internal error", http.StatusInternalServerError)
		return
	}
	if start, ok := r.Context().Value(startKey{}).(time.Time); ok {
		w.Header().Set("Server-Timing", fmt.Sprintf("app;dur=%.3f", float64(time.Since(start).Microseconds())/1000))
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.WriteHeader(status)
	_, _ = w.Write(buf.Bytes())
}

type errorData struct{ Message string }

// fail answers a request that could not be served: 400 for bad input, 404
// for what the mirror does not have, 500 (logged) otherwise.
func (h *Handler) fail(w http.ResponseWriter, r *http.Request, err error) {
	status, msg := http.StatusInternalServerError, "The mirror could not be read; see the log."
	var bad badInput
	switch {
	case errors.As(err, &bad):
		status, msg = http.StatusBadRequest, bad.Error()
	case errors.Is(err, store.ErrNotFound):
		status, msg = http.StatusNotFound, "The mirror has no such transaction."
	case errors.Is(err, errNoPerson):
		status, msg = http.StatusNotFound, "The household has no such person."
	case errors.Is(err, errNoReceipt):
		status, msg = http.StatusNotFound, "No receipt of this transaction is kept where the dashboard reads them (BANKMIRROR_ATTACHMENTS_DIR)."
	case r.Context().Err() != nil:
		return
	default:
		h.log.Error().Err(err).Str(logfield.Page, r.URL.Path).Msg("dashboard: page failed")
	}
	h.render(w, r, status, "error", http.StatusText(status), errorData{Message: msg})
}

// badInput is a request parameter the page refuses.
type badInput struct{ msg string }

func (b badInput) Error() string { return b.msg }

// staticPrefix is where the assets are served: staticPrefix + HASH/NAME,
// HASH from the content, so that a browser may keep each for a year and
// a new build's asset is a new address.
const staticPrefix = "/static/"

// staticFiles are the embedded assets by their content-hashed paths.
type staticFiles struct {
	byPath map[string]staticFile
	byName map[string]string
}

type staticFile struct {
	name string
	body []byte
}

func newStaticFiles(fsys fs.FS, dir string) (*staticFiles, error) {
	s := &staticFiles{byPath: map[string]staticFile{}, byName: map[string]string{}}
	err := fs.WalkDir(fsys, dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		body, err := fs.ReadFile(fsys, p)
		if err != nil {
			return err
		}
		name := strings.TrimPrefix(p, dir+"/")
		sum := sha256.Sum256(body)
		at := staticPrefix + hex.EncodeToString(sum[:6]) + "/" + name
		s.byPath[at] = staticFile{name: name, body: body}
		s.byName[name] = at
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("dashboard assets: %w", err)
	}
	return s, nil
}

// path is the address of the asset name ("" when there is none).
func (s *staticFiles) path(name string) string { return s.byName[name] }

// ServeHTTP serves an asset at its hashed path, cached for a year.
func (s *staticFiles) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	f, ok := s.byPath[r.URL.Path]
	if !ok {
		http.NotFound(w, r)
		return
	}
	w.Header().Set("Cache-Control", "public, max-age=31536000, immutable")
	if ct := mime.TypeByExtension(path.Ext(f.name)); ct != "" {
		w.Header().Set("Content-Type", ct)
	}
	http.ServeContent(w, r, f.name, time.Time{}, bytes.NewReader(f.body))
}
