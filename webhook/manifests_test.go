package webhook

import (
	"flag"
	"os"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	rbacv1 "k8s.io/api/rbac/v1"
	"sigs.k8s.io/yaml"

	"github.com/precedent-dev/precedent/internal/policy"
	"github.com/precedent-dev/precedent/internal/profile"
	"github.com/precedent-dev/precedent/internal/settings"
	"github.com/precedent-dev/precedent/profiles"
)

var update = flag.Bool("update", false, "rewrite the generated files (make generate)")

const manifestsFile = "../config/webhook/manifests.yaml"

func TestManifests(t *testing.T) {
	got, err := Manifests()
	if err != nil {
		t.Fatal(err)
	}
	if *update {
		if err := os.WriteFile(manifestsFile, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(manifestsFile)
	if err != nil {
		t.Fatalf("%v (run with -update to create it)", err)
	}
	if diff := cmp.Diff(string(want), string(got)); diff != "" {
		t.Errorf("%s is stale (run go test ./webhook -run TestManifests -update) (-file +generated):\n%s", manifestsFile, diff)
	}
}

const chartResourcesFile = "../charts/precedent/templates/_profiles.tpl"

// TestChartResources: the chart's list of the resources the webhooks see is what the profiles
// register (make generate rewrites it).
func TestChartResources(t *testing.T) {
	got := string(ChartResources())
	if *update {
		if err := os.WriteFile(chartResourcesFile, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(chartResourcesFile)
	if err != nil {
		t.Fatalf("%v (run make generate)", err)
	}
	if diff := cmp.Diff(string(want), got); diff != "" {
		t.Errorf("%s is stale (run make generate) (-file +generated):\n%s", chartResourcesFile, diff)
	}
}

func TestPlural(t *testing.T) {
	for kind, want := range map[string]string{
		"AuthPolicy": "authpolicies", "MeshTimeout": "meshtimeouts", "Gateway": "gateways", "Mesh": "meshes",
	} {
		if got := Plural(kind); got != want {
			t.Errorf("Plural(%s) = %s, want %s", kind, got, want)
		}
	}
}

// TestRBACCoversProfiles: the shipped ClusterRole (config/rbac/role.yaml, which the chart and the
// deploy suite agree with) lets the ServiceAccount watch what the registered profiles and the shipped
// kinds need, and update the status of the kinds whose status Precedent writes.
func TestRBACCoversProfiles(t *testing.T) {
	raw, err := os.ReadFile("../config/rbac/role.yaml")
	if err != nil {
		t.Fatal(err)
	}
	granted := map[string]bool{} // "group/resource verb"
	for _, doc := range strings.Split(string(raw), "\n---") {
		var role rbacv1.ClusterRole
		if err := yaml.Unmarshal([]byte(doc), &role); err != nil {
			t.Fatal(err)
		}
		if role.Kind != "ClusterRole" || role.Name != "precedent" {
			continue
		}
		for _, r := range role.Rules {
			for _, g := range r.APIGroups {
				for _, res := range r.Resources {
					for _, v := range r.Verbs {
						granted[g+"/"+res+" "+v] = true
					}
				}
			}
		}
	}
	need := func(group, resource string, verbs ...string) {
		for _, v := range verbs {
			if !granted[group+"/"+resource+" "+v] {
				t.Errorf("config/rbac/role.yaml: the ClusterRole precedent lacks %s on %s/%s", v, group, resource)
			}
		}
	}
	for _, k := range policy.Builtin() {
		need(k.GVK.Group, profile.Plural(k.GVK.Kind), "get", "list", "watch")
		if k.WritesStatus() {
			need(k.GVK.Group, profile.Plural(k.GVK.Kind)+"/status", "update")
		}
	}
	// The profiles with kinds of their own are always in use: their kinds and what they read are
	// watched from the start (the others' from their first use, with the RBAC of their component,
	// e.g. config/envoy-gateway).
	for _, p := range profiles.All() {
		if len(p.Own()) == 0 {
			continue
		}
		for _, gk := range p.Sources(settings.Defaults()) {
			need(gk.Group, profile.Plural(gk.Kind), "get", "list", "watch")
		}
	}
}
