// Package access is the profile of AccessPolicies (Precedent's) and kube-agentic-networking's
// XAccessPolicies: tool authorization for agent traffic at Gateways and Backends. Writes are
// checked under the live access settings and projected on the state's per-Gateway grants (its
// engine, profiles/access/engine); deletes say what the removal opens or revokes; ServiceAccount
// sources without a namespace are defaulted to the policy's.
package access
