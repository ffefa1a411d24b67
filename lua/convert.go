package lua

import (
	"encoding/json"
	"fmt"
	"math"
	"strconv"

	lua "github.com/yuin/gopher-lua"

	"pi/provider"
	"pi/tools"
)

// maxDepth bounds conversions: a table that contains itself must not recurse forever.
const maxDepth = 64

// toLua converts a Go value to Lua. Maps become tables, slices become tables marked as arrays
// (so they convert back to JSON arrays even when empty), and pi's own types (messages, blocks,
// events) take their JSON shape, which is what session files and RPC clients see too.
func (v *vm) toLua(x any) lua.LValue {
	return v.toLuaDepth(x, 0)
}

func (v *vm) toLuaDepth(x any, depth int) lua.LValue {
	if depth > maxDepth {
		return lua.LNil
	}
	switch x := x.(type) {
	case nil:
		return lua.LNil
	case lua.LValue:
		return x
	case bool:
		return lua.LBool(x)
	case string:
		return lua.LString(x)
	case float64:
		return lua.LNumber(x)
	case float32:
		return lua.LNumber(x)
	case int:
		return lua.LNumber(x)
	case int64:
		return lua.LNumber(x)
	case json.Number:
		f, _ := x.Float64()
		return lua.LNumber(f)
	case map[string]any:
		t := v.L.CreateTable(0, len(x))
		for k, e := range x {
			t.RawSetString(k, v.toLuaDepth(e, depth+1))
		}
		return t
	case []any:
		return v.array(len(x), func(i int) lua.LValue { return v.toLuaDepth(x[i], depth+1) })
	case []string:
		return v.array(len(x), func(i int) lua.LValue { return lua.LString(x[i]) })
	case json.RawMessage:
		var d any
		if len(x) == 0 || json.Unmarshal(x, &d) != nil {
			return lua.LNil
		}
		return v.toLuaDepth(d, depth)
	case tools.Result:
		return v.resultToLua(&x)
	case *tools.Result:
		if x == nil {
			return lua.LNil
		}
		return v.resultToLua(x)
	}
	return v.viaJSON(x, depth)
}

// viaJSON converts any other value through its JSON form (messages, blocks, events, structs).
func (v *vm) viaJSON(x any, depth int) lua.LValue {
	data, err := json.Marshal(x)
	if err != nil {
		return lua.LString(fmt.Sprint(x))
	}
	var d any
	if json.Unmarshal(data, &d) != nil {
		return lua.LNil
	}
	return v.toLuaDepth(d, depth)
}

func (v *vm) array(n int, elem func(i int) lua.LValue) *lua.LTable {
	t := v.L.CreateTable(n, 0)
	for i := 0; i < n; i++ {
		t.RawSetInt(i+1, elem(i))
	}
	t.Metatable = v.arrayMT
	return t
}

// resultToLua gives a tool result the shape tool_result handlers and ctx.update share.
func (v *vm) resultToLua(r *tools.Result) lua.LValue {
	t := v.L.NewTable()
	t.RawSetString("content", v.toLua(blocksOrEmpty(r.Content)))
	t.RawSetString("details", v.toLua(r.Details))
	t.RawSetString("is_error", lua.LBool(r.IsError))
	t.RawSetString("terminate", lua.LBool(r.Terminate))
	return t
}

func blocksOrEmpty(b []provider.Block) []provider.Block {
	if b == nil {
		return []provider.Block{}
	}
	return b
}

// fromLua converts a Lua value to plain Go data (nil, bool, float64, string, []any,
// map[string]any). A table is an array when it is marked as one or its keys are exactly 1..n;
// functions and userdata are dropped.
func (v *vm) fromLua(x lua.LValue) (any, error) {
	return v.fromLuaDepth(x, 0)
}

