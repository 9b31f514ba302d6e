package engine

import (
	"fmt"

	"k8s.io/apimachinery/pkg/util/validation/field"
)

// Combine modes: how the allow rules of several policies on one level combine.
const (
	// AnyAllow: the level passes if any allow rule of any of its policies allows the tool (PR #220).
	AnyAllow = "anyAllow"
	// AllAllow: every policy of the level that has allow rules must itself allow the tool (kube-agentic-networking's AccessPolicy proposal).
	AllAllow = "allAllow"
)

// Default Backend target group and kind (kube-agentic-networking's XBackend).
const (
	DefaultBackendGroup = "agentic.prototype.x-k8s.io"
	DefaultBackendKind  = "XBackend"
)

// GatewayGroup and GatewayKind name the Gateway target kind.
const (
	GatewayGroup = "gateway.networking.k8s.io"
	GatewayKind  = "Gateway"
)

// Settings are the cluster settings the access profile obeys (PrecedentConfig `access`).
type Settings struct {
	// BackendGroup and BackendKind name the Backend kind a policy may target.
	BackendGroup string `json:"backendGroup"`
	BackendKind  string `json:"backendKind"`
	// AllowMixedAuthorization lets one policy hold both InlineTools and ExternalAuth rules.
	AllowMixedAuthorization bool `json:"allowMixedAuthorization"`
	// Combine is AnyAllow (default) or AllAllow.
	Combine string `json:"combine"`
}

// DefaultSettings returns the settings used when the cluster sets none.
func DefaultSettings() Settings {
	return Settings{BackendGroup: DefaultBackendGroup, BackendKind: DefaultBackendKind, Combine: AnyAllow}
}

// Validate says what is wrong with s, if anything.
func (s Settings) Validate() error {
	if s.BackendKind == "" {
		return fmt.Errorf("access backend kind is empty: set it, e.g. to %q", DefaultBackendKind)
	}
	if s.Combine != "" && s.Combine != AnyAllow && s.Combine != AllAllow {
		return fmt.Errorf("access combine %q is not supported: use %q or %q", s.Combine, AnyAllow, AllAllow)
	}
	return nil
}

// Check validates s as the PrecedentConfig's access settings at path (spec.access), as field
// errors: Combine one of the modes (none is not defaulted there), a Backend kind.
func (s Settings) Check(path *field.Path) field.ErrorList {
	var errs field.ErrorList
	switch s.Combine {
	case AnyAllow, AllAllow:
	default:
		errs = append(errs, field.NotSupported(path.Child("combine"), s.Combine, []string{AnyAllow, AllAllow}))
	}
	if s.BackendKind == "" {
		errs = append(errs, field.Required(path.Child("backendKind"), "the Backend kind AccessPolicies may target"))
	}
	return errs
}

// withDefaults fills the zero fields of s.
func (s Settings) withDefaults() Settings {
	if s.BackendGroup == "" && s.BackendKind == "" {
		s.BackendGroup, s.BackendKind = DefaultBackendGroup, DefaultBackendKind
	}
	if s.Combine == "" {
		s.Combine = AnyAllow
	}
	return s
}
