//go:build tools

// Package tools pins Envoy Gateway's module, whose CRDs (charts/gateway-helm/charts/crds/crds/generated)
// the tests and `make run` read from the module cache: test/egcrds finds them with
// `go mod download -json` run here. Nothing is built from it.
package tools

import _ "github.com/envoyproxy/gateway/api/v1alpha1"
