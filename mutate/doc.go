// Package mutate computes the defaulting a schema cannot express, and the static defaults of
// policy kinds managed by configuration whose CRD schema lacks them, as JSON patches for the
// mutating webhook (and applied in place by the offline CLI).
package mutate
