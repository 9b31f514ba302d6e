package install

import (
	"slices"
	"strings"

	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/precedent-dev/precedent/internal/policy"
	"github.com/precedent-dev/precedent/internal/profile"
	"github.com/precedent-dev/precedent/internal/settings"
	"github.com/precedent-dev/precedent/internal/state"
	"github.com/precedent-dev/precedent/internal/topology"
	"github.com/precedent-dev/precedent/profiles"
)

// The verbs, each one the code uses.
var (
	// read: an informer lists and watches; a cache miss or a controller's first look gets.
	read = []string{"get", "list", "watch"}
	// statusUpdate: the reconciler's Status().Update of a policy it owns.
	statusUpdate = []string{"update"}
	// statusApply: the reconciler's server-side apply of its <Kind>Affected condition on a Gateway.
	statusApply = []string{"patch"}
	// record: client-go's event recorders create an event, and patch it when it repeats (an
	// events.k8s.io series; the leader election's core/v1 events).
	record = []string{"create", "patch"}
)

// ruleSet collects rules, one per API group and verb list, in the order they are first added,
// each resource once: a rule never grants a resource of one group in another.
type ruleSet struct{ rules []rbacv1.PolicyRule }

func (s *ruleSet) add(group, resource string, verbs []string) {
	for i := range s.rules {
		r := &s.rules[i]
		if r.APIGroups[0] == group && slices.Equal(r.Verbs, verbs) {
			if !slices.Contains(r.Resources, resource) {
				r.Resources = append(r.Resources, resource)
			}
			return
		}
	}
	s.rules = append(s.rules, rbacv1.PolicyRule{APIGroups: []string{group}, Resources: []string{resource}, Verbs: slices.Clone(verbs)})
}

func (s *ruleSet) addKind(gk schema.GroupKind, verbs []string) {
	s.add(gk.Group, profile.Plural(gk.Kind), verbs)
}

// always are the profiles in use whatever the settings say: those with kinds of their own, whose
// kinds and what they read are watched from the start. The others are in use once a PrecedentConfig
// names them, with the RBAC of their component (Component) or of the chart's extraKinds.
func always() []profile.Profile {
	var out []profile.Profile
	for _, p := range profiles.All() {
		if len(p.Own()) > 0 {
			out = append(out, p)
		}
	}
	return out
}

// rules are the rules of the ClusterRole precedent, derived from what the code watches and writes
// with the default settings:
//   - read the Gateway API topology and the Namespaces' labels (state.TopologyKinds), the shipped
//     kinds (policy.Builtin), the kinds the registered profiles manage by themselves (Own), the
//     PrecedentConfig, and what the profiles in use from the start read (Reads, and Sources under the
//     default settings: Kuma's Dataplanes, the default Backend kind);
//   - update the status of the shipped kinds whose status Precedent writes (WritesStatus);
//   - apply the <Kind>Affected condition on Gateways' status;
//   - record events.
//
// A Backend kind configured in a PrecedentConfig needs its own read rule (the chart's
// rbac.extraRules), a configured policy kind its component's or the chart's extraKinds rules.
func rules() []rbacv1.PolicyRule {
	var s ruleSet
	for _, gk := range state.TopologyKinds() {
		s.addKind(gk, read)
	}
	for _, k := range policy.Builtin() {
		s.addKind(k.GVK.GroupKind(), read)
	}
	for _, p := range profiles.All() {
		for _, gk := range p.Own() {
			s.addKind(gk, read)
		}
	}
	s.addKind(settings.GVK.GroupKind(), read)
	for _, p := range always() {
		for _, gk := range slices.Concat(p.Reads(), p.Sources(settings.Defaults())) {
			s.addKind(gk, read)
		}
	}
	for _, k := range policy.Builtin() {
		if k.WritesStatus() {
			s.add(k.GVK.Group, profile.Plural(k.GVK.Kind)+"/status", statusUpdate)
		}
	}
	s.add(topology.Group, profile.Plural("Gateway")+"/status", statusApply)
	s.add("", "events", record)
	s.add("events.k8s.io", "events", record)
	return s.rules
}

