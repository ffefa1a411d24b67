package lua

import (
	"fmt"
	"runtime"
	"strings"
	"sync/atomic"
	"time"

	lua "github.com/yuin/gopher-lua"
)

// Limits on what a script can do to pi. gopher-lua has no allocator hook and no instruction
// hook, but it checks the call's context before every instruction, so a limit ends the call by
// cancelling that context with a cause (task.kill): no pcall or coroutine.resume in the script
// can swallow it, because every frame, in every coroutine of the call, stops at its next
// instruction. What cannot wait for the next instruction (a library call building one huge
// string) is refused before it starts.
const (
	// maxCoroutineDepth bounds coroutine.resume inside coroutines. Each level nests the
	// interpreter on the Go stack, and Go dies of a stack over 1 GB without a way to recover;
	// 200 is Lua 5.1's own bound on nested C calls.
	maxCoroutineDepth = 200
	// maxCoroutines bounds the coroutines alive at once in a state; an empty one costs about
	// 6.4 KB, so 10000 are about 64 MB.
	maxCoroutines = 10000
	// maxStringBytes bounds one string a library call builds in one go (string.rep,
	// table.concat, pi.read_file): Go cannot recover from running out of memory.
	maxStringBytes = 64 << 20
	// maxChunkBytes bounds the source loadstring and load compile: gopher-lua's parser
	// allocates about 150 times the source (4 MiB of code, 600 MB), in one call.
	maxChunkBytes = 1 << 20
)

// limitError is why a call was stopped: a limit of this file, or the heap (memory.go).
type limitError struct {
	msg    string
	memory bool
}

func (e limitError) Error() string { return e.msg }

// limit stops the current call with msg and raises it where the script went over.
func (v *vm) limit(L *lua.LState, msg string) {
	if t := v.current; t != nil && t.kill != nil {
		t.kill(limitError{msg: msg})
	}
	L.RaiseError("%s", msg)
}

// limitLibraries puts the limits on the library functions that need them.
func (v *vm) limitLibraries() {
	v.limitStrings()
	v.limitGsubAndFormat()
	v.limitLoad()
	v.limitCoroutines()
}

// limitStrings refuses string.rep and table.concat results over maxStringBytes.
func (v *vm) limitStrings() {
	L := v.L
	str := L.GetGlobal("string").(*lua.LTable)
	rep := str.RawGetString("rep").(*lua.LFunction).GFunction
	str.RawSetString("rep", L.NewFunction(func(L *lua.LState) int {
		s, n := L.CheckString(1), L.CheckInt64(2)
		if n > 0 && int64(len(s))*n > maxStringBytes {
			L.RaiseError("string.rep: a result of %d bytes is over the %d MiB limit for scripts", int64(len(s))*n, maxStringBytes>>20)
		}
		return rep(L)
	}))
	tab := L.GetGlobal("table").(*lua.LTable)
	concat := tab.RawGetString("concat").(*lua.LFunction).GFunction
	tab.RawSetString("concat", L.NewFunction(func(L *lua.LState) int {
		if n := concatSize(L); n > maxStringBytes {
			L.RaiseError("table.concat: a result of %d bytes is over the %d MiB limit for scripts", n, maxStringBytes>>20)
		}
		return concat(L)
	}))
}

// limitLoad makes loadstring and load refuse chunks over maxChunkBytes, returning nil and a
// message as they do for a syntax error.
func (v *vm) limitLoad() {
	L := v.L
	tooBig := func(L *lua.LState, n int) int {
		L.Push(lua.LNil)
		L.Push(lua.LString(fmt.Sprintf("a chunk of %d bytes is over the %d MiB scripts may compile at once", n, maxChunkBytes>>20)))
		return 2
	}
	compile := func(L *lua.LState, src, name string) int {
		fn, err := L.Load(strings.NewReader(src), name)
		if err != nil {
			L.Push(lua.LNil)
			L.Push(lua.LString(err.Error()))
			return 2
		}
		L.Push(fn)
		return 1
	}
	L.SetGlobal("loadstring", L.NewFunction(func(L *lua.LState) int {
		src := L.CheckString(1)
		if len(src) > maxChunkBytes {
			return tooBig(L, len(src))
		}
		return compile(L, src, L.OptString(2, "<string>"))
	}))
	L.SetGlobal("load", L.NewFunction(func(L *lua.LState) int {
		reader, name := L.CheckFunction(1), L.OptString(2, "?")
		var b strings.Builder
		for b.Len() <= maxChunkBytes {
			L.Push(reader)
			L.Call(0, 1)
			piece := L.Get(-1)
			L.Pop(1)
			if piece == lua.LNil || piece.String() == "" {
				return compile(L, b.String(), name)
			}
			if !lua.LVCanConvToString(piece) {
				L.Push(lua.LNil)
				L.Push(lua.LString("reader function must return a string"))
				return 2
			}
			b.WriteString(piece.String())
		}
		return tooBig(L, b.Len())
	}))
}

