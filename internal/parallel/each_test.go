package parallel

import (
	"fmt"
	"testing"
)

// TestEach: every index is called exactly once, whatever the number of calls.
func TestEach(t *testing.T) {
	for _, n := range []int{0, 1, 63, 64, 1000} {
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			calls := make([]int, n)
			Each(n, func(i int) { calls[i]++ })
			for i, c := range calls {
				if c != 1 {
					t.Errorf("index %d called %d times, want 1", i, c)
				}
			}
		})
	}
}
