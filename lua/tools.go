package lua

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"time"

	lua "github.com/yuin/gopher-lua"

	"pi/provider"
	"pi/tools"
)

// isToolName reports whether name fits ^[A-Za-z0-9_-]{1,64}$ (what providers accept).
func isToolName(name string) bool {
	for _, c := range []byte(name) {
		if !isAlnum(c) && c != '_' && c != '-' {
			return false
		}
	}
	return len(name) >= 1 && len(name) <= 64
}

// luaTool is a tool a script registered. It is a full tools.Tool: the loop validates its
// arguments against Parameters like a built-in's, and it runs in parallel with other tools
// because pi.exec and friends yield.
type luaTool struct {
	r       *Runtime
	info    tools.Info
	timeout time.Duration
	// which of the optional functions the script gave (toolextras.go)
	prepare, renderCall, renderResult bool
	selfShell                         bool // render_shell = "self": the tool draws its whole box
	// writes names the arguments that hold paths of files the tool changes (`writes`).
	writes []string
}

func (t *luaTool) Info() *tools.Info { return &t.info }

// ChangedFiles returns the files named by the arguments the script said it writes, so that the
// loop queues its calls with the reply's other calls on those files.
func (t *luaTool) ChangedFiles(args map[string]any) []string {
	var keys []string
	where := &tools.Env{Cwd: t.r.opts.Cwd}
	for _, name := range t.writes {
		if p, ok := args[name].(string); ok && p != "" {
			keys = append(keys, where.FileKey(p))
		}
	}
	return keys
}

// Execute runs the script's execute(args, ctx). ctx.update(text or result) streams partial
// output; ctx.aborted() tells whether the run was aborted. A raised error, a timeout or a bad
// return value becomes an error result, never a Go error.
func (t *luaTool) Execute(ctx context.Context, callID string, args map[string]any, onUpdate func(tools.Result)) (tools.Result, error) {
	var res tools.Result
	var stops []func() bool // on_abort handlers, dropped once execute has returned
	defer func() {
		for _, stop := range stops {
			stop()
		}
	}()
	first := true
	tk := newTask(ctx, t.timeout, func(v *vm, rets []lua.LValue, err error) *call {
		if first {
			first = false
			fn := v.toolFns[t.info.Name]
			if fn == nil {
				res = tools.ErrorResult(fmt.Sprintf("Tool %q is no longer defined: its script was reloaded or removed.", t.info.Name))
				return nil
			}
			return &call{fn: fn, args: []lua.LValue{v.toLua(args), v.toolContext(ctx, callID, onUpdate, &stops)}}
		}
		res = v.toolResult(t.info.Name, rets, err)
		return nil
	})
	if err := t.r.submit(ctx, tk); err != nil {
		return tools.ErrorResult(fmt.Sprintf("Tool %q could not run: %v", t.info.Name, err)), nil
	}
	if t.renderCall || t.renderResult {
		t.render(ctx, args, &res)
	}
	return res, nil
}

func (v *vm) toolContext(ctx context.Context, callID string, onUpdate func(tools.Result), stops *[]func() bool) *lua.LTable {
	L := v.L
	c := L.NewTable()
	c.RawSetString("call_id", lua.LString(callID))
	c.RawSetString("cwd", lua.LString(v.r.opts.Cwd))
	c.RawSetString("update", L.NewFunction(func(L *lua.LState) int {
		r, err := v.resultFromLua(L.Get(1))
		if err != nil {
			L.ArgError(1, err.Error())
		}
		if onUpdate != nil {
			onUpdate(r)
		}
		return 0
	}))
	c.RawSetString("aborted", L.NewFunction(func(L *lua.LState) int {
		L.Push(lua.LBool(ctx.Err() != nil))
		return 1
	}))
	// on_abort(fn): fn() runs as a call of its own when the user aborts while execute is
	// still running (execute itself is stopped then): a script tells its server to cancel.
	c.RawSetString("on_abort", L.NewFunction(func(L *lua.LState) int {
		*stops = append(*stops, v.later(ctx, L.CheckFunction(1), "a tool's on_abort handler"))
		return 0
	}))
	return c
}

// toolResult turns what execute returned or raised into a result.
func (v *vm) toolResult(name string, rets []lua.LValue, err error) tools.Result {
	if err != nil {
		return tools.ErrorResult(fmt.Sprintf("Tool %q failed: %v", name, cleanError(err)))
	}
	var ret lua.LValue = lua.LNil
	if len(rets) > 0 {
		ret = rets[0]
	}
	r, err := v.resultFromLua(ret)
	if err != nil {
		return tools.ErrorResult(fmt.Sprintf("Tool %q returned a bad result: %v", name, err))
	}
	return r
}

