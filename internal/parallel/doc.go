// Package parallel runs independent calls on every CPU at once: the offline commands decode the
// documents of their input and check objects against their CRDs with it, each call independent of
// the others and its result kept at its index, so the answer does not depend on the schedule.
package parallel
