// Package reconcile is the small controller that keeps policy status true: Accepted and Enforced
// conditions (with the RFC's reasons and messages), Gateway API PolicyAncestorStatus entries, and
// the <Kind>Affected condition on targeted Gateways. Status is computed by the same effective engine
// the webhook uses (status.go is pure). It owns only its own part of a status (ownership.go: its
// condition types, its controllerName's ancestors entries), writes only on change and nothing a
// kind's schema prunes, reads from the manager's cache, and does nothing for a kind whose status
// mode is none (Kuadrant's kinds by default: their operator owns their status; always the kinds of
// a profile without a status writer, such as mesh and envoy-gateway: see policy.Model.Status).
package reconcile
