package envoygateway_test

import (
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/precedent-dev/precedent/test/harness"
)

// TestListenerChecksThroughTheWebhook: a ClientTrafficPolicy Envoy Gateway would mark Invalid on
// the listeners it reaches is refused on the write, dry run and real alike, with Envoy Gateway's
// real CRDs on a real API server: an unsupported cipher suite on a Gateway with an HTTPS listener
// (tls.go validateCipherSuites), an HTTP/1.0 default host on a listener with only wildcard
// hostnames and no route to take one from, and a whole ListenerSet whose plain-HTTP listener shares
// its port with the Gateway's (clienttrafficpolicy.go validatePortOverlapForClientTrafficPolicy).
// The same policies on listeners where Envoy Gateway accepts them are admitted.
func TestListenerChecksThroughTheWebhook(t *testing.T) {
	c, rec := h.NewClient()
	ns := harness.Namespace(t, c)
	manageEnvoyGateway(t, c)
	harness.Apply(t, c, ns, `
apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata: {name: eg, namespace: "{{ns}}"}
spec:
  gatewayClassName: eg
  allowedListeners: {namespaces: {from: Same}}
  listeners:
  - {name: http, port: 80, protocol: HTTP}
  - {name: wild, port: 8081, protocol: HTTP}
  - {name: named, port: 8080, protocol: HTTP, hostname: www.example.com}
  - {name: https, port: 443, protocol: HTTPS, hostname: www.example.com, tls: {certificateRefs: [{name: eg-cert}]}}`, `
apiVersion: gateway.networking.k8s.io/v1
kind: ListenerSet
metadata: {name: shared, namespace: "{{ns}}"}
spec:
  parentRef: {name: eg}
  listeners: [{name: ext, port: 80, protocol: HTTP, hostname: ext.example.com}]`, `
apiVersion: gateway.networking.k8s.io/v1
kind: ListenerSet
metadata: {name: own, namespace: "{{ns}}"}
spec:
  parentRef: {name: eg}
  listeners: [{name: ext, port: 9090, protocol: HTTP, hostname: own.example.com}]`)
	ctp := func(name, target, spec string) string {
		return "apiVersion: gateway.envoyproxy.io/v1alpha1\nkind: ClientTrafficPolicy\nmetadata: {name: " + name +
			", namespace: \"{{ns}}\"}\nspec:\n  targetRefs: [" + target + "]\n" + spec
	}
	gateway, section := "{group: gateway.networking.k8s.io, kind: Gateway, name: eg}", "{group: gateway.networking.k8s.io, kind: Gateway, name: eg, sectionName: "
	ls := "{group: gateway.networking.k8s.io, kind: ListenerSet, name: "
	invalid := metav1.CauseTypeFieldValueInvalid
	for _, tc := range []struct {
		name, doc string
		cause     string
		message   string
	}{
		{"an unsupported cipher suite", ctp("cipher", gateway, "  tls: {ciphers: [ECDHE-RSA-AES128-GCM-SHA256, INVALID-CIPHER]}"),
			"spec.tls.ciphers[1]", "Envoy Gateway does not support this cipher suite"},
		{"an HTTP/1.0 default host on a wildcard-only listener", ctp("h10", section+"wild}", "  http1: {http10: {useDefaultHost: true}}"),
			"spec.http1.http10.useDefaultHost", "cannot choose the HTTP/1.0 default host"},
		{"a ListenerSet sharing a port with the Gateway", ctp("shared", ls+"shared}", "  tcpKeepalive: {probes: 5}"),
			"spec.targetRefs[0].name", "shares port 80 with the plain-HTTP listeners"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			harness.AssertRejected(t, c, harness.ObjectIn(ns, tc.doc), harness.Rejection{
				Causes: []harness.Cause{{Type: invalid, Field: tc.cause}}, Message: tc.message, Webhook: true})
		})
	}
	for _, tc := range []struct{ name, doc string }{
		{"supported cipher suites", ctp("cipher-ok", gateway, "  tls: {ciphers: [ECDHE-RSA-AES128-GCM-SHA256, TLS_RSA_WITH_AES_256_CBC_SHA]}")},
		{"an HTTP/1.0 default host on a listener with a hostname", ctp("h10-ok", section+"named}", "  http1: {http10: {useDefaultHost: true}}")},
		{"a ListenerSet on a port of its own", ctp("own", ls+"own}", "  tcpKeepalive: {probes: 5}")},
	} {
		t.Run(tc.name, func(t *testing.T) {
			harness.WarningsOf(t, c, rec, harness.ObjectIn(ns, tc.doc), nil)
		})
	}
}
