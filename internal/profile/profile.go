package profile

import (
	"slices"
	"strings"

	"gomodules.xyz/jsonpatch/v2"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/precedent-dev/precedent/cel"
	"github.com/precedent-dev/precedent/internal/diff"
	"github.com/precedent-dev/precedent/internal/effective"
	"github.com/precedent-dev/precedent/internal/inventory"
	"github.com/precedent-dev/precedent/internal/policy"
	"github.com/precedent-dev/precedent/internal/settings"
	"github.com/precedent-dev/precedent/internal/source"
	"github.com/precedent-dev/precedent/internal/topology"
)

// Profile is one policy model: which objects it owns, how it checks and defaults a write, which
// webhook rules and informers it needs, the caches it prepares before a replica is ready, and its
// CLI views. It is the composition of the roles below; each caller takes the role it uses (the
// install generator's Kinds and Admission, the review's Reviewer, the CLI's Views). The webhook and
// `validate -f` both call its Review, over different sources. A Profile holds no back-pointer to the
// handler that calls it (like controller-runtime's admission.Validator): everything a call needs
// comes in its arguments. Optional roles (PolicyExplainer, RuleExplainer, Readers, Configurable,
// Sectioned, Annotated) are found by type assertion.
type Profile interface {
	Kinds
	Reviewer
	Admission
	Preparer
	Views
}

// Kinds is the role of naming what a profile reads and reviews.
type Kinds interface {
	// Name is the profile's name in a PrecedentConfig's spec.kinds[].profile; "" for a profile that
	// manages only its own kinds and cannot be configured for others.
	Name() policy.ProfileName
	// Claims reports whether the profile reviews objects of gk under the managed kinds reg.
	Claims(gk schema.GroupKind, reg *policy.Registry) bool
	// Own are the policy kinds the profile manages whatever the settings say; the state watches
	// them when their CRDs are installed (the registry's kinds are watched apart).
	Own() []schema.GroupKind
	// Reads are other kinds the profile reads from the state, stored whole like policies and
	// watched from the profile's first use (state.WatchRead) when their CRDs are installed: Envoy
	// Gateway's ListenerSets and ReferenceGrants, for example.
	Reads() []schema.GroupKind
	// Sources are the kinds, besides the registry's and the Gateway API topology's, that the
	// profile's CLI views read from a cluster (its own kinds and what it reads, such as Kuma's
	// Dataplanes or the configured Backend kind).
	Sources(s settings.Settings) []schema.GroupKind
	// Checks reports whether objects of gk in an offline input are the profile's to check (policies
	// and the topology objects only it reads, such as Kuma's Dataplanes).
	Checks(gk schema.GroupKind, reg *policy.Registry) bool
}

// Reviewer is the role of answering writes: the webhook's and `validate -f`'s.
type Reviewer interface {
	// Review answers a create, an update or a delete (r.Deleting()) of r.Object.
	Review(r Request) Decision
	// Default returns the defaulting of a write of u, none when it needs nothing.
	Default(gk schema.GroupKind, u *unstructured.Unstructured, reg *policy.Registry) []jsonpatch.JsonPatchOperation
}

// Admission is the role of saying which admission webhooks the profile needs.
type Admission interface {
	// Webhooks are the webhook rules the profile needs for the managed kinds of its profile among
	// kinds (the registry's), and for its own kinds.
	Webhooks(kinds []policy.Kind) Webhooks
}

// Preparer is the role of warming a replica's caches.
type Preparer interface {
	// Prepare builds the profile's derived caches in st under s before a replica reports ready,
	// so its first admissions cost what steady-state ones do.
	Prepare(st source.Source, s settings.Settings) error
}

// Views is the role of the CLI's views over an offline input (or a cluster read as one).
type Views interface {
	// Effective returns the effective policy of kind k (one of the profile's) on every path of the
	// input that its policies reach beneath target (nil: everywhere), in the CLI contract's shape
	// (`precedent effective`); an error when the model has no effective policy per Gateway API path.
	Effective(in *Offline, k policy.Kind, target *topology.Target) ([]effective.Item, error)
	// Diff compares base and head (`precedent diff`) for the profile's kinds: every one when kind is
	// "", else the one kind names ("Kind" or "Kind.group"); matched is false when it names none of
	// them.
	Diff(base, head *Offline, kind string) (changes []diff.Change, matched bool, err error)
}

// ClaimedBy reports whether the registry reg manages gk with the profile named name: the Claims
// (and Checks) of the profiles whose kinds are the registry's.
func ClaimedBy(name policy.ProfileName, gk schema.GroupKind, reg *policy.Registry) bool {
	k, ok := reg.Lookup(gk)
	return ok && k.Profile == name
}

// Spec is what Reading needs of a profile: its name and the kinds it reads beyond its own, the same
// whatever the settings. A profile's spec is a field-less type, so the profile stays a zero value.
type Spec interface {
	Name() policy.ProfileName
	ReadKinds() []schema.GroupKind
}

// Reading is the default Kinds part of a profile that owns no kind and reads fixed kinds beyond the
// registry's (Envoy Gateway's, NGINX Gateway Fabric's): embedded, it gives Name, Claims (the
// registry's lines of the profile), Own (none), Reads and Sources (S's ReadKinds). A profile
// overrides what differs by defining the method itself.
type Reading[S Spec] struct{}

func (Reading[S]) Name() policy.ProfileName { var s S; return s.Name() }

