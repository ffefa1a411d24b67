package lua

import (
	"context"
	"fmt"
	"strings"
	"unsafe"

	lua "github.com/yuin/gopher-lua"
	"pi/lua/internal/luapattern"
)

// gsubBatch is how many matches gsub asks the pattern matcher for at once: gopher-lua's own
// gsub collected every match first (60 MB of "a" held 3.8 GB of them) and then copied the
// whole string once per match.
const gsubBatch = 4096

// limitGsubAndFormat replaces the pattern functions with ones whose matcher stops with the
// call's context (a pattern that backtracks without end ran past every deadline), gsub with
// one that builds its result in one pass within maxStringBytes, gmatch with one that finds a
// match per step instead of all at once; and makes string.format refuse widths and precisions
// of more than two digits, as Lua does (Go's fmt would pad "%99999999s" to 100 MB).
func (v *vm) limitGsubAndFormat() {
	str := v.L.GetGlobal("string").(*lua.LTable)
	str.RawSetString("gsub", v.L.NewFunction(gsub))
	str.RawSetString("find", v.L.NewFunction(find))
	str.RawSetString("match", v.L.NewFunction(match))
	str.RawSetString("gmatch", v.L.NewFunction(gmatch))
	format := str.RawGetString("format").(*lua.LFunction).GFunction
	str.RawSetString("format", v.L.NewFunction(func(L *lua.LState) int {
		if err := checkFormat(L.CheckString(1)); err != nil {
			L.RaiseError("string.format: %v", err)
		}
		return format(L)
	}))
}

// stopper is what stops the matcher for the call L runs: its context's end.
func stopper(L *lua.LState) func() error {
	ctx := L.Context()
	if ctx == nil {
		return nil
	}
	return func() error {
		if ctx.Err() != nil {
			return context.Cause(ctx)
		}
		return nil
	}
}

// bytesOf is s as bytes without a copy; the matcher only reads them.
func bytesOf(s string) []byte { return unsafe.Slice(unsafe.StringData(s), len(s)) }

// firstMatch is the first match of pat in src from byte at on, or nil.
func firstMatch(L *lua.LState, src, pat string, at int) *luapattern.MatchData {
	ms, err := luapattern.Find(pat, bytesOf(src), at, 1, stopper(L))
	if err != nil {
		L.RaiseError("%s", err.Error())
	}
	if len(ms) == 0 {
		return nil
	}
	return ms[0]
}

// startIndex is Lua 5.1's init argument at n as a byte offset into a string of length l.
func startIndex(L *lua.LState, n, l int) int {
	init := L.OptInt(n, 1)
	if init < 0 {
		init = l + init + 1
	}
	return min(max(init-1, 0), l)
}

// pushCaptures pushes m's captures (the whole match when it has none) and says how many.
func pushCaptures(L *lua.LState, src string, m *luapattern.MatchData) int {
	n := max(1, m.CaptureLength()/2-1)
	for i := 1; i <= n; i++ {
		L.Push(capture(L, src, m, i))
	}
	return n
}

// find is string.find(s, pattern [, init [, plain]]).
func find(L *lua.LState) int {
	src, pat := L.CheckString(1), L.CheckString(2)
	at := startIndex(L, 3, len(src))
	if lua.LVAsBool(L.Get(4)) || !strings.ContainsAny(pat, "^$*+?.([%-") {
		i := strings.Index(src[at:], pat)
		if i < 0 {
			L.Push(lua.LNil)
			return 1
		}
		L.Push(lua.LNumber(at + i + 1))
		L.Push(lua.LNumber(at + i + len(pat)))
		return 2
	}
	m := firstMatch(L, src, pat, at)
	if m == nil {
		L.Push(lua.LNil)
		return 1
	}
	L.Push(lua.LNumber(m.Capture(0) + 1))
	L.Push(lua.LNumber(m.Capture(1)))
	if m.CaptureLength() == 2 {
		return 2
	}
	return 2 + pushCaptures(L, src, m)
}

// match is string.match(s, pattern [, init]).
func match(L *lua.LState) int {
	src, pat := L.CheckString(1), L.CheckString(2)
	m := firstMatch(L, src, pat, startIndex(L, 3, len(src)))
	if m == nil {
		L.Push(lua.LNil)
		return 1
	}
	return pushCaptures(L, src, m)
}

// gmatch is string.gmatch(s, pattern): each call of the iterator finds the next match.
func gmatch(L *lua.LState) int {
	src, pat := L.CheckString(1), L.CheckString(2)
	at, done := 0, false
	L.Push(L.NewFunction(func(L *lua.LState) int {
		if done || at > len(src) {
			return 0
		}
		m := firstMatch(L, src, pat, at)
		if m == nil {
			done = true
			return 0
		}
		at = max(m.Capture(0)+1, m.Capture(1))
		done = strings.HasPrefix(pat, "^")
		return pushCaptures(L, src, m)
	}))
	return 1
}