// leaderElectionRules are the rules of the Role precedent-leader-election in Precedent's namespace:
// the replicas elect a leader through a Lease they get, create on first start and renew by update.
func leaderElectionRules() []rbacv1.PolicyRule {
	return []rbacv1.PolicyRule{{APIGroups: []string{"coordination.k8s.io"}, Resources: []string{"leases"}, Verbs: []string{"get", "create", "update"}}}
}

// metricsAuthRules are the rules of the ClusterRole precedent-metrics-auth: /metrics is served to
// clients the API server authenticates (TokenReview) and authorizes (SubjectAccessReview) on each
// scrape (serve --metrics-secure).
func metricsAuthRules() []rbacv1.PolicyRule {
	return []rbacv1.PolicyRule{
		{APIGroups: []string{"authentication.k8s.io"}, Resources: []string{"tokenreviews"}, Verbs: []string{"create"}},
		{APIGroups: []string{"authorization.k8s.io"}, Resources: []string{"subjectaccessreviews"}, Verbs: []string{"create"}},
	}
}

// metricsReaderRules are the rules of the ClusterRole precedent-metrics-reader, for whatever scrapes
// Precedent's /metrics.
func metricsReaderRules() []rbacv1.PolicyRule {
	return []rbacv1.PolicyRule{{NonResourceURLs: []string{"/metrics"}, Verbs: []string{"get"}}}
}

// componentRules are the rules a component grants for kinds, the kinds it configures with profile
// p: read them and what p reads (Reads), and update the status of those whose status Precedent
// writes (none by default for Kuadrant's and Envoy Gateway's kinds: their controllers own it).
func componentRules(p profile.Kinds, kinds []policy.Kind) []rbacv1.PolicyRule {
	var s ruleSet
	for _, k := range kinds {
		s.addKind(k.GVK.GroupKind(), read)
	}
	for _, gk := range p.Reads() {
		s.addKind(gk, read)
	}
	for _, k := range kinds {
		if k.WritesStatus() {
			s.add(k.GVK.Group, profile.Plural(k.GVK.Kind)+"/status", statusUpdate)
		}
	}
	return s.rules
}

// readRules are the rules that let Precedent read what profile p reads beyond its policies (Reads):
// the chart adds them for each profile its extraKinds name.
func readRules(p profile.Kinds) []rbacv1.PolicyRule {
	var s ruleSet
	for _, gk := range p.Reads() {
		s.addKind(gk, read)
	}
	return s.rules
}

// statusNone maps each configurable profile whose kinds' status is another controller's by default
// (policy.Kind.StatusMode) to the API groups where it is: ["*"] for every group. It is asked of
// the groups Precedent knows (those of the shipped kinds, of the profiles' own kinds and of what
// they read) and of one it cannot know; a kind of another group of a profile whose default
// depends on the group reads as full.
func statusNone() map[policy.ProfileName][]string {
	groups := []string{"status.probe.invalid"}
	addGroup := func(g string) {
		if !slices.Contains(groups, g) {
			groups = append(groups, g)
		}
	}
	for _, k := range policy.Builtin() {
		addGroup(k.GVK.Group)
	}
	for _, p := range profiles.All() {
		for _, gk := range slices.Concat(p.Own(), p.Reads(), p.Sources(settings.Defaults())) {
			addGroup(gk.Group)
		}
	}
	out := map[policy.ProfileName][]string{}
	for _, p := range profiles.All() {
		name := p.Name()
		if name == "" {
			continue
		}
		var none []string
		for _, g := range groups {
			if (policy.Kind{GVK: schema.GroupVersionKind{Group: g}, Profile: name}).StatusMode() == policy.StatusNone {
				none = append(none, g)
			}
		}
		switch {
		case len(none) == len(groups):
			out[name] = []string{"*"}
		case len(none) > 0:
			slices.SortFunc(none, strings.Compare)
			out[name] = none
		}
	}
	return out
}