func (Reading[S]) Claims(gk schema.GroupKind, reg *policy.Registry) bool {
	var s S
	return ClaimedBy(s.Name(), gk, reg)
}

func (Reading[S]) Own() []schema.GroupKind { return nil }

func (Reading[S]) Reads() []schema.GroupKind { var s S; return s.ReadKinds() }

func (Reading[S]) Sources(settings.Settings) []schema.GroupKind { var s S; return s.ReadKinds() }

// Operation is the write a Request reviews, as the API server names it.
type Operation string

const (
	Create Operation = "CREATE"
	Update Operation = "UPDATE"
	Delete Operation = "DELETE"
)

// Request is one admission of an object, decoded once by the handler: the operation, the object as
// written and, for an update, the object it replaces (as controller-runtime's Validator[T] gets old
// and new). Both carry the identity, labels and spec, and of their annotations those a profile
// reads (Annotated): the webhook drops the others, such as kubectl's last-applied copy.
type Request struct {
	GroupKind schema.GroupKind
	Operation Operation
	// Object is the object as written; for a delete, the object being deleted.
	Object *unstructured.Unstructured
	// Old is the stored object an update replaces; nil for a create or a delete, and for an update
	// whose old object the caller does not know (the review then reads the stored one from Source).
	Old      *unstructured.Unstructured
	Settings settings.Settings
	Registry *policy.Registry
	// Source is the cluster the write is reviewed against: the informers' state for the webhook,
	// the input's objects for `precedent validate -f`.
	Source source.Source
	// Paths asks for Decision.Affected (the CLI's findings); the webhook, which sends the warning
	// lines alone, leaves it false and does not pay for naming the paths.
	Paths bool
}

// Deleting reports whether r reviews a delete.
func (r Request) Deleting() bool { return r.Operation == Delete }

// Annotated is a profile that reads annotations of the objects it reviews (kgateway's
// inherited-policy-priority on routes, for example): the webhook keeps these keys when it decodes a
// write, and the offline review keeps them too; every other annotation is dropped.
type Annotated interface {
	Annotations() []string
}

// Decision is a profile's answer: field errors deny the write, warnings go back either way.
// Unavailable is set when the answer cannot be given yet (a cache not synced): the handler answers
// 503 and the API server's client may retry; Internal is an error of Precedent's own (500).
type Decision struct {
	Errs field.ErrorList
	// CheckIDs name, for each error of Errs, the check that found it (package checks), "" for none;
	// the rejection metric counts by it.
	CheckIDs []string
	Warnings []string
	// Affected are the Gateway/route paths a warning is about ("gateway-system/gw/http →
	// shop/cart", validate.PathName), by the warning's line; a warning absent names none. The
	// webhook sends the lines alone; the CLI's findings carry the paths.
	Affected    map[string][]string
	Unavailable error
	Internal    error
}

// Allowed is a decision with nothing to say.
var Allowed = Decision{}

// Webhooks are the rules a profile asks of the webhook configurations.
type Webhooks struct {
	// Validate are resources whose creates and updates the validating webhook sees (fails closed).
	Validate []Resource
	// Mutating are the profile's mutating webhooks, each with its match conditions.
	Mutating []Mutating
}

// Resource is one namespaced resource the validating webhook sees; Deletes means its deletes are
// projected too (through the entry that fails open). WarnOnly marks a resource whose writes the
// profile only warns about, never denies (a Gateway API kind a profile reads an annotation of): its
// creates and updates go through an entry of their own that fails open, so an outage of Precedent
// never blocks them.
type Resource struct {
	Group, Version, Resource string
	Deletes                  bool
	WarnOnly                 bool
}

// Mutating is one mutating webhook entry: its name, its resources, and the CEL the API server
// evaluates so that only objects it would change reach it. Entries of one name from several
// profiles are joined.
type Mutating struct {
	Name       string
	Resources  []Resource
	Conditions []admissionregistrationv1.MatchCondition
}

// Offline is an input the CLI's views read (`effective`, `explain`, both sides of `diff`): the
// objects of the files or the cluster, the settings in force, and for engine-backed profiles the
// input's snapshots. (`validate -f` reviews writes over a source instead: profiles.Review.)
type Offline struct {
	Objects  []*unstructured.Unstructured
	Settings settings.Settings
	Registry *policy.Registry
	Inv      *inventory.Inventory
	Cond     *cel.Evaluator
	// Snapshot is the snapshot of kind k over the input's topology and policies.
	Snapshot func(k policy.Kind) *effective.Snapshot
	// Graph is the input's topology graph.
	Graph *topology.Graph
}

// Names reports whether kind names gk: "Kind" or "Kind.group", case-insensitive, as kubectl takes
// resource.group; "" names every kind.
func Names(kind string, gk schema.GroupKind) bool {
	return kind == "" || strings.EqualFold(gk.Kind, kind) || strings.EqualFold(gk.Kind+"."+gk.Group, kind)
}

// Same is n times the check id id: the CheckIDs of n errors of one check (such as a profile's
// reading of its kind's spec).
func Same(id string, n int) []string { return slices.Repeat([]string{id}, n) }

// NoDefaulting is the Default of a profile whose kinds need no defaulting (their CRDs default what
// they default): embedded, it returns none.
type NoDefaulting struct{}

func (NoDefaulting) Default(schema.GroupKind, *unstructured.Unstructured, *policy.Registry) []jsonpatch.JsonPatchOperation {
	return nil
}
