package profile

import (
	"os/exec"
	"strings"
	"testing"
)

// TestSeamLinksNoClientLibraries: the seam (and so a profile's unit tests) links neither client-go
// nor controller-runtime, and no CLI library of its own: the only path to cobra is the Kubernetes
// CEL library's (k8s.io/apiserver's CEL → k8s.io/component-base), which the engine's `when`
// conditions need. Nor does it link any policy model (profiles/...): the models plug into it, never
// the other way round.
func TestSeamLinksNoClientLibraries(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", "-f", "{{.ImportPath}} {{join .Imports \" \"}}", ".").CombinedOutput()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, out)
	}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		pkg, imports, _ := strings.Cut(line, " ")
		for _, forbidden := range []string{"k8s.io/client-go/", "sigs.k8s.io/controller-runtime", "github.com/precedent-dev/precedent/profiles"} {
			if strings.HasPrefix(pkg, forbidden) {
				t.Errorf("the seam links %s", pkg)
			}
		}
		for _, imp := range strings.Fields(imports) {
			if strings.HasPrefix(imp, "github.com/spf13/cobra") && !strings.HasPrefix(pkg, "k8s.io/component-base/") && !strings.HasPrefix(pkg, "github.com/spf13/") {
				t.Errorf("%s imports %s", pkg, imp)
			}
		}
	}
}
