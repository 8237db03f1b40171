package fsbox_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestErrorKindsHaveOneSource: an error kind is spelled once, as a constant in schema/errors.go;
// every other file of ours builds and compares kinds through those constants. A string literal in
// a `Kind: "…"` field or in a comparison with a `.Kind` outside the schema package fails here, so
// a misspelt kind (which would compile as a plain string) cannot reach a client.
func TestErrorKindsHaveOneSource(t *testing.T) {
	fset := token.NewFileSet()
	checked := 0
	err := filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			switch d.Name() {
			case "node_modules", ".venv", ".git", "testdata", "schema", "sdks":
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") || strings.Contains(path, "_gen") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, 0)
		if err != nil {
			return err
		}
		checked++
		ast.Inspect(f, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.KeyValueExpr:
				if id, ok := n.Key.(*ast.Ident); ok && id.Name == "Kind" && isStringLit(n.Value) {
					t.Errorf("%s: Kind: %s spells an error kind as a string; use the schema.Kind… constant", fset.Position(n.Pos()), lit(n.Value))
				}
			case *ast.BinaryExpr:
				if n.Op != token.EQL && n.Op != token.NEQ {
					return true
				}
				if isKindField(n.X) && isStringLit(n.Y) || isKindField(n.Y) && isStringLit(n.X) {
					t.Errorf("%s: compares .Kind with a string; use the schema.Kind… constant", fset.Position(n.Pos()))
				}
			}
			return true
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if checked == 0 {
		t.Fatal("no Go files checked")
	}
}

// isStringLit reports whether e is a non-empty string literal ("" means "no kind", not a kind).
func isStringLit(e ast.Expr) bool {
	b, ok := e.(*ast.BasicLit)
	return ok && b.Kind == token.STRING && b.Value != `""`
}

func isKindField(e ast.Expr) bool {
	s, ok := e.(*ast.SelectorExpr)
	return ok && s.Sel.Name == "Kind"
}

func lit(e ast.Expr) string {
	s, _ := strconv.Unquote(e.(*ast.BasicLit).Value)
	return strconv.Quote(s)
}
