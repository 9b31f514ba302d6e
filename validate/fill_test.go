package validate

import (
	"fmt"
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