// gsub is string.gsub(s, pattern, repl [, n]) with Lua 5.1's semantics.
func gsub(L *lua.LState) int {
	src, pat := L.CheckString(1), L.CheckString(2)
	L.CheckTypes(3, lua.LTString, lua.LTTable, lua.LTFunction)
	repl, limit := L.Get(3), L.OptInt(4, -1)
	b := bytesOf(src)
	var out strings.Builder
	copied, count, at := 0, 0, 0 // src[:copied] is in out; matching resumes at at
	for at <= len(src) && (limit < 0 || count < limit) {
		want := gsubBatch
		if limit >= 0 {
			want = min(want, limit-count)
		}
		matches, err := luapattern.Find(pat, b, at, want, stopper(L))
		if err != nil {
			L.RaiseError("%s", err.Error())
		}
		for _, m := range matches {
			start, end := m.Capture(0), m.Capture(1)
			out.WriteString(src[copied:start])
			out.WriteString(replacement(L, src, repl, m))
			copied, count = end, count+1
			at = max(start+1, end)
			if out.Len() > maxStringBytes {
				L.RaiseError("string.gsub: a result of more than %d MiB is over the limit for scripts", maxStringBytes>>20)
			}
		}
		if len(matches) < want || strings.HasPrefix(pat, "^") {
			break
		}
	}
	if count == 0 {
		L.Push(lua.LString(src))
	} else {
		out.WriteString(src[copied:])
		L.Push(lua.LString(out.String()))
	}
	L.Push(lua.LNumber(count))
	return 2
}

// replacement is what match m of src becomes: repl with its %0-%9 filled in, the value of a
// table at the first capture, or the result of a function called with the captures; false or
// nil from a table or function keeps the match.
func replacement(L *lua.LState, src string, repl lua.LValue, m *luapattern.MatchData) string {
	whole := src[m.Capture(0):m.Capture(1)]
	switch r := repl.(type) {
	case lua.LString:
		return expandReplacement(L, src, string(r), m)
	case *lua.LTable:
		return replacementValue(L, L.GetTable(r, capture(L, src, m, 1)), whole)
	case *lua.LFunction:
		L.Push(r)
		L.Call(pushCaptures(L, src, m), 1)
		v := L.Get(-1)
		L.Pop(1)
		return replacementValue(L, v, whole)
	}
	return whole
}

func replacementValue(L *lua.LState, v lua.LValue, whole string) string {
	switch v := v.(type) {
	case *lua.LNilType:
		return whole
	case lua.LBool:
		if !bool(v) {
			return whole
		}
	case lua.LString, lua.LNumber:
		return v.String()
	}
	L.RaiseError("invalid replacement value (a %s)", repl(v))
	return ""
}

func repl(v lua.LValue) string { return v.Type().String() }

// capture is capture i (from 1) of m: a string, or a position for (); the whole match when
// the pattern has no captures and i is 1.
func capture(L *lua.LState, src string, m *luapattern.MatchData, i int) lua.LValue {
	idx := 2 * i
	if m.CaptureLength() == 2 && i == 1 {
		idx = 0
	}
	if idx >= m.CaptureLength() {
		L.RaiseError("invalid capture index %%%d", i)
	}
	if m.IsPosCapture(idx) {
		return lua.LNumber(m.Capture(idx)) // pm counts positions from 1
	}
	return lua.LString(src[m.Capture(idx):m.Capture(idx+1)])
}

// expandReplacement fills in %0 (the match), %1-%9 (captures) and %% of repl.
func expandReplacement(L *lua.LState, src, repl string, m *luapattern.MatchData) string {
	if !strings.Contains(repl, "%") {
		return repl
	}
	var b strings.Builder
	for i := 0; i < len(repl); i++ {
		c := repl[i]
		if c != '%' || i+1 == len(repl) {
			b.WriteByte(c)
			continue
		}
		i++
		switch d := repl[i]; {
		case d == '0':
			b.WriteString(src[m.Capture(0):m.Capture(1)])
		case d >= '1' && d <= '9':
			b.WriteString(capture(L, src, m, int(d-'0')).String())
		default:
			b.WriteByte(d)
		}
	}
	return b.String()
}

// checkFormat refuses a format whose directives have a width or precision of more than two
// digits, or one taken from the arguments (*), which Go's fmt would honour.
func checkFormat(f string) error {
	for i := 0; i < len(f); i++ {
		if f[i] != '%' {
			continue
		}
		digits := 0
		for i++; i < len(f); i++ {
			c := f[i]
			switch {
			case c >= '0' && c <= '9':
				if digits++; digits > 2 {
					return fmt.Errorf("invalid format %q (width or precision too long)", f)
				}
				continue
			case c == '*':
				return fmt.Errorf("invalid format %q (* is not a Lua format)", f)
			case strings.IndexByte("-+ #.[]", c) >= 0:
				digits = 0
				continue
			}
			break
		}
	}
	return nil
}
