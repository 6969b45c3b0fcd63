package logfield_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"go/ast"
	"go/constant"
	"go/importer"
	"go/parser"
	"go/token"
	"go/types"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

const (
	modulePath   = "github.com/bankmirror/bankmirror"
	logfieldPath = modulePath + "/internal/logfield"
	zerologPath  = "github.com/rs/zerolog"
)

// listedPackage is what `go list -json` says of a package.
type listedPackage struct {
	ImportPath      string
	Dir             string
	Export          string
	CompiledGoFiles []string
	Standard        bool
	Module          *struct{ Path string }
}

// Every key of a zerolog field in the module's code (tests aside) is one of
// this package's constants, so that a field has one name in every
// package: a key written as a literal, or as another package's constant,
// fails here with its place. The code is type-checked (imports from the go
// command's export data), so only calls of zerolog's Event and Context
// methods count, not a flag set's Int("name", ...).
func TestLogKeysAreNamedHere(t *testing.T) {
	pkgs := listModule(t)
	exports := map[string]string{}
	for _, p := range pkgs {
		exports[p.ImportPath] = p.Export
	}
	fset := token.NewFileSet()
	imp := importer.ForCompiler(fset, "gc", func(path string) (io.ReadCloser, error) {
		f, ok := exports[path]
		if !ok || f == "" {
			return nil, fmt.Errorf("no export data for %s", path)
		}
		return os.Open(f)
	})
	checked := 0
	for _, p := range pkgs {
		if p.Module == nil || p.Module.Path != modulePath || p.ImportPath == logfieldPath {
			continue
		}
		var files []*ast.File
		for _, name := range p.CompiledGoFiles {
			if !filepath.IsAbs(name) {
				name = filepath.Join(p.Dir, name)
			}
			f, err := parser.ParseFile(fset, name, nil, parser.SkipObjectResolution)
			if err != nil {
				t.Fatal(err)
			}
			files = append(files, f)
		}
		info := &types.Info{Types: map[ast.Expr]types.TypeAndValue{}, Uses: map[*ast.Ident]types.Object{},
			Selections: map[*ast.SelectorExpr]*types.Selection{}}
		conf := types.Config{Importer: imp}
		if _, err := conf.Check(p.ImportPath, fset, files, info); err != nil {
			t.Fatalf("type-check %s: %v", p.ImportPath, err)
		}
		checked++
		for _, f := range files {
			for _, bad := range literalKeys(f, info) {
				t.Errorf("%s: log key %s is not a logfield constant", fset.Position(bad.Pos()), types.ExprString(bad))
			}
		}
	}
	if checked < 10 {
		t.Fatalf("only %d packages checked: the module was not found", checked)
	}
}

// literalKeys returns the keys, in f, of zerolog field calls that are
// constants from neither logfield nor zerolog.
func literalKeys(f *ast.File, info *types.Info) []ast.Expr {
	var bad []ast.Expr
	ast.Inspect(f, func(n ast.Node) bool {
		call, ok := n.(*ast.CallExpr)
		if !ok || len(call.Args) == 0 || !isFieldMethod(info, call) {
			return true
		}
		key := call.Args[0]
		if tv := info.Types[key]; tv.Value == nil || tv.Value.Kind() != constant.String {
			return true // a key computed at run time is someone else's choice
		}
		if c := constOf(info, key); c != nil && c.Pkg() != nil && (c.Pkg().Path() == logfieldPath || c.Pkg().Path() == zerologPath) {
			return true
		}
		bad = append(bad, key)
		return true
	})
	return bad
}

// isFieldMethod reports whether call is a method of zerolog's Event or
// Context whose first parameter is a field's key.
func isFieldMethod(info *types.Info, call *ast.CallExpr) bool {
	sel, ok := call.Fun.(*ast.SelectorExpr)
	if !ok {
		return false
	}
	s := info.Selections[sel]
	if s == nil || s.Kind() != types.MethodVal {
		return false
	}
	sig := s.Obj().Type().(*types.Signature)
	recv := sig.Recv().Type()
	if p, ok := recv.(*types.Pointer); ok {
		recv = p.Elem()
	}
	named, ok := recv.(*types.Named)
	if !ok || named.Obj().Pkg() == nil || named.Obj().Pkg().Path() != zerologPath ||
		(named.Obj().Name() != "Event" && named.Obj().Name() != "Context") {
		return false
	}
	if sig.Params().Len() == 0 {
		return false
	}
	first := sig.Params().At(0)
	return first.Name() == "key" && types.Identical(first.Type(), types.Typ[types.String])
}

// constOf is the named constant expr refers to, or nil (a literal).
func constOf(info *types.Info, expr ast.Expr) *types.Const {
	var id *ast.Ident
	switch e := ast.Unparen(expr).(type) {
	case *ast.Ident:
		id = e
	case *ast.SelectorExpr:
		id = e.Sel
	default:
		return nil
	}
	c, _ := info.Uses[id].(*types.Const)
	return c
}

// listModule lists the module's packages and their dependencies, with
// export data, from the module's root.
func listModule(t *testing.T) []listedPackage {
	t.Helper()
	out, err := exec.Command("go", "list", "-m", "-f", "{{.Dir}}").Output()
	if err != nil {
		t.Fatalf("go list -m: %v", err)
	}
	root := strings.TrimSpace(string(out))
	args := []string{"list", "-e", "-deps", "-export", "-compiled",
		"-json=ImportPath,Dir,Export,CompiledGoFiles,Standard,Module", "./..."}
	if raceEnabled {
		args = slices.Insert(args, 1, "-race") // the test's own build cache
	}
	cmd := exec.Command("go", args...)
	cmd.Dir = root
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err = cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, stderr.String())
	}
	var pkgs []listedPackage
	dec := json.NewDecoder(bytes.NewReader(out))
	for {
		var p listedPackage
		if err := dec.Decode(&p); errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			t.Fatal(err)
		}
		pkgs = append(pkgs, p)
	}
	return pkgs
}
