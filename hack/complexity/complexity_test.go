package complexity

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// limit is the highest cyclomatic complexity a function may have.
const limit = 25

// cyclomatic is gocyclo's count for one function: 1, plus one per if, for, range, case (not
// default), select case (not default), && and ||, func literals within it included.
func cyclomatic(fn *ast.FuncDecl) int {
	n := 1
	ast.Inspect(fn, func(node ast.Node) bool {
		switch x := node.(type) {
		case *ast.IfStmt, *ast.ForStmt, *ast.RangeStmt:
			n++
		case *ast.CaseClause:
			if x.List != nil {
				n++
			}
		case *ast.CommClause:
			if x.Comm != nil {
				n++
			}
		case *ast.BinaryExpr:
			if x.Op == token.LAND || x.Op == token.LOR {
				n++
			}
		}
		return true
	})
	return n
}

// TestComplexityLimit walks every Go file of the repository (testdata and hidden directories aside)
// and fails for each function over the limit, most complex first.
func TestComplexityLimit(t *testing.T) {
	root := filepath.Join("..", "..")
	fset := token.NewFileSet()
	var over []string
	files := 0
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		name := d.Name()
		if d.IsDir() {
			if path != root && (name == "testdata" || name == "vendor" || name == "bin" || strings.HasPrefix(name, ".")) {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(name, ".go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		files++
		for _, decl := range f.Decls {
			if fn, ok := decl.(*ast.FuncDecl); ok && fn.Body != nil {
				if c := cyclomatic(fn); c > limit {
					over = append(over, fmt.Sprintf("%4d %s %s", c, fset.Position(fn.Pos()), fn.Name.Name))
				}
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if files < 100 {
		t.Fatalf("read %d Go files: not the repository?", files)
	}
	sort.Sort(sort.Reverse(sort.StringSlice(over)))
	for _, o := range over {
		t.Errorf("cyclomatic complexity over %d: %s (split it into named steps)", limit, o)
	}
}
