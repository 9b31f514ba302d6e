// Package gatewayapi checks Precedent's topology against Gateway API's conformance scenarios about
// route attachment: it reads the scenarios' manifests from the module cache
// (sigs.k8s.io/gateway-api/conformance, at the version of gateway-api that go.mod pins; never copied
// into the repository), builds the topology over them, and compares where each route attaches with
// the expectations in testdata/scenarios.yaml, written from the conformance tests' own assertions.
package gatewayapi
