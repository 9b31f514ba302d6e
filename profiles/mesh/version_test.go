package mesh

import (
	"testing"

	"github.com/precedent-dev/precedent/internal/policy"
	engine "github.com/precedent-dev/precedent/profiles/mesh/engine"
)

// TestVersionsAgree: the versions a PrecedentConfig line of the mesh profile may name are those the
// engine predicts, in the same order (the last the default).
func TestVersionsAgree(t *testing.T) {
	m := Profile{}.KindModel()
	if len(m.Versions) != len(engine.Versions) {
		t.Fatalf("model versions %v, engine versions %v", m.Versions, engine.Versions)
	}
	for i, v := range engine.Versions {
		if m.Versions[i] != string(v) {
			t.Errorf("model versions %v, engine versions %v", m.Versions, engine.Versions)
		}
	}
	policy.Install(map[policy.ProfileName]policy.Model{Name: m}) // as profiles.Install does
	if got := (policy.Kind{Profile: Name}).VersionInForce(); got != string(engine.Kuma30) {
		t.Errorf("default version %q, want %q", got, engine.Kuma30)
	}
}
