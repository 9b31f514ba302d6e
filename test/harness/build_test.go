package harness

import (
	"os"
	"regexp"
	"testing"
)

// TestBuildTagsAreTheMakefiles keeps BuildTags equal to the Makefile's GO_TAGS, so the suites run
// the binary `make build` makes.
func TestBuildTagsAreTheMakefiles(t *testing.T) {
	mk, err := os.ReadFile("../../Makefile")
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(?m)^GO_TAGS :?= *(.*?) *$`).FindSubmatch(mk)
	if m == nil {
		t.Fatal("the Makefile sets no GO_TAGS")
	}
	if got := string(m[1]); got != BuildTags {
		t.Errorf("the Makefile's GO_TAGS is %q, harness.BuildTags %q", got, BuildTags)
	}
}
