package lua

import (
	"context"
	"fmt"

	lua "github.com/yuin/gopher-lua"
)

// Command is a slash command a script registered.
//
// A command with a run function runs at once when the user types /name args, even while the
// agent works (Runnable reports it). A command without one only lists a name for completion:
// its text goes through Input like any prompt, where a script expands it (prompt templates and
// /skill:name work this way).
type Command struct {
	Name         string // without the slash
	Description  string
	ArgumentHint string // shown after the name in completion menus
	Source       string // the script that registered it
	// HasComplete reports a complete(prefix) function for argument completion.
	HasComplete bool
	runnable    bool
	r           *Runtime
}

// Runnable reports whether the command has a run function; otherwise send its text through
// Input.
func (c Command) Runnable() bool { return c.runnable }

// Run runs the command's run(args, ctx) and waits for it. ctx ends it (Escape); so does the
// command timeout.
func (c Command) Run(ctx context.Context, args string) error {
	if c.r == nil || !c.runnable {
		return fmt.Errorf("command /%s has no run function", c.Name)
	}
	var runErr error
	first := true
	t := newTask(ctx, c.r.opts.CommandTimeout, func(v *vm, rets []lua.LValue, err error) *call {
		if first {
			first = false
			fns := v.cmdFns[c.Name]
			if fns.run == nil {
				runErr = fmt.Errorf("command /%s is no longer defined", c.Name)
				return nil
			}
			cctx := v.L.NewTable()
			cctx.RawSetString("cwd", lua.LString(v.r.opts.Cwd))
			cctx.RawSetString("name", lua.LString(c.Name))
			return &call{fn: fns.run, args: []lua.LValue{lua.LString(args), cctx}}
		}
		if err != nil {
			runErr = fmt.Errorf("command /%s: %s", c.Name, cleanError(err))
		}
		return nil
	})
	t.trigger = &wakeTrigger{kind: wakeCommand, name: c.Name}
	if err := c.r.submit(ctx, t); err != nil {
		return fmt.Errorf("command /%s: %w", c.Name, err)
	}
	return runErr
}

// Complete asks the command's complete(prefix) for argument completions. Errors become a
// notice and no completions.
func (c Command) Complete(ctx context.Context, prefix string) []string {
	if c.r == nil || !c.HasComplete {
		return nil
	}
	var out []string
	first := true
	t := newTask(ctx, c.r.opts.HookTimeout, func(v *vm, rets []lua.LValue, err error) *call {
		if first {
			first = false
			fns := v.cmdFns[c.Name]
			if fns.complete == nil {
				return nil
			}
			return &call{fn: fns.complete, args: []lua.LValue{lua.LString(prefix)}}
		}
		if err == nil && len(rets) > 0 {
			out, err = stringList("completions", rets[0])
		}
		if err != nil {
			v.r.notify("error", "lua: completing /%s: %v", c.Name, cleanError(err))
		}
		return nil
	})
	if c.r.submit(ctx, t) != nil {
		return nil
	}
	return out
}
