package engine

import (
	"fmt"
	"testing"

	"github.com/precedent-dev/precedent/internal/topology"
	"github.com/precedent-dev/precedent/test/gen"
)

var sizes = []gen.Size{
	{Gateways: 100, Routes: 1000, Policies: 500},
	{Gateways: 1000, Routes: 10000, Policies: 5000},
}

// egWorld is gen's world (the one effective's BenchmarkProjectWrite uses for Kuadrant) with
// SecurityPolicies in place of its policies: JWT, CORS and authorization on each policy's Gateway,
// extAuth merged strategically on each route policy's route.
func egWorld(b *testing.B, sz gen.Size) (Input, []*Policy) {
	w := gen.Generate(sz)
	var ps []*Policy
	for _, p := range w.Policies {
		ps = append(ps, egPolicy(b, p.Targets[0].Kind, p.Ref.Namespace, p.Ref.Name, p.Targets[0].Name, 0))
	}
	return Input{Graph: topology.Build(w.Input)}, ps
}

func egPolicy(b testing.TB, kind, ns, name, target string, version int) *Policy {
	spec := obj{"targetRefs": refs(ref(kind, target))}
	if kind == "Gateway" {
		spec["jwt"] = obj{"providers": list{obj{"name": "corp", "remoteJWKS": obj{"uri": "https://login.example.com/jwks"}}}}
		spec["cors"] = obj{"allowOrigins": list{fmt.Sprintf("https://v%d.example.com", version)}}
		spec["authorization"] = obj{"defaultAction": "Deny", "rules": list{obj{"action": "Allow", "principal": obj{"clientCIDRs": list{"10.0.0.0/8"}}}}}
	} else {
		spec["mergeType"] = "StrategicMerge"
		spec["extAuth"] = obj{"http": obj{"backendRefs": list{obj{"name": "authz", "port": int64(9000 + version)}}}}
	}
	return pol(b, SecurityPolicy, ns, name, 0, spec)
}

// BenchmarkProjectWrite projects an update of a Gateway-level and of a route-level SecurityPolicy
// (warnings and combined checks included) at two sizes 10x apart; compare with effective's
// BenchmarkProjectWrite kuadrant-gateway and kuadrant-route cases in the same world.
func BenchmarkProjectWrite(b *testing.B) {
	for _, sz := range sizes {
		in, ps := egWorld(b, sz)
		s := snapshot(in, ps...)
		gwOld, routeOld := ps[0], ps[len(ps)-1]
		for _, c := range []struct {
			name     string
			old, new *Policy
		}{
			{"gateway", gwOld, egPolicy(b, "Gateway", gwOld.Ref.Namespace, gwOld.Ref.Name, gwOld.Targets[0].Name, 1)},
			{"route", routeOld, egPolicy(b, "HTTPRoute", routeOld.Ref.Namespace, routeOld.Ref.Name, routeOld.Targets[0].Name, 1)},
		} {
			b.Run(fmt.Sprintf("%s/routes=%d", c.name, sz.Routes), func(b *testing.B) {
				b.ReportAllocs()
				for i := 0; i < b.N; i++ {
					pr := s.Project(Write{Old: c.old, New: c.new})
					_ = pr.Warnings()
					_ = CheckProjection(pr)
				}
			})
		}
	}
}
