package parallel

import (
	"runtime"
	"sync"
	"sync/atomic"
)

// Each calls f(i) for each i below n and returns when every call has. The calls run on every CPU
// at once when n is large enough to be worth it (a few calls are not worth a goroutine), in no
// particular order: f must write only what belongs to i.
func Each(n int, f func(i int)) {
	workers := min(runtime.GOMAXPROCS(0), n/64+1)
	var next atomic.Int64
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := int(next.Add(1)) - 1; i < n; i = int(next.Add(1)) - 1 {
				f(i)
			}
		}()
	}
	wg.Wait()
}
