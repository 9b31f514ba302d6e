package main

import (
	"errors"
	"fmt"
	"runtime/debug"
	"strings"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/rest"

	"github.com/precedent-dev/precedent/internal/warning"
)

// codeGatewayCRDs is the start-up error of serve and dev when the Gateway API CRDs the informer
// cache watches are not served: without it the cache waits forever for kinds that do not exist.
var codeGatewayCRDs = warning.Register(warning.Code{
	ID: "PRC-E210", Severity: warning.SeverityError,
	Title:   "Gateway API CRDs not installed",
	Meaning: "precedent serve (and dev) watch the Gateway API topology (GatewayClass, Gateway, HTTPRoute, GRPCRoute); the API server does not serve some of them, so Precedent cannot start.",
	Fix:     "Install the Gateway API standard channel CRDs of the version Precedent is built with (the command the message gives), then start Precedent again.",
})

// gatewayAPIGroupVersion and requiredGatewayResources are what the informer cache watches from
// start-up (internal/state: the topology kinds; ListenerSet and the TLS/TCP/UDP routes are watched
// once their CRDs are installed).
const gatewayAPIGroupVersion = "gateway.networking.k8s.io/v1"

var requiredGatewayResources = []string{"gatewayclasses", "gateways", "httproutes", "grpcroutes"}

// gatewayAPIVersion is the Gateway API module version the binary is built with (go.mod).
func gatewayAPIVersion() string {
	if bi, ok := debug.ReadBuildInfo(); ok {
		for _, d := range bi.Deps {
			if d.Path == "sigs.k8s.io/gateway-api" {
				if d.Replace != nil {
					d = d.Replace
				}
				return d.Version
			}
		}
	}
	return "v1.6.3"
}

// missingGatewayResources returns the required Gateway API resources that served (the resources
// of gateway.networking.k8s.io/v1 the API server lists) lacks, in the order of the list.
func missingGatewayResources(served []string) []string {
	have := map[string]bool{}
	for _, r := range served {
		have[r] = true
	}
	var out []string
	for _, r := range requiredGatewayResources {
		if !have[r] {
			out = append(out, r)
		}
	}
	return out
}

// checkGatewayAPI asks the API server (within 15 s) whether it serves the Gateway API resources the
// cache needs, and says which are missing and how to install them.
func checkGatewayAPI(cfg *rest.Config) error {
	c := rest.CopyConfig(cfg)
	c.Timeout = 15 * time.Second
	dc, err := discovery.NewDiscoveryClientForConfig(c)
	if err != nil {
		return err
	}
	var served []string
	list, err := dc.ServerResourcesForGroupVersion(gatewayAPIGroupVersion)
	switch {
	case apierrors.IsNotFound(err):
	case err != nil:
		return fmt.Errorf("asking the API server %s which Gateway API kinds it serves: %w", cfg.Host, err)
	default:
		for _, r := range list.APIResources {
			served = append(served, r.Name)
		}
	}
	missing := missingGatewayResources(served)
	if len(missing) == 0 {
		return nil
	}
	v := gatewayAPIVersion()
	return errors.New(codeGatewayCRDs.Linef("the Gateway API CRDs are not installed: the API server does not serve %s of %s; install the standard channel of Gateway API %s: kubectl apply --server-side -f https://github.com/kubernetes-sigs/gateway-api/releases/download/%s/standard-install.yaml (from a clone: kubectl apply --server-side -f config/crd/gateway-api)",
		strings.Join(missing, ", "), gatewayAPIGroupVersion, v, v))
}
