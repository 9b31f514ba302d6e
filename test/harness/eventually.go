package harness

import (
	"testing"
	"time"
)

// Timeout is how long Eventually waits: generous, so that a suite run beside other CPU-bound work
// (a loaded CI runner, a laptop) waits for what is slow there rather than failing; a condition that
// holds returns at its first poll that sees it.
const Timeout = 60 * time.Second

// Eventually polls cond every 50 ms until it holds or Timeout passes, then fails the test with what
// and the last state cond described.
func Eventually(t testing.TB, what string, cond func() (bool, string)) {
	t.Helper()
	EventuallyWithin(t, Timeout, what, cond)
}

// EventuallyWithin is Eventually with its own deadline.
func EventuallyWithin(t testing.TB, timeout time.Duration, what string, cond func() (bool, string)) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for {
		ok, state := cond()
		if ok {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: not reached within %s; last state:\n%s", what, timeout, state)
		}
		<-time.After(50 * time.Millisecond)
	}
}

// Consistently polls cond every 50 ms for d and fails the test, with what and the state cond
// described, the first time it does not hold.
func Consistently(t testing.TB, d time.Duration, what string, cond func() (bool, string)) {
	t.Helper()
	end := time.Now().Add(d)
	for {
		if ok, state := cond(); !ok {
			t.Fatalf("%s: broken; state:\n%s", what, state)
		}
		if time.Now().After(end) {
			return
		}
		<-time.After(50 * time.Millisecond)
	}
}
