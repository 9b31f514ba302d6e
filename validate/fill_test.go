package validate

import (
	"fmt"
	"slices"
	"strings"
	"testing"
)

// TestFillIsSprintf: fill renders the one-verb warning formats exactly as fmt.Sprintf does.
func TestFillIsSprintf(t *testing.T) {
	for _, msg := range []string{"rule a on %s is overridden", "rule 100%% on %s", "spec.defaults.when does not apply on %s: 5%% over", "%s"} {
		for _, place := range []string{"route a/b", "3 paths (a/b, a/c, and 1 more)", "50%"} {
			if got, want := fill(msg, place), fmt.Sprintf(msg, place); got != want {
				t.Errorf("fill(%q, %q) = %q, want %q", msg, place, got, want)
			}
		}
	}
}

// TestLimit: duplicates go (in short and long lists alike), long warnings are cut at 240 bytes, and
// past n the last kept line counts the rest.
func TestLimit(t *testing.T) {
	long := strings.Repeat("x", 300)
	got := Limit([]string{"a", "b", "a", long, "c"}, 3)
	want := []string{"a", "b", "and 2 more warnings"}
	if !slices.Equal(got, want) {
		t.Errorf("Limit = %q, want %q", got, want)
	}
	if got := Limit([]string{long}, 0); len(got) != 1 || len(got[0]) != 240 || !strings.HasSuffix(got[0], "...") {
		t.Errorf("a long warning is not cut to 240 bytes ending in ...: %d bytes", len(got[0]))
	}
	var many []string
	for i := 0; i < 40; i++ {
		many = append(many, fmt.Sprint(i%35)) // 35 distinct, 5 repeated
	}
	if got := Limit(many, 0); len(got) != 35 {
		t.Errorf("Limit of 40 warnings with 35 distinct kept %d", len(got))
	}
}
