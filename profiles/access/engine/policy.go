package engine

import (
	"fmt"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/runtime/schema"
)

// The kinds managed by the access profile: Precedent's own AccessPolicy and kube-agentic-networking's
// XAccessPolicy, which share one shape.
var (
	AccessPolicyKind  = schema.GroupKind{Group: "policy.precedent.dev", Kind: "AccessPolicy"}
	XAccessPolicyKind = schema.GroupKind{Group: "agentic.prototype.x-k8s.io", Kind: "XAccessPolicy"}
)

// IsPolicy reports whether gk is a kind of the access profile.
func IsPolicy(gk schema.GroupKind) bool { return gk == AccessPolicyKind || gk == XAccessPolicyKind }

// Level is where a policy attaches: the Gateway or the Backend.
type Level string

// Levels, in evaluation order.
const (
	LevelGateway Level = "gateway"
	LevelBackend Level = "backend"
)

// AuthorizationType is the type of a rule's authorization.
type AuthorizationType string

// Authorization types. AllTools is not an API value: it stands for an omitted `authorization`,
// which allows every tool to the rule's source.
const (
	InlineTools  AuthorizationType = "InlineTools"
	ExternalAuth AuthorizationType = "ExternalAuth"
	AllTools     AuthorizationType = "AllTools"
)

// Policy is the typed view of one AccessPolicy, as far as evaluation needs it.
type Policy struct {
	Namespace, Name   string
	CreationTimestamp time.Time
	Targets           []TargetRef
	Rules             []Rule

	key string // "namespace/name", kept by Parse so that evaluation does not build it per trace entry
}

// TargetRef is one entry of spec.targetRefs (local: the target is in the policy's namespace).
type TargetRef struct {
	Group, Kind, Name, SectionName string
}

// Rule is one entry of spec.rules.
type Rule struct {
	Name string
	// Source is who the rule is about; a ServiceAccount without a namespace takes the policy's.
	Source Principal
	// Type is InlineTools, ExternalAuth, or AllTools when `authorization` is omitted.
	Type AuthorizationType
	// Tools are the tools an InlineTools rule allows (empty: none).
	Tools []string
}

// Key is the policy's "namespace/name".
func (p *Policy) Key() string {
	if n := len(p.Namespace); len(p.key) == n+1+len(p.Name) && p.key[:n] == p.Namespace && p.key[n+1:] == p.Name {
		return p.key
	}
	return p.Namespace + "/" + p.Name
}

// Level is the level the policy attaches to, from its first target (all targets share one kind).
func (p *Policy) Level() Level {
	if len(p.Targets) > 0 && p.Targets[0].Kind != GatewayKind {
		return LevelBackend
	}
	return LevelGateway
}

// TargetsObject reports whether p targets the object group/kind namespace/name (any section).
func (p *Policy) TargetsObject(group, kind, namespace, name string) bool {
	if p.Namespace != namespace {
		return false
	}
	for _, t := range p.Targets {
		if t.Group == group && t.Kind == kind && t.Name == name {
			return true
		}
	}
	return false
}

// hasAllowRules reports whether p has a rule that allows (InlineTools or no authorization).
func (p *Policy) hasAllowRules() bool {
	for i := range p.Rules {
		if p.Rules[i].Type != ExternalAuth {
			return true
		}
	}
	return false
}

// allows reports whether an allow rule lets its source call tool.
func (r *Rule) allows(tool string) bool {
	switch r.Type {
	case AllTools:
		return true
	case InlineTools:
		for _, t := range r.Tools {
			if t == tool {
				return true
			}
		}
	}
	return false
}

// Principal is who sends a request: a ServiceAccount ("namespace/name") or a SPIFFE ID. Exactly one
// is set. Sources match by equality; a ServiceAccount is not translated into a SPIFFE ID (the trust
// domain is not known offline).
type Principal struct {
	ServiceAccount string
	SPIFFE         string
}

// ParsePrincipal reads the CLI form: serviceaccount:NS/NAME, spiffe:spiffe://… (or a bare spiffe://…).
func ParsePrincipal(s string) (Principal, error) {
	switch {
	case strings.HasPrefix(s, "serviceaccount:"):
		v := strings.TrimPrefix(s, "serviceaccount:")
		ns, name, ok := strings.Cut(v, "/")
		if !ok || ns == "" || name == "" || strings.Contains(name, "/") {
			return Principal{}, fmt.Errorf("source %q: write a ServiceAccount as serviceaccount:NAMESPACE/NAME", s)
		}
		return Principal{ServiceAccount: v}, nil
	case strings.HasPrefix(s, "spiffe:"):
		v := strings.TrimPrefix(s, "spiffe:")
		if !strings.HasPrefix(v, "spiffe://") {
			v = "spiffe:" + v
		}
		if !validSPIFFE(v) {
			return Principal{}, fmt.Errorf("source %q: write a SPIFFE ID as spiffe:spiffe://TRUST-DOMAIN/PATH", s)
		}
		return Principal{SPIFFE: v}, nil
	}
	return Principal{}, fmt.Errorf("source %q: use serviceaccount:NAMESPACE/NAME or spiffe:spiffe://TRUST-DOMAIN/PATH", s)
}

// String names the principal in messages: "sa ns/name" or the SPIFFE ID.
func (p Principal) String() string {
	if p.ServiceAccount != "" {
		return "sa " + p.ServiceAccount
	}
	return p.SPIFFE
}

// validSPIFFE reports whether id is spiffe://<trust domain>[/path] with a non-empty trust domain.
func validSPIFFE(id string) bool {
	rest, ok := strings.CutPrefix(id, "spiffe://")
	if !ok {
		return false
	}
	td, _, _ := strings.Cut(rest, "/")
	return td != "" && !strings.ContainsAny(td, ":@?#") && !strings.ContainsAny(id, " \t\n")
}
