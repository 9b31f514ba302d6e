package engine

import (
	"fmt"

	"k8s.io/apimachinery/pkg/util/validation/field"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/precedent-dev/precedent/internal/topology"
)

// supportedCiphers are the TLS cipher suites Envoy Gateway v1.9 lets a ClientTrafficPolicy set,
// each under its OpenSSL name and its IANA name (the list of internal/gatewayapi/tls.go
// validCipherSuites, which follows Envoy's TlsParameters documentation), built here from the
// key exchange, authentication and cipher of each suite.
var supportedCiphers = func() map[string]bool {
	out := map[string]bool{}
	for _, s := range []struct{ openssl, iana string }{
		// ECDHE with AEAD ciphers.
		{"ECDHE-ECDSA-AES128-GCM-SHA256", "TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256"},
		{"ECDHE-RSA-AES128-GCM-SHA256", "TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256"},
		{"ECDHE-ECDSA-AES256-GCM-SHA384", "TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384"},
		{"ECDHE-RSA-AES256-GCM-SHA384", "TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384"},
		{"ECDHE-ECDSA-CHACHA20-POLY1305", "TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256"},
		{"ECDHE-RSA-CHACHA20-POLY1305", "TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305_SHA256"},
		// ECDHE with AES in CBC mode.
		{"ECDHE-ECDSA-AES128-SHA", "TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA"},
		{"ECDHE-RSA-AES128-SHA", "TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA"},
		{"ECDHE-ECDSA-AES256-SHA", "TLS_ECDHE_ECDSA_WITH_AES_256_CBC_SHA"},
		{"ECDHE-RSA-AES256-SHA", "TLS_ECDHE_RSA_WITH_AES_256_CBC_SHA"},
		// Plain RSA key exchange.
		{"AES128-GCM-SHA256", "TLS_RSA_WITH_AES_128_GCM_SHA256"},
		{"AES128-SHA", "TLS_RSA_WITH_AES_128_CBC_SHA"},
		{"AES256-GCM-SHA384", "TLS_RSA_WITH_AES_256_GCM_SHA384"},
		{"AES256-SHA", "TLS_RSA_WITH_AES_256_CBC_SHA"},
	} {
		out[s.openssl], out[s.iana] = true, true
	}
	return out
}()

// Ciphers is clienttrafficpolicy.go translateListenerTLSParameters with tls.go validateCipherSuites:
// a ClientTrafficPolicy whose tls.ciphers names a suite Envoy Gateway does not support is marked
// Invalid when it reaches a listener that terminates TLS (on a plain listener the TLS settings are
// not read).
func Ciphers(p *Policy, g *topology.Graph) field.ErrorList {
	if p.Kind != ClientTrafficPolicy || g == nil {
		return nil
	}
	tls, _ := p.Raw["tls"].(map[string]interface{})
	ciphers, _ := tls["ciphers"].([]interface{})
	var bad []int
	for i, c := range ciphers {
		if s, _ := c.(string); !supportedCiphers[s] {
			bad = append(bad, i)
		}
	}
	if len(bad) == 0 || !reachesTLS(p, g) {
		return nil
	}
	var errs field.ErrorList
	for _, i := range bad {
		errs = append(errs, field.Invalid(specPath.Child("tls", "ciphers").Index(i), ciphers[i],
			fmt.Sprintf("Envoy Gateway does not support this cipher suite and marks the policy Invalid; use one of its %d supported suites (OpenSSL or IANA names, e.g. ECDHE-RSA-AES128-GCM-SHA256)", len(supportedCiphers)/2)))
	}
	return errs
}

// reachesTLS reports whether a target of p reaches a listener that terminates TLS.
func reachesTLS(p *Policy, g *topology.Graph) bool {
	for _, t := range p.Targets {
		mine, _ := targetListeners(g, p.Ref.Namespace, t)
		for _, l := range mine {
			if terminatesTLS(l.l) {
				return true
			}
		}
	}
	return false
}

func terminatesTLS(l gwv1.Listener) bool {
	switch l.Protocol {
	case gwv1.HTTPSProtocolType:
		return true
	case gwv1.TLSProtocolType:
		return l.TLS != nil && (l.TLS.Mode == nil || *l.TLS.Mode == gwv1.TLSModeTerminate)
	}
	return false
}
