package lua

// subcommand.go is pi.register_subcommand: a script's `pi <word> args…` on the command line,
// run by RunSubcommand in a runtime of its own with no session (the bundled checkpoints
// script's `pi checkpoints` is one).

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"sort"
	"time"

	lua "github.com/yuin/gopher-lua"
)

type subcommandDef struct {
	run         *lua.LFunction
	description string
	script      string
}

// registerSubcommand is pi.register_subcommand{name, description, run = function(args, io)
// … end}: run gets the words after the name and io.print / io.eprint for stdout and stderr,
// and returns the exit status (nil is 0).
func (v *vm) registerSubcommand(L *lua.LState) int {
	def := L.CheckTable(1)
	name := optString(L, def, "name")
	if !isCommandName(name) {
		L.ArgError(1, fmt.Sprintf("subcommand name %q: use letters, digits, _ - . :", name))
	}
	run, ok := def.RawGetString("run").(*lua.LFunction)
	if !ok {
		L.ArgError(1, "subcommand "+name+": run must be a function")
	}
	if _, dup := v.subcmds[name]; dup {
		v.r.notify("warning", "lua: %s: subcommand %q registered again; the later one wins", v.script, name)
	}
	v.subcmds[name] = subcommandDef{run: run, description: optString(L, def, "description"), script: v.script}
	return 0
}

// ErrNoSubcommand is returned by RunSubcommand when no script registered the word.
var ErrNoSubcommand = errors.New("no script registers this subcommand")

// Subcommands maps the words the loaded scripts registered, and those sleeping scripts wake
// for, to their descriptions.
func (r *Runtime) Subcommands(ctx context.Context) (map[string]string, error) {
	var out map[string]string
	t := newTask(ctx, r.opts.HookTimeout, func(v *vm, _ []lua.LValue, _ error) *call {
		out = v.sleepingSubcommands()
		for name, d := range v.subcmds {
			out[name] = d.description
		}
		return nil
	})
	return out, r.submit(ctx, t)
}

// RunSubcommand loads the scripts as opts says (no session: Host.Session is nil) and runs the
// subcommand word with args, its output to stdout and stderr. It returns the exit status; an
// error (a script that raised, no such subcommand) is for the caller to print.
func RunSubcommand(ctx context.Context, opts Options, word string, args []string, stdout, stderr io.Writer) (int, error) {
	if opts.CommandTimeout <= 0 {
		opts.CommandTimeout = 24 * time.Hour // the user's own command: it runs as long as it needs
	}
	r, err := New(ctx, opts)
	if err != nil {
		return 1, err
	}
	defer r.Close()
	code, runErr := 0, error(nil)
	found := false
	first := true
	t := newTask(ctx, r.opts.CommandTimeout, func(v *vm, rets []lua.LValue, err error) *call {
		if first {
			first = false
			d, ok := v.subcmds[word]
			if !ok {
				return nil
			}
			found = true
			return &call{fn: d.run, args: []lua.LValue{v.stringArray(args), v.subcommandIO(stdout, stderr)}}
		}
		if err != nil {
			code, runErr = 1, fmt.Errorf("pi %s: %s", word, cleanError(err))
		} else if len(rets) > 0 {
			if n, ok := rets[0].(lua.LNumber); ok {
				code = int(n)
			}
		}
		return nil
	})
	t.trigger = &wakeTrigger{kind: wakeSubcommand, name: word}
	if err := r.submit(ctx, t); err != nil {
		return 1, fmt.Errorf("pi %s: %w", word, err)
	}
	if !found {
		names, _ := r.Subcommands(ctx)
		known := make([]string, 0, len(names))
		for n := range names {
			known = append(known, n)
		}
		sort.Strings(known)
		return 2, fmt.Errorf("pi %s: %w (scripts register: %v)", word, ErrNoSubcommand, known)
	}
	return code, runErr
}

func (v *vm) stringArray(ss []string) *lua.LTable {
	t := v.L.CreateTable(len(ss), 0)
	for _, s := range slices.Clone(ss) {
		t.Append(lua.LString(s))
	}
	return t
}

func (v *vm) subcommandIO(stdout, stderr io.Writer) *lua.LTable {
	t := v.L.NewTable()
	for name, w := range map[string]io.Writer{"print": stdout, "eprint": stderr} {
		t.RawSetString(name, v.L.NewFunction(func(L *lua.LState) int {
			for i := 1; i <= L.GetTop(); i++ {
				if i > 1 {
					io.WriteString(w, "\t")
				}
				io.WriteString(w, L.ToStringMeta(L.Get(i)).String())
			}
			io.WriteString(w, "\n")
			return 0
		}))
	}
	return t
}