// resultFromLua reads a string, or {content = string or blocks, details?, is_error?, terminate?,
// usage?, added_tools?}.
func (v *vm) resultFromLua(x lua.LValue) (tools.Result, error) {
	switch x := x.(type) {
	case *lua.LNilType:
		return tools.Result{Content: []provider.Block{}}, nil
	case lua.LString:
		return tools.TextResult(string(x)), nil
	case *lua.LTable:
		content, err := v.contentFromLua(x.RawGetString("content"))
		if err != nil {
			return tools.Result{}, err
		}
		details, err := v.fromLua(x.RawGetString("details"))
		if err != nil {
			return tools.Result{}, fmt.Errorf("details: %w", err)
		}
		added, err := stringList("added_tools", x.RawGetString("added_tools"))
		if err != nil {
			return tools.Result{}, err
		}
		return tools.Result{Content: content, Details: details, IsError: lua.LVAsBool(x.RawGetString("is_error")),
			Terminate: lua.LVAsBool(x.RawGetString("terminate")), Usage: usageFromLua(x.RawGetString("usage")), AddedTools: added}, nil
	}
	return tools.Result{}, fmt.Errorf("want a string or a table, got %s", x.Type())
}

// contentFromLua reads content as a string or a list of blocks ({type="text", text=…} or
// {type="image", data=…, mime_type=…}).
func (v *vm) contentFromLua(x lua.LValue) ([]provider.Block, error) {
	switch x := x.(type) {
	case *lua.LNilType:
		return []provider.Block{}, nil
	case lua.LString:
		return []provider.Block{provider.Text(string(x))}, nil
	case *lua.LTable:
		blocks := make([]provider.Block, 0, x.Len())
		for i := 1; i <= x.Len(); i++ {
			b, ok := x.RawGetInt(i).(*lua.LTable)
			if !ok {
				return nil, fmt.Errorf("content[%d]: want a block table", i)
			}
			if mt := b.RawGetString("mime_type"); mt != lua.LNil && b.RawGetString("mimeType") == lua.LNil {
				b.RawSetString("mimeType", mt)
			}
			var blk provider.Block
			if err := v.fromLuaInto(b, &blk); err != nil {
				return nil, fmt.Errorf("content[%d]: %w", i, err)
			}
			blocks = append(blocks, blk)
		}
		return blocks, nil
	}
	return nil, fmt.Errorf("content: want a string or a list of blocks, got %s", x.Type())
}

func (v *vm) registerTool(L *lua.LState) int {
	def := L.CheckTable(1)
	name := optString(L, def, "name")
	if !isToolName(name) {
		L.ArgError(1, fmt.Sprintf("tool name %q: use 1-64 letters, digits, _ or -", name))
	}
	execute, ok := def.RawGetString("execute").(*lua.LFunction)
	if !ok {
		L.ArgError(1, fmt.Sprintf("tool %q: execute must be a function", name))
	}
	params, err := v.schemaJSON(def.RawGetString("parameters"))
	if err != nil {
		L.ArgError(1, fmt.Sprintf("tool %q: parameters: %v", name, err))
	}
	guidelines, err := stringList("prompt_guidelines", def.RawGetString("prompt_guidelines"))
	if err != nil {
		L.ArgError(1, fmt.Sprintf("tool %q: %v", name, err))
	}
	writes, err := stringList("writes", def.RawGetString("writes"))
	if s, ok := def.RawGetString("writes").(lua.LString); ok {
		writes, err = []string{string(s)}, nil
	}
	if err != nil {
		L.ArgError(1, fmt.Sprintf("tool %q: %v", name, err))
	}
	timeout := optSeconds(L, def, "timeout")
	if timeout == 0 {
		timeout = v.r.opts.ToolTimeout
	}
	extras := v.readToolExtras(L, name, def)
	selfShell := false
	switch shell := optString(L, def, "render_shell"); shell {
	case "", "default":
	case "self":
		selfShell = true
	default:
		L.ArgError(1, fmt.Sprintf("tool %q: render_shell %q: want \"default\" or \"self\"", name, shell))
	}
	t := &luaTool{selfShell: selfShell, r: v.r, timeout: timeout, prepare: extras.prepare != nil, renderCall: extras.renderCall != nil,
		renderResult: extras.renderResult != nil, writes: writes, info: tools.Info{Name: name, Label: optString(L, def, "label"), Description: optString(L, def, "description"),
			Parameters: params, Sequential: lua.LVAsBool(def.RawGetString("sequential")), ReadOnly: lua.LVAsBool(def.RawGetString("read_only")),
			Snippet: optString(L, def, "prompt_snippet"), Guidelines: guidelines,
			NoConstrainedSampling: def.RawGetString("constrained_sampling") == lua.LFalse, Deferred: lua.LVAsBool(def.RawGetString("deferred"))}}
	if _, dup := v.toolFns[name]; dup {
		v.r.notify("warning", "lua: %s: tool %q registered again; the later one wins", v.script, name)
	}
	v.toolFns[name] = execute
	if v.ext.tools == nil {
		v.ext.tools = map[string]toolExtras{}
	}
	v.ext.tools[name] = extras
	v.tools = append(removeTool(v.tools, name), t)
	v.r.publish(v)
	return 0
}

func removeTool(ts []*luaTool, name string) []*luaTool {
	out := ts[:0:0]
	for _, t := range ts {
		if t.info.Name != name {
			out = append(out, t)
		}
	}
	return out
}

