package lua

import (
	"fmt"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"time"
)

// The heap limit. gopher-lua cannot say what its state holds, so the runtime watches Go's heap
// while Lua code runs: a timer samples it every memCheckEvery during a resume (calls that end
// sooner never see the timer fire), and a call that took the heap past what it was at New plus
// Options.MemoryLimit is stopped like any limit (limitError, through the call's context).
const (
	// DefaultMemoryLimit is how far Go's heap may grow past its size at New while Lua code
	// runs (Options.MemoryLimit).
	DefaultMemoryLimit = 512 << 20
	// memCheckEvery is how often the heap is sampled while Lua code runs.
	memCheckEvery = 10 * time.Millisecond
)

// heapBytes samples the Go heap: the live heap as the last collection found it, and
// everything allocated and not yet freed, each with the goroutine stacks.
func heapBytes() (live, total uint64) {
	s := []metrics.Sample{{Name: "/gc/heap/live:bytes"}, {Name: "/memory/classes/heap/objects:bytes"},
		{Name: "/memory/classes/heap/stacks:bytes"}}
	metrics.Read(s)
	u := func(i int) uint64 {
		if s[i].Value.Kind() != metrics.KindUint64 {
			return 0
		}
		return s[i].Value.Uint64()
	}
	return u(0) + u(2), u(1) + u(2)
}

// checkMemory runs on the heap check's timer while a call runs: it stops the call when the
// heap went over the limit, and otherwise looks again later. The total heap counts garbage
// not collected yet, so when only the total is over, it starts a collection and a later look
// sees what is live; a total so far over that garbage cannot explain it (GOGC=100 lets the
// heap reach twice the live) stops the call at once.
//
// A jump of more than a quarter of the limit in one sample is one operation building hundreds
// of MiB (s .. s; library calls refuse such results), not garbage piling up: over the limit
// it stops the call at once. A collection started from here would stop the world, which waits
// for the interpreter to leave the copy it is in, timers included, and let the script start
// the next operation, twice as large, before the check runs again.
func (r *Runtime) checkMemory() {
	r.mu.Lock()
	ceiling := r.memBase + uint64(r.opts.MemoryLimit) // set before the call that armed this
	r.mu.Unlock()
	live, total := heapBytes()
	jump := total > r.lastTotal.Swap(total)+uint64(r.opts.MemoryLimit)/4
	if total > 2*ceiling || jump && total > ceiling {
		live = total
	} else if total > ceiling && live <= ceiling && r.collecting.CompareAndSwap(false, true) {
		go func() {
			runtime.GC()
			r.collecting.Store(false)
		}()
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.runKill == nil {
		return
	}
	if live > ceiling {
		r.runKill(limitError{memory: true, msg: fmt.Sprintf("out of memory for scripts: pi's heap reached %d MiB while Lua ran, over its limit of %d MiB",
			live>>20, ceiling>>20)})
		return
	}
	r.memTimer.Reset(memCheckEvery)
}

// afterMemoryKill gives the memory of a stopped call back and warns when the state keeps it
// (a global table the script filled): later calls would be stopped as well.
func (r *Runtime) afterMemoryKill() {
	debug.FreeOSMemory()
	if live, _ := heapBytes(); live > r.memBase+uint64(r.opts.MemoryLimit) {
		r.notify("warning", "lua: the scripts still hold %d MiB after one was stopped for memory; Lua calls that run longer than %v will be stopped too until /reload",
			(live-r.memBase)>>20, memCheckEvery)
	}
}
