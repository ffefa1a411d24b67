package lua

import (
	"context"
	"fmt"
	"strings"
	"unsafe"

	lua "github.com/yuin/gopher-lua"
	"github.com/yuin/gopher-lua/pm"
)

// gsubBatch is how many matches gsub asks the pattern matcher for at once: gopher-lua's own
// gsub collected every match first (60 MB of "a" held 3.8 GB of them) and then copied the
// whole string once per match.
const gsubBatch = 4096

// limitGsubAndFormat replaces string.gsub with one that builds its result in one pass, within
// maxStringBytes, and looks at the call's context between batches of matches; and makes
// string.format refuse widths and precisions of more than two digits, as Lua does
// (Go's fmt would pad "%99999999s" to 100 MB).
func (v *vm) limitGsubAndFormat() {
	str := v.L.GetGlobal("string").(*lua.LTable)
	str.RawSetString("gsub", v.L.NewFunction(gsub))
	format := str.RawGetString("format").(*lua.LFunction).GFunction
	str.RawSetString("format", v.L.NewFunction(func(L *lua.LState) int {
		if err := checkFormat(L.CheckString(1)); err != nil {
			L.RaiseError("string.format: %v", err)
		}
		return format(L)
	}))
}

// gsub is string.gsub(s, pattern, repl [, n]) with Lua 5.1's semantics.
func gsub(L *lua.LState) int {
	src, pat := L.CheckString(1), L.CheckString(2)
	L.CheckTypes(3, lua.LTString, lua.LTTable, lua.LTFunction)
	repl, limit := L.Get(3), L.OptInt(4, -1)
	b := unsafe.Slice(unsafe.StringData(src), len(src)) // pm only reads it; a copy would double a big src
	var out strings.Builder
	copied, count, at := 0, 0, 0 // src[:copied] is in out; matching resumes at at
	for at <= len(src) && (limit < 0 || count < limit) {
		if ctx := L.Context(); ctx != nil && ctx.Err() != nil {
			L.RaiseError("string.gsub: %v", context.Cause(ctx))
		}
		want := gsubBatch
		if limit >= 0 {
			want = min(want, limit-count)
		}
		matches, err := pm.Find(pat, b, at, want)
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
func replacement(L *lua.LState, src string, repl lua.LValue, m *pm.MatchData) string {
	whole := src[m.Capture(0):m.Capture(1)]
	switch r := repl.(type) {
	case lua.LString:
		return expandReplacement(L, src, string(r), m)
	case *lua.LTable:
		return replacementValue(L, L.GetTable(r, capture(L, src, m, 1)), whole)
	case *lua.LFunction:
		L.Push(r)
		n := max(1, m.CaptureLength()/2-1)
		for i := 1; i <= n; i++ {
			L.Push(capture(L, src, m, i))
		}
		L.Call(n, 1)
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
func capture(L *lua.LState, src string, m *pm.MatchData, i int) lua.LValue {
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
func expandReplacement(L *lua.LState, src, repl string, m *pm.MatchData) string {
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
