package envoygateway

import (
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/precedent-dev/precedent/internal/topology"
	"github.com/precedent-dev/precedent/internal/warning"
	engine "github.com/precedent-dev/precedent/profiles/envoygateway/engine"
)

// ValuesCheck is the id of the check on a policy's values that Envoy Gateway's translator makes
// (engine.Values), for the errors' code and the rejection metric.
const ValuesCheck = "eg-translator-values"

// codeInvalidValue is the code of ValuesCheck's errors.
var codeInvalidValue = warning.Register(warning.Code{
	ID:       "PRC-E140",
	Severity: warning.SeverityError,
	Title:    "Envoy Gateway would mark the policy Invalid",
	Meaning: "a value the CRD's schema admits but Envoy Gateway's translator refuses (a rate-limit regular expression that does not compile, " +
		"local rate-limit rules, a bandwidth under 1 KiB/s, a buffer or window size out of range, a ClientTrafficPolicy on one of several " +
		"plain-HTTP listeners sharing a port, an unsupported TLS cipher suite, an HTTP/1.0 default host on a listener with only wildcard hostnames, authorization on clientIPGeoLocations without the listener's clientIPDetection): Envoy Gateway writes Accepted=False/Invalid " +
		"and applies nothing of the policy; the routes of an invalid BackendTrafficPolicy get a 500 direct response",
	Fix: "correct the value the message names",
})

// RegisterChecks gives ValuesCheck its code when profiles.Install runs (idempotent).
func (Profile) RegisterChecks() { warning.RegisterCheck(ValuesCheck, codeInvalidValue) }

// invalid is what Envoy Gateway's translator refuses in a policy's values (engine.Values), given
// the listeners of graph (engine.PortOverlap).
func invalid(p *engine.Policy, g *topology.Graph) field.ErrorList {
	errs := append(engine.Values(p), engine.PortOverlap(p, g)...)
	errs = append(errs, engine.Ciphers(p, g)...)
	return append(errs, engine.HTTP10(p, g)...)
}
