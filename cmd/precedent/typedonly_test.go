package main

import (
	"context"
	"slices"
	"sort"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/precedent-dev/precedent/internal/settings"
)

// TestTypedOnly: validate's input keeps the Gateway API objects its review reads typed only in their
// typed form only (for the review's source), and keeps whole the policies and the topology objects
// a profile reviews (kgateway reviews HTTPRoutes and Gateways when its kinds are managed).
func TestTypedOnly(t *testing.T) {
	for _, tc := range []struct {
		name   string
		dir    string
		config string              // --config, "" for none
		whole  map[string][]string // kind → the top-level fields of its objects kept decoded
		typed  []string            // the kinds kept typed only
	}{
		{"routes and Gateways read typed are kept typed only", "../../config/samples/rfc/a1", "", map[string][]string{
			"AuthPolicy": {"apiVersion", "kind", "metadata", "spec"},
		}, []string{"Gateway", "HTTPRoute"}},
		{"routes and Gateways kgateway reviews stay whole", "../../config/samples/kgateway", "../../config/kgateway/precedentconfig.yaml", map[string][]string{
			"Gateway":       {"apiVersion", "kind", "metadata", "spec"},
			"HTTPRoute":     {"apiVersion", "kind", "metadata", "spec"},
			"TrafficPolicy": {"apiVersion", "kind", "metadata", "spec"},
		}, []string{"GatewayClass"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var override *settings.Settings
			if tc.config != "" {
				s, err := readConfigFile(tc.config)
				if err != nil {
					t.Fatal(err)
				}
				override = &s
			}
			o, err := (&sources{files: []string{tc.dir}, review: true}).loadFiles(context.Background(), override)
			if err != nil {
				t.Fatal(err)
			}
			got := map[string][]string{}
			for _, u := range o.objects {
				var fields []string
				for k := range u.Object {
					fields = append(fields, k)
				}
				sort.Strings(fields)
				got[u.GetKind()] = fields // the objects of a kind agree; the last one stands for them
			}
			if diff := cmp.Diff(tc.whole, got); diff != "" {
				t.Errorf("top-level fields by kind (-want +got):\n%s", diff)
			}
			var typed []string
			for _, ty := range o.typed {
				if !slices.Contains(typed, ty.GVK.Kind) {
					typed = append(typed, ty.GVK.Kind)
				}
			}
			sort.Strings(typed)
			if diff := cmp.Diff(tc.typed, typed); diff != "" {
				t.Errorf("kinds kept typed only (-want +got):\n%s", diff)
			}
		})
	}
}
