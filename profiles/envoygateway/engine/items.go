package engine

import (
	"sort"

	"github.com/precedent-dev/precedent/internal/effective"
)

// Items renders the effective policy of kind on every path a policy reaches, in the CLI contract's
// shape (effective.Item), so `precedent effective -o json` prints it unchanged. The listener is shown
// when a policy of the kind targets a listener of that Gateway or ListenerSet (always for
// ClientTrafficPolicy), the rule when one targets a rule of that route; paths that differ only in
// hidden sections share one item.
func (s *Snapshot) Items(kind string) []effective.Item {
	seen := map[effective.ItemKey]bool{}
	var out []effective.Item
	for i, n := 0, s.PathCount(kind); i < n; i++ {
		r, ok := s.Compute(kind, i)
		if !ok {
			continue
		}
		k := s.KeyOf(kind, r.Path)
		if seen[k] {
			continue
		}
		seen[k] = true
		out = append(out, effective.Item{
			Kind: kind, Gateway: k.Gateway, Listener: k.Listener, Route: k.Route, Rule: k.Rule,
			Spec: r.Spec, Sources: r.Sources,
		})
	}
	effective.SortItems(out)
	return out
}

// Holders gives, per displayed key of the paths of kind, the policies (ns/name, sorted) that Envoy
// Gateway records on the xDS route (backendtrafficpolicy.go appendTrafficPolicyMetadata): on an
// HTTP route the one that holds the path, the most specific one reaching it (a route or rule
// policy merged into a broader one holds it too); on a TCP route every BackendTrafficPolicy on
// the path, each filling what the narrower ones left unset. A policy Envoy Gateway marks Invalid
// holds an HTTP path with nothing and is recorded nowhere: it is left out.
func (s *Snapshot) Holders(kind string) map[effective.ItemKey][]string {
	out := map[effective.ItemKey][]string{}
	for i, n := 0, s.PathCount(kind); i < n; i++ {
		r, ok := s.Compute(kind, i)
		if !ok || r.Holder.Invalid {
			continue
		}
		hs := []string{r.Holder.Ref.String()}
		if kind == BackendTrafficPolicy && (r.Path.RouteKind == "TCPRoute" || r.Path.RouteKind == "UDPRoute") {
			hs = s.chainHolders(kind, r.Path)
		}
		out[s.KeyOf(kind, r.Path)] = hs
	}
	return out
}

// chainHolders are the holders of every scope of path p, sorted.
func (s *Snapshot) chainHolders(kind string, p Path) []string {
	var out []string
	at := s.base(kind)
	for _, sc := range p.Chain() {
		if h := first(at(sc)); h != nil && !h.Invalid {
			out = append(out, h.Ref.String())
		}
	}
	sort.Strings(out)
	return out
}

// KeyOf is the displayed key of a path. A ListenerSet listener shows as `ListenerSet ns/name#listener`.
func (s *Snapshot) KeyOf(kind string, p Path) effective.ItemKey {
	k := effective.ItemKey{Gateway: p.Gateway.String()}
	owner := Scope{Kind: "Gateway", Namespace: p.Gateway.Namespace, Name: p.Gateway.Name}
	listener := p.Listener
	if p.ListenerSet.Name != "" {
		owner = Scope{Kind: "ListenerSet", Namespace: p.ListenerSet.Namespace, Name: p.ListenerSet.Name}
		listener = Scope{Kind: "ListenerSet", Namespace: p.ListenerSet.Namespace, Name: p.ListenerSet.Name, Section: p.Listener}.String()
	}
	if p.RouteKind == "" || s.split[kind].get(owner) > 0 || p.ListenerSet.Name != "" {
		k.Listener = listener
	}
	if p.RouteKind != "" {
		k.Route = p.Route.String()
		if s.split[kind].get(Scope{Kind: p.RouteKind, Namespace: p.Route.Namespace, Name: p.Route.Name}) > 0 {
			k.Rule = p.Rule
		}
	}
	return k
}
