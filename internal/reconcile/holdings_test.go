package reconcile

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/precedent-dev/precedent/internal/settings"
)

// TestShortcutsDecideAsTheWholeWalk checks, for every policy of every RFC example, that the
// reconciler's shortcuts give what the whole walk gives: the status computed with the counts of
// held rules (shared by all policies of a snapshot, as the reconciler shares them, and asked twice,
// so that the counts are read back too) equals Compute's, and isEnforced equals enforced's verdict.
func TestShortcutsDecideAsTheWholeWalk(t *testing.T) {
	dirs, err := os.ReadDir("../../config/samples/rfc")
	if err != nil {
		t.Fatal(err)
	}
	s := settings.Defaults()
	checked := 0
	for _, d := range dirs {
		for _, kind := range []string{"AuthPolicy", "RateLimitPolicy", "TrafficPolicy"} {
			snap := load(t, kind, filepath.Join("../../config/samples/rfc", d.Name()))
			h := &holdings{}
			for round := 0; round < 2; round++ {
				for _, p := range snap.Policies() {
					invalid := Invalid(snap, p, s)
					want := Compute(snap, p, invalid, s)
					if diff := cmp.Diff(want, compute(snap, p, invalid, s, h, nil)); diff != "" {
						t.Errorf("%s %s %s: status with the counts of held rules (-whole walk +counts):\n%s", d.Name(), kind, p.Ref, diff)
					}
					e, _ := enforced(snap, p, nil)
					if got := isEnforced(snap, p); got != e.ok {
						t.Errorf("%s %s %s: isEnforced %t, enforced says %t (%s)", d.Name(), kind, p.Ref, got, e.ok, e.reason)
					}
					checked++
				}
			}
		}
	}
	if checked == 0 {
		t.Fatal("no policy in the RFC examples")
	}
	t.Logf("%d policy statuses compared", checked)
}
