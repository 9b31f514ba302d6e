// Package access is the `access` profile: AccessPolicy, tool authorization for agent traffic through
// Gateways and Backends (kube-agentic-networking's XAccessPolicy, seeds 003 and 004). It decodes a
// policy into a typed view with its stateless checks, evaluates one request level by level (Gateway,
// then Backend) with a trace, and projects a policy write into warnings about grants that one level
// makes unreachable at the other. Pure functions over values: the webhook and `precedent access` feed
// it from a cache or from files.
package access
