package envoygateway

import (
	"fmt"
	"os"
	"sort"
	"strings"

	"sigs.k8s.io/yaml"

	"github.com/precedent-dev/precedent/internal/effective"
	"github.com/precedent-dev/precedent/internal/policy"
	"github.com/precedent-dev/precedent/internal/profile"
	eg "github.com/precedent-dev/precedent/profiles/envoygateway"
)

// xdsRoute is one route of an HTTP or TCP listener in a case's xdsIR, with the BackendTrafficPolicies
// Envoy Gateway records on it (metadata.policies: backendtrafficpolicy.go
// appendTrafficPolicyMetadata, the only kind it records there).
type xdsRoute struct {
	key      effective.ItemKey // listener and rule always set
	policies []string          // ns/name, sorted
}

// irListenerRoutes is an HTTP or TCP listener of an xdsIR with its routes.
type irListenerRoutes struct {
	Name   string `json:"name"`
	Routes []struct {
		Name     string `json:"name"`
		Metadata struct {
			Kind, Name, Namespace, SectionName string
			Policies                           []struct{ Kind, Name, Namespace string }
		} `json:"metadata"`
	} `json:"routes"`
}

// readXDS reads the routes of the HTTP and TCP listeners of a case's .out.yaml.
func readXDS(file string) ([]xdsRoute, error) {
	raw, err := os.ReadFile(file)
	if err != nil {
		return nil, err
	}
	var doc struct {
		XDSIR map[string]struct {
			HTTP []irListenerRoutes `json:"http"`
			TCP  []irListenerRoutes `json:"tcp"`
		} `json:"xdsIR"`
	}
	if err := yaml.Unmarshal(raw, &doc); err != nil {
		return nil, fmt.Errorf("reading %s: %w", file, err)
	}
	var out []xdsRoute
	for _, ir := range doc.XDSIR {
		for _, l := range append(ir.HTTP, ir.TCP...) {
			gw, listener, ok := irListener(l.Name)
			if !ok {
				continue
			}
			for _, r := range l.Routes {
				md := r.Metadata
				if md.Kind != "HTTPRoute" && md.Kind != "GRPCRoute" && md.Kind != "TCPRoute" && md.Kind != "TLSRoute" {
					continue
				}
				x := xdsRoute{key: effective.ItemKey{Gateway: gw, Listener: listener, Route: md.Namespace + "/" + md.Name, Rule: ruleOf(md.SectionName, r.Name)}}
				for _, p := range md.Policies {
					if p.Kind == "BackendTrafficPolicy" {
						x.policies = append(x.policies, p.Namespace+"/"+p.Name)
					}
				}
				sort.Strings(x.policies)
				out = append(out, x)
			}
		}
	}
	sort.Slice(out, func(i, j int) bool { return reachName(out[i].key) < reachName(out[j].key) })
	return out, nil
}

// irListener splits an IR listener name (helpers.go irListenerName: "ns/gateway/listener", or
// "ns/gateway/ns/listenerset/listener") into the Gateway and the listener as `effective` shows it.
func irListener(name string) (gw, listener string, ok bool) {
	parts := strings.Split(name, "/")
	switch len(parts) {
	case 3:
		return parts[0] + "/" + parts[1], parts[2], true
	case 5:
		return parts[0] + "/" + parts[1], "ListenerSet " + parts[2] + "/" + parts[3] + "#" + parts[4], true
	}
	return "", "", false
}

// ruleOf is the rule of an IR route: its sectionName, else "rule-<index>" from its name
// ("httproute/ns/name/rule/<index>/match/…"), as the topology names unnamed rules.
func ruleOf(section, name string) string {
	if section != "" {
		return section
	}
	parts := strings.Split(name, "/")
	for i := 0; i+1 < len(parts); i++ {
		if parts[i] == "rule" {
			return "rule-" + parts[i+1]
		}
	}
	return ""
}

func reachName(k effective.ItemKey) string {
	route := k.Route
	if k.Rule != "" {
		route += "#" + k.Rule
	}
	return "route " + route + " via " + k.Gateway + " " + k.Listener
}

// reachUnits compares, on every HTTP and TCP route of the case's xdsIR, the BackendTrafficPolicies
// Envoy Gateway records (on an HTTP route the one that holds it, merged or not; on a TCP route all
// on its path) with those Precedent predicts (Profile.Holders).
func reachUnits(c corpusCase, in *profile.Offline) ([]unit, error) {
	if len(c.XDS) == 0 {
		return nil, nil
	}
	k, ok := kindByName(in, "BackendTrafficPolicy")
	if !ok {
		return nil, fmt.Errorf("BackendTrafficPolicy is not registered")
	}
	holders := eg.Profile{}.Holders(in, k)
	var units []unit
	for _, x := range c.XDS {
		got := lookupReach(holders, x.key)
		if len(got) == 0 && len(x.policies) == 0 {
			continue
		}
		units = append(units, unit{Case: c.Name, Name: "BackendTrafficPolicy @ " + reachName(x.key) + ": reach", Family: "reach",
			EG: setString(x.policies), Precedent: setString(got)})
	}
	return units, nil
}

// lookupReach finds the holder of an IR route: the listener and the rule are keyed only where a
// policy splits them.
func lookupReach(holders map[effective.ItemKey][]string, k effective.ItemKey) []string {
	for _, listener := range []string{k.Listener, ""} {
		for _, rule := range []string{k.Rule, ""} {
			if hs, ok := holders[effective.ItemKey{Gateway: k.Gateway, Listener: listener, Route: k.Route, Rule: rule}]; ok {
				return hs
			}
		}
	}
	return nil
}

func setString(s []string) string {
	if len(s) == 0 {
		return "none"
	}
	return strings.Join(s, ", ")
}

func kindByName(in *profile.Offline, kind string) (k policy.Kind, ok bool) {
	for _, k := range in.Registry.Kinds() {
		if k.GVK.Kind == kind && k.GVK.Group == "gateway.envoyproxy.io" {
			return k, true
		}
	}
	return k, false
}

// classifyReach gives a new reach difference the kind and reason of the listed acceptance
// difference of a policy it names (a policy Envoy Gateway marks Invalid or Conflicted for a reason
// listed there holds no route), else "Precedent wrong".
func classifyReach(u unit, listed map[string]Expectation) (string, string) {
	var names []string
	for _, side := range []string{u.Precedent, u.EG} {
		if side != "none" {
			names = append(names, strings.Split(side, ", ")...)
		}
	}
	keys := make([]string, 0, len(listed))
	for k := range listed {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, n := range names {
		prefix := u.Case + " | BackendTrafficPolicy " + n + " @ "
		for _, k := range keys {
			if e := listed[k]; strings.HasPrefix(k, prefix) && strings.HasSuffix(k, ": accepted") {
				return e.Kind, "the route's policy " + n + " is not accepted as predicted: " + e.Reason
			}
		}
	}
	return wrong, fmt.Sprintf("Envoy Gateway records %s on the route, Precedent predicts %s holds it", u.EG, u.Precedent)
}