// concatSize is the length table.concat(t, sep, i, j) would return, counted without building
// it (it stops counting past the limit). Wrong arguments are left to table.concat.
func concatSize(L *lua.LState) int64 {
	t, ok := L.Get(1).(*lua.LTable)
	if !ok {
		return 0
	}
	sep := int64(len(L.OptString(2, "")))
	i, j := L.OptInt(3, 1), L.OptInt(4, t.Len())
	var n int64
	for k := max(i, 1); k <= min(j, t.Len()) && n <= maxStringBytes; k++ {
		switch x := t.RawGetInt(k).(type) {
		case lua.LString:
			n += int64(len(x)) + sep
		case lua.LNumber:
			n += 24 + sep
		}
	}
	return n
}

// limitCoroutines replaces coroutine.create, resume and wrap with versions that count the
// coroutines alive and the depth of resumes inside resumes, and hand the current call's
// context to the coroutine they resume (one made during an earlier call would otherwise run
// under that call's finished context).
func (v *vm) limitCoroutines() {
	L := v.L
	co := L.GetGlobal("coroutine").(*lua.LTable)
	create := co.RawGetString("create").(*lua.LFunction).GFunction
	resume := co.RawGetString("resume").(*lua.LFunction).GFunction
	newCo := func(L *lua.LState) *lua.LState {
		v.admitCoroutine(L)
		create(L)
		th := L.Get(-1).(*lua.LState)
		v.live.Add(1)
		runtime.AddCleanup(th, func(n *atomic.Int64) { n.Add(-1) }, v.live)
		return th
	}
	co.RawSetString("create", L.NewFunction(func(L *lua.LState) int {
		newCo(L)
		return 1
	}))
	co.RawSetString("resume", L.NewFunction(func(L *lua.LState) int {
		return v.resumeCoroutine(L, resume)
	}))
	co.RawSetString("wrap", L.NewFunction(func(L *lua.LState) int {
		L.CheckFunction(1)
		L.SetTop(1)
		th := newCo(L)
		L.Push(L.NewFunction(func(L *lua.LState) int {
			L.Insert(th, 1)
			n := v.resumeCoroutine(L, resume)
			if !lua.LVAsBool(L.Get(-n)) {
				L.Error(L.Get(-1), 0) // as it was raised, like gopher-lua's own wrap
			}
			return n - 1
		}))
		return 1
	}))
}

// admitCoroutine raises when the state already has maxCoroutines alive. Coroutines are
// counted until the collector frees them, so at the limit it collects once before deciding.
func (v *vm) admitCoroutine(L *lua.LState) {
	if v.live.Load() < maxCoroutines {
		return
	}
	runtime.GC()
	for i := 0; i < 20 && v.live.Load() >= maxCoroutines; i++ {
		time.Sleep(time.Millisecond) // the cleanups run on their own goroutine
	}
	if v.live.Load() >= maxCoroutines {
		v.limit(L, fmt.Sprintf("more than %d coroutines alive at once", maxCoroutines))
	}
}

// resumeCoroutine is coroutine.resume with the depth limit. It also refuses a coroutine that
// is resuming this one (gopher-lua would run it twice over) and the runtime's own coroutines.
func (v *vm) resumeCoroutine(L *lua.LState, resume lua.LGFunction) int {
	th := L.CheckThread(1)
	if v.depth >= maxCoroutineDepth {
		v.limit(L, fmt.Sprintf("coroutines nested deeper than %d (coroutine.resume inside a coroutine inside a coroutine…)", maxCoroutineDepth))
	}
	if _, ours := v.tasks[th]; ours || isResuming(L, th) {
		L.Push(lua.LFalse)
		L.Push(lua.LString("cannot resume non-suspended coroutine"))
		return 2
	}
	if ctx := L.Context(); ctx != nil && th != L {
		th.SetContext(ctx)
	}
	v.depth++
	defer func() { v.depth-- }()
	return resume(L)
}

// isResuming reports whether th is L's parent, or its parent's, and so on.
func isResuming(L, th *lua.LState) bool {
	for p := L.Parent; p != nil; p = p.Parent {
		if p == th {
			return true
		}
	}
	return false
}