func (v *vm) fromLuaDepth(x lua.LValue, depth int) (any, error) {
	if depth > maxDepth {
		return nil, fmt.Errorf("table nested deeper than %d levels (does it contain itself?)", maxDepth)
	}
	switch x := x.(type) {
	case *lua.LNilType:
		return nil, nil
	case lua.LBool:
		return bool(x), nil
	case lua.LNumber:
		f := float64(x)
		if math.IsNaN(f) || math.IsInf(f, 0) {
			return nil, fmt.Errorf("number %v has no JSON form", f)
		}
		return f, nil
	case lua.LString:
		return string(x), nil
	case *lua.LTable:
		return v.tableToGo(x, depth)
	}
	return nil, nil
}

func (v *vm) tableToGo(t *lua.LTable, depth int) (any, error) {
	n := t.Len()
	keys := 0
	t.ForEach(func(lua.LValue, lua.LValue) { keys++ })
	if t.Metatable == v.arrayMT || (n > 0 && keys == n) {
		out := make([]any, 0, n)
		for i := 1; i <= n; i++ {
			e, err := v.fromLuaDepth(t.RawGetInt(i), depth+1)
			if err != nil {
				return nil, err
			}
			out = append(out, e)
		}
		return out, nil
	}
	out := make(map[string]any, keys)
	var firstErr error
	t.ForEach(func(k, e lua.LValue) {
		if firstErr != nil || e.Type() == lua.LTFunction {
			return
		}
		key := k.String()
		if num, ok := k.(lua.LNumber); ok {
			key = strconv.FormatFloat(float64(num), 'f', -1, 64)
		}
		val, err := v.fromLuaDepth(e, depth+1)
		if err != nil {
			firstErr = fmt.Errorf("field %q: %w", key, err)
			return
		}
		out[key] = val
	})
	return out, firstErr
}

// fromLuaInto converts x to Go data and decodes it into dst through JSON (messages, blocks).
func (v *vm) fromLuaInto(x lua.LValue, dst any) error {
	d, err := v.fromLua(x)
	if err != nil {
		return err
	}
	data, err := json.Marshal(d)
	if err != nil {
		return err
	}
	return json.Unmarshal(data, dst)
}

// stringList reads an array of strings; other values are an error naming what.
func stringList(what string, x lua.LValue) ([]string, error) {
	t, ok := x.(*lua.LTable)
	if !ok {
		if x == lua.LNil {
			return nil, nil
		}
		return nil, fmt.Errorf("%s: want a list of strings, got %s", what, x.Type())
	}
	var out []string
	for i := 1; i <= t.Len(); i++ {
		s, ok := t.RawGetInt(i).(lua.LString)
		if !ok {
			return nil, fmt.Errorf("%s[%d]: want a string, got %s", what, i, t.RawGetInt(i).Type())
		}
		out = append(out, string(s))
	}
	return out, nil
}

// plain turns a payload into data that shares no memory with the caller: maps and slices are
// copied, pi's types take their JSON shape, tool results their snake_case table shape. Emit
// uses it before queueing, because the loop keeps changing a streaming message after the
// event has been delivered.
func plain(x any) any {
	switch x := x.(type) {
	case nil, bool, string, float64, float32, int, int64, json.Number:
		return x
	case map[string]any:
		m := make(map[string]any, len(x))
		for k, e := range x {
			m[k] = plain(e)
		}
		return m
	case []any:
		s := make([]any, len(x))
		for i, e := range x {
			s[i] = plain(e)
		}
		return s
	case []string:
		return append([]string(nil), x...)
	case tools.Result:
		return resultPlain(&x)
	case *tools.Result:
		if x == nil {
			return nil
		}
		return resultPlain(x)
	}
	data, err := json.Marshal(x)
	if err != nil {
		return fmt.Sprint(x)
	}
	var d any
	if json.Unmarshal(data, &d) != nil {
		return nil
	}
	if d == nil {
		return nil
	}
	return d
}

func resultPlain(r *tools.Result) map[string]any {
	return map[string]any{"content": plain(blocksOrEmpty(r.Content)), "details": plain(r.Details),
		"is_error": r.IsError, "terminate": r.Terminate}
}
