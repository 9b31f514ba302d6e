// Package gen generates realistic topologies and policies of a given size, shared by benchmarks
// and tests: Gateways with two listeners, routes spread over application namespaces and attached
// to them, and RateLimitPolicies at Gateway and route level with defaults, overrides and unsets.
package gen