// schemaJSON turns the parameters table into a JSON Schema and checks that it compiles. No
// table means a tool without parameters.
func (v *vm) schemaJSON(x lua.LValue) (json.RawMessage, error) {
	if x == lua.LNil {
		return json.RawMessage(`{"type":"object","properties":{}}`), nil
	}
	if _, ok := x.(*lua.LTable); !ok {
		return nil, fmt.Errorf("want a JSON Schema table, got %s", x.Type())
	}
	d, err := v.fromLua(x)
	if err != nil {
		return nil, err
	}
	m, ok := d.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("want a JSON Schema object, got a list")
	}
	if _, has := m["type"]; !has {
		m["type"] = "object"
	}
	data, err := json.Marshal(fixEmptyLists(m, false))
	if err != nil {
		return nil, err
	}
	if _, err := tools.CompileSchema(data); err != nil {
		return nil, err
	}
	return data, nil
}

// listKeyword reports the schema keywords whose value is a list: an empty Lua table there
// means an empty list, not an empty object.
func listKeyword(k string) bool {
	switch k {
	case "required", "enum", "anyOf", "oneOf", "allOf", "type":
		return true
	}
	return false
}

// fixEmptyLists rewrites {} to [] under list keywords; inProps marks a properties map, whose
// keys are property names, not keywords.
func fixEmptyLists(x any, inProps bool) any {
	switch x := x.(type) {
	case map[string]any:
		for k, e := range x {
			if em, ok := e.(map[string]any); ok && len(em) == 0 && listKeyword(k) && !inProps {
				x[k] = []any{}
				continue
			}
			x[k] = fixEmptyLists(e, !inProps && (k == "properties" || k == "$defs" || k == "definitions"))
		}
	case []any:
		for i, e := range x {
			x[i] = fixEmptyLists(e, false)
		}
	}
	return x
}

// MergeTools is how a host applies Lua tools: a Lua tool named like a built-in takes the
// built-in's place (same position in the list, so the system prompt keeps its order); the
// others are appended in registration order.
func MergeTools(builtins, scripted []tools.Tool) []tools.Tool {
	byName := make(map[string]tools.Tool, len(scripted))
	for _, t := range scripted {
		byName[t.Info().Name] = t
	}
	out := make([]tools.Tool, 0, len(builtins)+len(scripted))
	used := map[string]bool{}
	for _, b := range builtins {
		name := b.Info().Name
		if s, ok := byName[name]; ok {
			out = append(out, s)
			used[name] = true
			continue
		}
		out = append(out, b)
	}
	for _, s := range scripted {
		if !used[s.Info().Name] {
			out = append(out, s)
		}
	}
	return out
}

// publish copies what the scripts registered into the Runtime, where other goroutines read it.
// Called on the owner goroutine after every registration.
func (r *Runtime) publish(v *vm) {
	ts := make([]tools.Tool, len(v.tools))
	for i, t := range v.tools {
		ts[i] = t
	}
	cmds := make([]Command, 0, len(v.commands))
	for _, c := range v.commands {
		c.r = r
		cmds = append(cmds, c)
	}
	placeholders, sleepEvents := v.sleepersPublished(r)
	cmds = append(cmds, placeholders...)
	sort.Slice(cmds, func(i, j int) bool { return cmds[i].Name < cmds[j].Name })
	events := make(map[string]int, len(v.handlers))
	for e, hs := range v.handlers {
		events[e] = len(hs)
	}
	guards := 0
	for _, h := range v.handlers["tool_call"] {
		if h.guard {
			guards++
		}
	}
	r.mu.Lock()
	r.tools, r.cmds, r.events, r.guards, r.sleepEvents = ts, cmds, events, guards, sleepEvents
	r.shortcuts = v.shortcutList()
	r.stringFlags = nil
	for name, f := range v.ext.flags {
		if f.typ == "string" {
			r.stringFlags = append(r.stringFlags, name)
		}
	}
	sort.Strings(r.stringFlags)
	r.providers = v.provs.definitions(r)
	r.mu.Unlock()
}

// hasGuards reports whether a guard tool_call handler is registered.
func (r *Runtime) hasGuards() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.guards > 0
}

// usageFromLua reads a tool's own model usage, {input, output, cache_read?, cache_write?,
// cost?} (cost: the total in dollars); nil without one.
func usageFromLua(x lua.LValue) *provider.Usage {
	t, ok := x.(*lua.LTable)
	if !ok {
		return nil
	}
	n := func(k string) int { v, _ := t.RawGetString(k).(lua.LNumber); return int(v) }
	u := &provider.Usage{Input: n("input"), Output: n("output"), CacheRead: n("cache_read"), CacheWrite: n("cache_write")}
	u.TotalTokens = u.Input + u.Output + u.CacheRead + u.CacheWrite
	if c, ok := t.RawGetString("cost").(lua.LNumber); ok {
		u.Cost.Total = float64(c)
	}
	return u
}
