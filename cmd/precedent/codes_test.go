package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/precedent-dev/precedent/internal/warning"
)

// codesPage is the generated reference table of every code, seen from this package, which links
// every package that registers codes.
var codesPage = filepath.Join("..", "..", "docs", "codes.md")

// TestCodesTable: docs/codes.md is the table of the registered codes (make generate rewrites it),
// and every code has a title, a meaning and a fix.
func TestCodesTable(t *testing.T) {
	for _, c := range warning.Codes() {
		if c.Title == "" || c.Meaning == "" || c.Fix == "" {
			t.Errorf("code %s lacks a title, meaning or fix: %+v", c.ID, c)
		}
	}
	got := warning.Table()
	if *update {
		if err := os.MkdirAll(filepath.Dir(codesPage), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(codesPage, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(codesPage)
	if err != nil {
		t.Fatalf("%v (run make generate)", err)
	}
	if diff := cmp.Diff(string(want), string(got)); diff != "" {
		t.Errorf("docs/codes.md is stale (run make generate) (-file +generated):\n%s", diff)
	}
}
