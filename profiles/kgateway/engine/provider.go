package engine

import "strings"

// providerPaths are the TrafficPolicy fields that run one Envoy filter per provider (a
// GatewayExtension), with where each names its provider. A Gateway's or listener's provider is
// installed on the listener's filter chain; a route's policy configures only the filter of the
// provider it names, so a route naming another provider leaves the Gateway's on beside its own, and
// only `disable` turns the Gateway's off (pkg/kgateway/extensions2/plugins/trafficpolicy,
// handleExtAuth, handleExtProc, handleJwt, handleGlobalRateLimit; the filter names
// ext_auth/<namespace>/<provider> and global_disable/ext_auth show it in its goldens).
var providerPaths = map[string][]string{
	"extAuth":   {"extensionRef"},
	"extProc":   {"extensionRef"},
	"jwtAuth":   {"extensionRef"},
	"rateLimit": {"global", "extensionRef"},
}

// provider is the provider a field's value names (namespace/name, the namespace defaulting to ns),
// "" when it names none or disables the filter.
func provider(f string, v interface{}, ns string) string {
	path, ok := providerPaths[f]
	if !ok {
		return ""
	}
	m, _ := v.(map[string]interface{})
	if _, off := m["disable"]; off {
		return ""
	}
	for _, p := range path {
		m, _ = m[p].(map[string]interface{})
	}
	name := str(m, "name")
	if name == "" {
		return ""
	}
	if n := str(m, "namespace"); n != "" {
		ns = n
	}
	return ns + "/" + name
}

// besideGateway reports whether the Gateway level's value v of field f stays on beside the routes'
// value cur: both name providers, and different ones; or the field is headerModifiers, whose
// Gateway and route configurations Envoy's header mutation filter applies both
// (pkg/kgateway/extensions2/plugins/trafficpolicy/header_modifiers.go handleHeaderModifiers writes
// a per-route configuration at each level; the filter's most_specific_header_mutations_wins is
// left unset, so every level's mutations run).
func besideGateway(f string, cur, v Value, l Level) bool {
	if !strings.HasPrefix(l.Owner, "gateway ") || len(cur.Sources) == 0 || len(v.Sources) == 0 {
		return false
	}
	if f == "headerModifiers" {
		return true
	}
	a := provider(f, cur.Value, cur.Sources[0].Namespace)
	b := provider(f, v.Value, v.Sources[0].Namespace)
	return a != "" && b != "" && a != b
}
