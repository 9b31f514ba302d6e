// Package envoygateway judges the envoy-gateway profile on Envoy Gateway's own translator corpus
// (internal/gatewayapi/testdata of the module pinned by hack/tools/envoy-gateway, read from the Go
// module cache): per policy and ancestor, the status Envoy Gateway wrote against the profile's
// prediction, and per HTTP and TCP route of the xdsIR, the BackendTrafficPolicies Envoy Gateway
// records on it against those the profile predicts. It starts no API server: the profile's engine
// over each case's objects is judged.
package envoygateway
