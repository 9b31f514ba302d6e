// Package validate holds Precedent's checks: stateless ones on one policy object, stateful ones
// against a snapshot of the cluster (forbidden unsets, one policy per target), and the projection
// that turns the engine's events before and after a write into short, counted warnings. Errors are
// field.ErrorLists with exact paths, as the API server renders them.
package validate
