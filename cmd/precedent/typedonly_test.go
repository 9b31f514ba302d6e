package main

import (
	"context"
	"sort"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/precedent-dev/precedent/internal/settings"
)

// TestTypedOnly: validate's input keeps the Gateway API objects its review reads typed only with
// their apiVersion, kind and metadata, and keeps whole the policies and the topology objects a
// profile reviews (kgateway reviews HTTPRoutes and Gateways when its kinds are managed).
func TestTypedOnly(t *testing.T) {
	for _, tc := range []struct {
		name   string
		dir    string
		config string              // --config, "" for none
		want   map[string][]string // kind → the top-level fields of its objects
	}{
		{"routes and Gateways read typed keep their names only", "../../config/samples/rfc/a1", "", map[string][]string{
			"Gateway":    {"apiVersion", "kind", "metadata"},
			"HTTPRoute":  {"apiVersion", "kind", "metadata"},
			"AuthPolicy": {"apiVersion", "kind", "metadata", "spec"},
		}},
		{"routes and Gateways kgateway reviews stay whole", "../../config/samples/kgateway", "../../config/kgateway/precedentconfig.yaml", map[string][]string{
			"GatewayClass":  {"apiVersion", "kind", "metadata"},
			"Gateway":       {"apiVersion", "kind", "metadata", "spec"},
			"HTTPRoute":     {"apiVersion", "kind", "metadata", "spec"},
			"TrafficPolicy": {"apiVersion", "kind", "metadata", "spec"},
		}},
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
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("top-level fields by kind (-want +got):\n%s", diff)
			}
		})
	}
}
