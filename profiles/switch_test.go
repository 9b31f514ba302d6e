package profiles

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"strings"
	"testing"
)

// TestNoProfileSwitchOutsideProfiles: no code outside the profile packages (profiles/..., and the
// models table internal/policy/model.go) compares or switches on a kind's profile; front doors ask the
// registered profiles, the engine asks a kind's model.
func TestNoProfileSwitchOutsideProfiles(t *testing.T) {
	root := filepath.Join("..")
	allowed := func(path string) bool {
		rel, _ := filepath.Rel(root, path)
		rel = filepath.ToSlash(rel)
		return strings.HasPrefix(rel, "profiles/") || strings.HasPrefix(rel, "internal/profile/") || rel == "internal/policy/model.go" || strings.HasPrefix(rel, "test/")
	}
	fset := token.NewFileSet()
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == "bin" || strings.HasPrefix(d.Name(), ".")) && path != root {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") || allowed(path) {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, 0)
		if err != nil {
			return err
		}
		ast.Inspect(f, func(n ast.Node) bool {
			var x ast.Expr
			switch n := n.(type) {
			case *ast.BinaryExpr:
				if n.Op != token.EQL && n.Op != token.NEQ {
					return true
				}
				if isProfileName(n.X) || isProfileName(n.Y) {
					x = n
				}
			case *ast.SwitchStmt:
				if n.Tag != nil && isProfileSelector(n.Tag) {
					x = n.Tag
				}
			}
			if x != nil {
				t.Errorf("%s: a switch on a kind's profile outside the profile packages", fset.Position(x.Pos()))
			}
			return true
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// isProfileSelector reports whether e reads a kind's profile: x.Profile.
func isProfileSelector(e ast.Expr) bool {
	s, ok := e.(*ast.SelectorExpr)
	return ok && s.Sel.Name == "Profile"
}

// isProfileName reports whether e names one profile: policy.ProfileXxx (or ProfileXxx in package
// policy).
func isProfileName(e ast.Expr) bool {
	name := ""
	switch e := e.(type) {
	case *ast.SelectorExpr:
		name = e.Sel.Name
	case *ast.Ident:
		name = e.Name
	}
	return strings.HasPrefix(name, "Profile") && len(name) > len("Profile") && name != "Profiles"
}
