// Package reconcile is the small controller that keeps policy status true: Accepted and Enforced
// conditions (with the RFC's reasons and messages), Gateway API PolicyAncestorStatus entries, and
// the <Kind>Affected condition on targeted Gateways. Status is computed by the same effective engine
// the webhook uses (status.go is pure); the controller writes only on change.
package reconcile
