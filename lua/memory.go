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
// not collected yet, so over the limit it collects once and looks at what is live, unless the
// total is so far over that garbage cannot explain it (GOGC=100 lets it reach twice the live).
func (r *Runtime) checkMemory() {
	r.mu.Lock()
	ceiling := r.memBase + uint64(r.opts.MemoryLimit) // set before the call that armed this
	r.mu.Unlock()
	live, total := heapBytes()
	if total > 2*ceiling {
		live = total / 2 // even counting garbage, half is more than the collector lets pile up
	} else if total > ceiling && live <= ceiling {
		runtime.GC() // on the timer's goroutine; the script goes on meanwhile
		live, _ = heapBytes()
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
