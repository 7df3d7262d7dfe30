package dispatch

import (
	"context"
	"sync"
)

// ArgumentsReadFactor times --max-args-file is how many bytes of
// argumentsFile all calls together may be reading and preparing at once
// (argumentsBudget). One call may cost about four times its file while
// it is read, selected or decoded and turned into the call's arguments;
// without a bound across calls, 12 calls each naming a 60 MB file took
// 3.3 GB (review 15), and --max-in-flight allows 256 a session.
const ArgumentsReadFactor = 2

// byteBudget lets callers hold at most max bytes together; a caller
// asking for more than is free waits, in no set order, until enough is
// released or its context ends. One caller may always take it whole
// when nobody holds any, so a request above max is not refused here
// (--max-args-file bounds each).
type byteBudget struct {
	max int64

	mu    sync.Mutex
	used  int64
	freed chan struct{} // closed and replaced at each release, while anyone waits
}

func newByteBudget(max int64) *byteBudget {
	return &byteBudget{max: max}
}

// acquire takes n bytes of the budget, waiting while they are not free.
func (b *byteBudget) acquire(ctx context.Context, n int64) error {
	for {
		b.mu.Lock()
		if b.used == 0 || b.used+n <= b.max {
			b.used += n
			b.mu.Unlock()
			return nil
		}
		if b.freed == nil {
			b.freed = make(chan struct{})
		}
		freed := b.freed
		b.mu.Unlock()
		select {
		case <-freed:
		case <-ctx.Done():
			return context.Cause(ctx)
		}
	}
}

// release gives back n bytes taken by acquire.
func (b *byteBudget) release(n int64) {
	b.mu.Lock()
	b.used -= n
	if b.freed != nil {
		close(b.freed)
		b.freed = nil
	}
	b.mu.Unlock()
}
