package lua

import (
	"context"
	"os"
	"path/filepath"

	lua "github.com/yuin/gopher-lua"
)

// UserBash is what user_bash handlers made of a shell command the user typed (!cmd, !!cmd, or
// RPC's bash): nothing (run it), a result that stands in for running it, or a refusal.
type UserBash struct {
	Handled bool   // a handler supplied the result: the command does not run
	Blocked string // non-empty: a handler refused the command, for this reason
	// The result when Handled, as pi's BashResult.
	Output         string
	ExitCode       *int
	Cancelled      bool
	Truncated      bool
	FullOutputPath string
}

// UserBashEvent runs the user_bash handlers: ev = {command, exclude_from_context, cwd}, as pi
// sends it. The first handler that returns {result = {output, exit_code, cancelled, truncated,
// full_output_path}} supplies the result (exit_code 0 unless given or cancelled); {block = true, reason} refuses the command. A nil
// Runtime lets every command run.
func (r *Runtime) UserBashEvent(ctx context.Context, command string, exclude bool) (out UserBash) {
	if r == nil || !r.HasHandlers("user_bash") {
		return out
	}
	r.chain(ctx, "user_bash", false, func(v *vm) []lua.LValue {
		return []lua.LValue{v.toLua(map[string]any{"command": command, "exclude_from_context": exclude, "cwd": r.opts.Cwd})}
	}, func(v *vm, ret lua.LValue, h handler) bool {
		t, ok := ret.(*lua.LTable)
		if !ok {
			return false
		}
		if lua.LVAsBool(t.RawGetString("block")) {
			out.Blocked = "blocked by a script"
			if s, ok := t.RawGetString("reason").(lua.LString); ok && s != "" {
				out.Blocked = string(s)
			}
			return true
		}
		res, ok := t.RawGetString("result").(*lua.LTable)
		if ok {
			out.Handled = true
			out.Output = lua.LVAsString(res.RawGetString("output"))
			out.Cancelled, out.Truncated = lua.LVAsBool(res.RawGetString("cancelled")), lua.LVAsBool(res.RawGetString("truncated"))
			if n, ok := res.RawGetString("exit_code").(lua.LNumber); ok || !out.Cancelled {
				code := int(n) // 0 when not given, unless it was cancelled (killed: no code)
				out.ExitCode = &code
			}
			out.FullOutputPath = lua.LVAsString(res.RawGetString("full_output_path"))
		}
		return ok
	}, nil, nil)
	return out
}

// Resources are the paths resources_discover handlers added: skill and prompt-template files
// or folders and theme files or folders, absolute (relative ones are taken from the project).
type Resources struct {
	Skills, Prompts, Themes []string
}

// DiscoverResources runs the resources_discover handlers (ev = {cwd, reason}, reason "startup"
// or "reload"), each of which may return {skill_paths, prompt_paths, theme_paths}, and
// collects their paths in handler order. Late handlers (the bundled skills and templates
// scripts) see what the others added so far in ev.skill_paths and ev.prompt_paths, and
// load those. Themes are for the terminal UI (Runtime.Resources).
func (r *Runtime) DiscoverResources(ctx context.Context, reason string) Resources {
	var res Resources
	if !r.HasHandlers("resources_discover") {
		return res
	}
	var ev *lua.LTable
	r.chain(ctx, "resources_discover", false, func(v *vm) []lua.LValue {
		ev = v.L.NewTable()
		ev.RawSetString("cwd", lua.LString(r.opts.Cwd))
		ev.RawSetString("reason", lua.LString(reason))
		for _, k := range []string{"skill_paths", "prompt_paths", "theme_paths"} {
			ev.RawSetString(k, v.L.NewTable())
		}
		return []lua.LValue{ev}
	}, func(v *vm, ret lua.LValue, h handler) bool {
		t, ok := ret.(*lua.LTable)
		if !ok {
			return false
		}
		for _, f := range []struct {
			key string
			dst *[]string
		}{{"skill_paths", &res.Skills}, {"prompt_paths", &res.Prompts}, {"theme_paths", &res.Themes}} {
			paths, err := stringList(f.key, t.RawGetString(f.key))
			if err != nil {
				v.r.notify("error", "lua: resources_discover handler (%s): %v", h.script, err)
				continue
			}
			all := ev.RawGetString(f.key).(*lua.LTable)
			for _, p := range paths {
				if !filepath.IsAbs(p) {
					p = filepath.Join(r.opts.Cwd, p)
				}
				*f.dst = append(*f.dst, p)
				all.Append(lua.LString(p))
			}
		}
		return false
	}, nil, nil)
	r.mu.Lock()
	r.themes = res.Themes
	r.mu.Unlock()
	return res
}

// SessionStarted emits session_start {reason = "startup"}, then runs resources_discover, as pi
// does when it starts.
func (r *Runtime) SessionStarted(ctx context.Context) {
	r.Emit(ctx, "session_start", map[string]any{"reason": "startup"})
	r.DiscoverResources(ctx, "startup")
}

// ThemeDirs are the folders of theme files beyond pi's own: each loaded package's themes/,
// then what resources_discover handlers added. A nil Runtime has none.
func (r *Runtime) ThemeDirs() []string {
	if r == nil {
		return nil
	}
	r.waitReady()
	r.mu.Lock()
	defer r.mu.Unlock()
	var dirs []string
	for _, p := range r.packages {
		if fi, err := os.Stat(filepath.Join(p, "themes")); err == nil && fi.IsDir() {
			dirs = append(dirs, filepath.Join(p, "themes"))
		}
	}
	return append(dirs, r.themes...)
}
