// Package engine is the engine of the `access` profile: AccessPolicy, tool authorization for agent
// traffic through Gateways and Backends (kube-agentic-networking's XAccessPolicy, seeds 003 and
// 004). It decodes a policy into a typed view with its stateless checks, evaluates one request
// level by level (Gateway, then Backend) with a trace, and projects a policy write into warnings
// about grants that one level makes unreachable at the other. Pure functions over values: the
// webhook and `precedent access` feed it from a cache or from files. The topology and the grants a
// write is projected against are persistent versions: one event (a Gateway, HTTPRoute, Namespace or
// policy) returns the next version at the cost of what it touches, leaving the one requests are
// reading unchanged.
package engine
