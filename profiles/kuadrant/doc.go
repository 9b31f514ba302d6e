// Package kuadrant is the profile of Kuadrant's own kinds (kuadrant.io RateLimitPolicy, AuthPolicy,
// TokenRateLimitPolicy), managed as they are with one line per kind: read, ordered, folded and
// checked the way Kuadrant's operator and CRDs do it (package engine), reviewed on the state's
// snapshots, no defaulting (Kuadrant's CRDs default in their schema) and no status of Precedent's.
package kuadrant
