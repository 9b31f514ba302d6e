// Package crdcheck validates custom objects against the CustomResourceDefinitions that define them,
// with the apiextensions-apiserver's own code (structural pruning and defaulting, the OpenAPI schema
// validator, list types and x-kubernetes-validations in CEL with the API server's cost limits), so
// `precedent validate -f` rejects offline what the API server would reject before any webhook runs.
// Only the offline CLI links it; the webhook never sees an object the API server rejected.
package crdcheck
