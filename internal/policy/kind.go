package policy

import (
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"

	"k8s.io/apimachinery/pkg/runtime/schema"
)

// ProfileName names a profile: a family of policy kinds that share one model (profile.Profile is
// the interface a profile implements, each profile package's Profile its implementation).
type ProfileName string

const (
	// ProfileDefaultsOverrides is the Kuadrant RFC model: bare rules, or defaults/overrides blocks of
	// named rules with strategy, when and unset.
	ProfileDefaultsOverrides ProfileName = "defaults-overrides"
	// ProfileGEP713 is the GEP-713 model: default/override configuration objects merged field by field.
	ProfileGEP713 ProfileName = "gep713"
	// ProfileKuadrant is Kuadrant's own kinds (kuadrant.io RateLimitPolicy, AuthPolicy,
	// TokenRateLimitPolicy), folded the way Kuadrant's operator folds them (profiles/kuadrant/engine).
	ProfileKuadrant ProfileName = "kuadrant"
)

// Status modes of a managed kind: what the reconciler writes for it.
const (
	// StatusFull writes conditions, Precedent's status.ancestors entries and the
	// <group>/<Kind>Affected condition on targets.
	StatusFull = "full"
	// StatusNone writes nothing on the policies of the kind or their targets (another controller,
	// such as Kuadrant's operator, owns their status).
	StatusNone = "none"
)

// Group is the API group of the shipped policy kinds.
const Group = "policy.precedent.dev"

// GatewayGroup is the Gateway API group.
const GatewayGroup = "gateway.networking.k8s.io"

// Kind describes one managed policy kind: where its fields are and which targets it accepts.
type Kind struct {
	GVK     schema.GroupVersionKind `json:"gvk"`
	Profile ProfileName             `json:"profile"`
	// RulesField is the name of the bare rules field (e.g. "rules", "limits"), also used inside the
	// defaults and overrides blocks. For ProfileGEP713 it is unused.
	RulesField string `json:"rulesField,omitempty"`
	// Sections, when set, means the rules field is a map of sections, each a map of named rules;
	// the rule id is "<section>.<name>". Empty: the rules field is a flat map and the id is the name.
	Sections []string `json:"sections,omitempty"`
	// ConditionField is the name of the D/O condition field in a block ("when"), or "" when the kind
	// has none (Kuadrant's own when is a request-time predicate, not a D/O condition).
	ConditionField string `json:"conditionField,omitempty"`
	// TargetKinds are the group/kinds a policy of this kind may target.
	TargetKinds []schema.GroupKind `json:"targetKinds,omitempty"`
	// Status is StatusFull or StatusNone; empty means the profile's default (StatusFull for the
	// profiles with a status writer but kuadrant; StatusNone for kuadrant and for the profiles
	// without one, which may ask only StatusNone: see Model.Status).
	Status string `json:"status,omitempty"`
	// Defaults are values the mutating webhook gives top-level spec fields a write leaves out, where
	// the kind's model allows it (Model.Defaults), e.g. Envoy Gateway's {mergeType: StrategicMerge}.
	Defaults map[string]string `json:"defaults,omitempty"`
	// ControllerNames are the GatewayClass controllerNames whose Gateways the kind's policies apply
	// to; empty means the model's (Model.ControllerNames). "*" means any controller.
	ControllerNames []string `json:"controllerNames,omitempty"`
	// Version is the controller version whose behaviour the kind's profile predicts, one of its
	// model's Versions; empty means the newest.
	Version string `json:"version,omitempty"`
}

// VersionInForce is the controller version predicted for the kind: Version, else the newest its
// model knows ("" for a model without versions, such as Precedent's own).
func (k Kind) VersionInForce() string {
	if k.Version != "" {
		return k.Version
	}
	if vs := k.model().Versions; len(vs) > 0 {
		return vs[len(vs)-1]
	}
	return ""
}

// Controllers returns the GatewayClass controllerNames the kind applies to (Kind.ControllerNames,
// else its model's); nil means any: the paths of every GatewayClass are the kind's.
func (k Kind) Controllers() []string {
	c := k.ControllerNames
	if len(c) == 0 {
		c = k.model().ControllerNames
	}
	if len(c) == 0 || slices.Contains(c, AnyController) {
		return nil
	}
	return c
}

// AnyController in a kind's controllerNames means the Gateways of any GatewayClass.
const AnyController = "*"

// Effective reports whether the kind's profile has effective policies over Gateway API paths (the
// engine's snapshots, `effective`, `explain`, `diff`): the engine's models, not those whose kinds
// are merged per request or per proxy (profiles/access, profiles/mesh).
func (k Kind) Effective() bool { return k.model().Folded }

// StatusMode is the kind's status mode: StatusNone when its profile's model has no status writer
// (such as Kuma's and Envoy Gateway's, whose controllers own those statuses), else the kind's
// setting, else the writer's default (StatusNone for kuadrant, StatusFull otherwise).
func (k Kind) StatusMode() string {
	w := k.model().Status
	switch {
	case w == nil:
		return StatusNone
	case k.Status != "":
		return k.Status
	}
	return w.Default
}

