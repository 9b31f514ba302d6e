package engine

import (
	"github.com/precedent-dev/precedent/internal/checks"
	"github.com/precedent-dev/precedent/internal/effective"
	"github.com/precedent-dev/precedent/internal/policy"
)

// Model is Kuadrant's model for the engine: its kinds, the rules field a line of spec.kinds gets,
// no status of Precedent's, Kuadrant's reading, order, bare form and fold, and the GatewayClass
// controllers of its gateway providers.
var Model = policy.Model{Folded: true, Fold: Fold{}, Kinds: KuadrantKinds, DefaultKind: defaultKind,
	ControllerNames: ControllerNames,
	Status:          &policy.StatusWriter{Default: policy.StatusNone}, // Kuadrant's operator writes it unless asked
	Read:            readKuadrant, Less: kuadrantLess, BareForm: kuadrantBareForm}

// RegisterChecks puts Kuadrant's checks in the one table, after GEP-713's, with the shared checks of
// target references (checks.Register); the table of profiles calls it when it installs the models.
func RegisterChecks() {
	checks.Register(policy.ProfileKuadrant, checks.Targets, "gep713-default-or-override", Checks...)
}

// Fold is Kuadrant's fold as the engine calls it (effective.Reducer) and as displacement warnings
// name it.
type Fold struct{}

var _ effective.Reducer = Fold{}

// Reduce folds one path the way Kuadrant's operator does (foldKuadrant).
func (Fold) Reduce(levels [][]*policy.Policy) effective.Result { return foldKuadrant(levels) }

// String names the model in warnings.
func (Fold) String() string { return "Kuadrant" }

// SameTarget says which of two policies on one target wins.
func (Fold) SameTarget() string { return "the newer policy on one target wins" }

func defaultKind(k *policy.Kind) {
	if k.RulesField == "" {
		k.RulesField, _ = KuadrantRulesField(k.GVK.Kind)
	}
}

// ControllerNames are the GatewayClass controllers Kuadrant's operator enforces its policies through
// by default: its gateway providers, Istio and Envoy Gateway (the operator's
// ISTIO_GATEWAY_CONTROLLER_NAMES and ENVOY_GATEWAY_GATEWAY_CONTROLLER_NAMES, whose defaults these
// are). Where the operator is configured otherwise (OpenShift's openshift.io/gateway-controller/v1),
// a PrecedentConfig line says so in controllerNames.
var ControllerNames = []string{"gateway.envoyproxy.io/gatewayclass-controller", "istio.io/gateway-controller"}
