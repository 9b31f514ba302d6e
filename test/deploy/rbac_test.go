package deploy

import (
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestZLeastPrivilege runs last (tests run in file order, and this name sorts after the
// scenarios' files): it reads from the audit log every request Precedent's ServiceAccount made
// during the suite, fails on any 403, and reports the rules the manifests grant that were never
// used.
func TestZLeastPrivilege(t *testing.T) {
	if cl.Manifests == nil {
		t.Fatal("no manifests were installed")
	}
	used, err := ReadAudit(cl.AuditLog, serviceAccountUser)
	if err != nil {
		t.Fatal(err)
	}
	if len(used) == 0 {
		t.Fatalf("the audit log %s has no request of %s", cl.AuditLog, serviceAccountUser)
	}
	var granted []Rule
	var sources []string
	seen := map[Rule]bool{}
	for _, r := range cl.Installed {
		g, err := r.GrantedTo(cl.SA.Namespace, cl.SA.Name)
		if err != nil {
			t.Fatal(err)
		}
		for _, rule := range g {
			if !seen[rule] {
				seen[rule] = true
				granted = append(granted, rule)
			}
		}
		sources = append(sources, r.Source)
	}
	usedRule := map[Rule]bool{}
	var lines []string
	for _, r := range used {
		usedRule[r.Rule] = true
		lines = append(lines, r.String()+" ×"+strconv.Itoa(r.Count))
		for _, at := range r.Forbidden {
			if w, ok := cl.restartedAt(at); ok {
				// The restarted API server answers before its RBAC informers have synced.
				t.Logf("%s forbidden at %s, %s after kube-apiserver came back (its authorizer's cache was not synced yet)", r.String(), at.Format("15:04:05.000"), at.Sub(w).Round(time.Millisecond))
				continue
			}
			t.Errorf("%s was forbidden to %s at %s", r.String(), serviceAccountUser, at.Format("15:04:05.000"))
		}
	}
	t.Logf("requests of %s during the suite:\n  %s", serviceAccountUser, strings.Join(lines, "\n  "))
	var unused []string
	for _, g := range granted {
		if !usedRule[g] && !(g.Verb == "*" || g.Resource == "*") {
			unused = append(unused, g.String())
		}
	}
	t.Logf("granted by %s but never used in the suite (%d of %d):\n  %s", strings.Join(sources, " or "), len(unused), len(granted), strings.Join(unused, "\n  "))
}