// WritesStatus reports whether the reconciler writes status for policies of this kind.
func (k Kind) WritesStatus() bool { return k.StatusMode() == StatusFull }

// Equal reports whether two kinds are configured alike.
func (k Kind) Equal(o Kind) bool {
	return k.GVK == o.GVK && k.Profile == o.Profile && k.RulesField == o.RulesField && k.Status == o.Status && maps.Equal(k.Defaults, o.Defaults) &&
		k.ConditionField == o.ConditionField && slices.Equal(k.Sections, o.Sections) && slices.Equal(k.TargetKinds, o.TargetKinds) &&
		slices.Equal(k.ControllerNames, o.ControllerNames)
}

// String is the short name used in messages.
func (k Kind) String() string { return k.GVK.Kind }

// AllowsTarget reports whether the kind may target group/kind.
func (k Kind) AllowsTarget(group, kind string) bool {
	for _, gk := range k.TargetKinds {
		if gk.Group == group && gk.Kind == kind {
			return true
		}
	}
	return false
}

// DefaultTargetKinds are the Gateway API kinds inherited policies attach to.
var DefaultTargetKinds = []schema.GroupKind{
	{Group: GatewayGroup, Kind: "Gateway"},
	{Group: GatewayGroup, Kind: "HTTPRoute"},
	{Group: GatewayGroup, Kind: "GRPCRoute"},
}

// AuthSections are the rule sections of an AuthPolicy.
var AuthSections = []string{"authentication", "metadata", "authorization", "response", "callbacks"}

// Builtin returns the shipped kinds.
func Builtin() []Kind {
	gv := schema.GroupVersion{Group: Group, Version: "v1alpha1"}
	return []Kind{
		{GVK: gv.WithKind("AuthPolicy"), Profile: ProfileDefaultsOverrides, RulesField: "rules", Sections: AuthSections, ConditionField: "when", TargetKinds: DefaultTargetKinds},
		{GVK: gv.WithKind("RateLimitPolicy"), Profile: ProfileDefaultsOverrides, RulesField: "limits", ConditionField: "when", TargetKinds: DefaultTargetKinds},
		{GVK: gv.WithKind("TrafficPolicy"), Profile: ProfileGEP713, TargetKinds: DefaultTargetKinds},
	}
}

// Registry finds the Kind for an object's group/kind.
type Registry struct {
	kinds []Kind
}

// NewRegistry builds a registry; later kinds with the same group/kind replace earlier ones.
func NewRegistry(kinds ...Kind) *Registry {
	r := &Registry{}
	for _, k := range kinds {
		r.add(k)
	}
	return r
}

func (r *Registry) add(k Kind) {
	for i := range r.kinds {
		if r.kinds[i].GVK.GroupKind() == k.GVK.GroupKind() {
			r.kinds[i] = k
			return
		}
	}
	r.kinds = append(r.kinds, k)
}

// Lookup returns the kind for a group/kind.
func (r *Registry) Lookup(gk schema.GroupKind) (Kind, bool) {
	for _, k := range r.kinds {
		if k.GVK.GroupKind() == gk {
			return k, true
		}
	}
	return Kind{}, false
}

// ByName finds a kind by its Kind name (case-insensitive), or by "Kind.group".
func (r *Registry) ByName(name string) (Kind, bool) {
	for _, k := range r.kinds {
		if strings.EqualFold(k.GVK.Kind, name) || strings.EqualFold(k.GVK.Kind+"."+k.GVK.Group, name) {
			return k, true
		}
	}
	return Kind{}, false
}

// Resolve finds the managed kind a user names, as kubectl takes resource.group: "Kind" or
// "Kind.group", case-insensitive. A Kind that more than one managed group has is ambiguous; the
// error lists the candidates. An unmanaged name is an error naming the managed kinds.
func (r *Registry) Resolve(name string) (Kind, error) {
	var found []Kind
	for _, k := range r.kinds {
		if strings.EqualFold(k.GVK.Kind+"."+k.GVK.Group, name) {
			return k, nil
		}
		if strings.EqualFold(k.GVK.Kind, name) {
			found = append(found, k)
		}
	}
	switch len(found) {
	case 1:
		return found[0], nil
	case 0:
		return Kind{}, fmt.Errorf("%q is not a managed policy kind; the managed kinds are %s", name, strings.Join(qualified(r.kinds), ", "))
	}
	return Kind{}, fmt.Errorf("%s is ambiguous: %s", name, strings.Join(qualified(found), ", "))
}

// qualified names kinds as Kind.group, sorted.
func qualified(ks []Kind) []string {
	out := make([]string, 0, len(ks))
	for _, k := range ks {
		out = append(out, k.GVK.Kind+"."+k.GVK.Group)
	}
	sort.Strings(out)
	return out
}

// Kinds lists the registered kinds.
func (r *Registry) Kinds() []Kind { return append([]Kind(nil), r.kinds...) }

// OfProfile lists the registered kinds of profile p (nil when none: asked per object, it copies
// only what it returns).
func (r *Registry) OfProfile(p ProfileName) []Kind {
	var out []Kind
	for _, k := range r.kinds {
		if k.Profile == p {
			out = append(out, k)
		}
	}
	return out
}
