// Package parallel runs independent calls on every CPU at once: the offline commands decode the
// documents of their input, check objects against their CRDs and convert the Gateway API objects
// to their typed form with it, each call independent of the others and its result kept at its
// index, so the answer does not depend on the schedule.
package parallel
