package lua

import (
	"bytes"
	"context"
	"slices"
	"strings"
	"testing"

	lua "github.com/yuin/gopher-lua"
)

func TestParseWakes(t *testing.T) {
	cases := []struct {
		name, src string
		want      []wakeSpec
		wantErr   string
	}{
		{"no header", "pi.on('input', function() end)\n-- @wake input", nil, ""},
		{"a first line that is not a comment", "#!/usr/bin/env lua\n-- @wake input", nil, ""},
		{"events, commands, subcommands", "-- what the script does\n\n--@wake tool_call writes\n  -- @wake session_before_tree\n" +
			"-- @wake /undo put the files back\n-- @wake\tpi checkpoints   the snapshots\nlocal x = 1\n-- @wake input\n",
			[]wakeSpec{{kind: wakeEvent, name: "tool_call", writes: true}, {kind: wakeEvent, name: "session_before_tree"},
				{kind: wakeCommand, name: "undo", description: "put the files back"},
				{kind: wakeSubcommand, name: "checkpoints", description: "the snapshots"}}, ""},
		{"a word that only begins with @wake", "-- @wakeful thoughts\n-- @wake /x", []wakeSpec{{kind: wakeCommand, name: "x"}}, ""},
		{"nothing after @wake", "-- @wake", nil, "line 1: @wake names nothing"},
		{"an unknown event", "--\n-- @wake tool_cal", nil, "line 2: @wake tool_cal: unknown event"},
		{"writes on another event", "-- @wake input writes", nil, "only tool_call takes a word"},
		{"another word after tool_call", "-- @wake tool_call reads", nil, "only tool_call takes a word"},
		{"a command's description follows its name", "-- @wake /un do", []wakeSpec{{kind: wakeCommand, name: "un", description: "do"}}, ""},
		{"an empty command name", "-- @wake / x", nil, "a command name uses"},
		{"a bad subcommand word", "-- @wake pi", nil, `@wake pi "": a subcommand word`},
		{"a script event", "-- @wake before_restore", nil, "cannot wake another"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := parseWakes(tc.src)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("err = %v, want one containing %q", err, tc.wantErr)
				}
				return
			}
			if err != nil || !slices.Equal(got, tc.want) {
				t.Errorf("parseWakes = %+v, %v; want %+v", got, err, tc.want)
			}
		})
	}
}

// FuzzParseWakes: any header parses or fails with an error, never a panic, and what it
// accepts names only real events and valid command words.
func FuzzParseWakes(f *testing.F) {
	for _, s := range []string{"-- @wake tool_call writes\n-- @wake /undo x\n-- @wake pi checkpoints y", "-- @wake", "--@wake\t/\n", "\n\n-- @wake pi a b c"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, src string) {
		wakes, err := parseWakes(src)
		if err != nil {
			return
		}
		for _, w := range wakes {
			if w.kind == wakeEvent && !knownEvent(w.name) || w.kind != wakeEvent && !isCommandName(w.name) || w.writes && w.name != "tool_call" {
				t.Errorf("accepted %+v from %q", w, src)
			}
		}
	})
}

// sleepy is a project script that sleeps until a writing tool call, a move in the tree, /hello
// or `pi hello`; it says when it loads and what it handled.
const sleepy = `-- a script that is not needed in most runs
-- @wake tool_call writes
-- @wake session_before_tree
-- @wake /hello greets the user
-- @wake pi hello says hello on the command line
pi.notify("sleepy loaded")
pi.on("tool_call", function(ev) return {block = true, reason = "sleepy saw " .. ev.tool_name} end)
pi.on("session_before_tree", function(ev) return {cancel = true} end)
pi.on("turn_end", function() pi.notify("sleepy turn_end") end)
pi.register_command{name = "hello", description = "greets", run = function(args) pi.notify("hello " .. args) end}
pi.register_subcommand{name = "hello", run = function(args, io) io.print("hello from the shell") return 0 end}
`

// sleepers names the scripts still asleep in r.
func sleepers(t *testing.T, r *Runtime) []string {
	t.Helper()
	var names []string
	task := newTask(ctxT(t), r.opts.HookTimeout, func(v *vm, _ []lua.LValue, _ error) *call {
		for _, s := range v.sleeping {
			names = append(names, s.name)
		}
		return nil
	})
	if err := r.submit(ctxT(t), task); err != nil {
		t.Fatal(err)
	}
	return names
}

func TestASleepingScriptWakesAtItsFirstTrigger(t *testing.T) {
	cases := []struct {
		name  string
		fire  func(t *testing.T, r *Runtime)
		wakes bool
		saw   string // a notice the woken script's handler gave for the trigger itself
	}{
		{"a read-only tool call", func(t *testing.T, r *Runtime) {
			if v := r.CheckToolCall(ctxT(t), ToolCallEvent{Name: "read", ID: "1", ReadOnly: true}); v.Block {
				t.Error("a sleeping script's handler ran for a read-only call")
			}
		}, false, ""},
		{"an event it does not wake for", func(t *testing.T, r *Runtime) {
			r.Emit(ctxT(t), "turn_end", map[string]any{})
			r.Flush(ctxT(t))
		}, false, ""},
		{"a tool call that may change files", func(t *testing.T, r *Runtime) {
			if v := r.CheckToolCall(ctxT(t), ToolCallEvent{Name: "bash", ID: "1"}); v.Reason != "sleepy saw bash" {
				t.Errorf("verdict %+v: the handler the call woke did not see it", v)
			}
		}, true, ""},
		{"a move in the tree", func(t *testing.T, r *Runtime) {
			if !r.BeforeSession(ctxT(t), "session_before_tree", map[string]any{"target_id": "a"}) {
				t.Error("the handler the move woke did not cancel it")
			}
		}, true, ""},
		{"its command", func(t *testing.T, r *Runtime) {
			if err := command(t, r, "hello").Run(ctxT(t), "you"); err != nil {
				t.Fatal(err)
			}
		}, true, "hello you"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t)
			r := e.start(t, sleepy)
			if got := sleepers(t, r); len(got) != 1 {
				t.Fatalf("asleep after start: %v, want the project script", got)
			}
			if c := command(t, r, "hello"); c.Description != "greets the user" || !c.Runnable() || !strings.HasSuffix(c.Source, "init.lua") {
				t.Errorf("/hello before the script loads: %+v, want the header's description", c)
			}
			if !r.HasHandlers("tool_call") || r.HasHandlers("turn_end") {
				t.Error("HasHandlers must count the events that wake the script, and only those")
			}
			tc.fire(t, r)
			_, loaded := e.noticeContaining("sleepy loaded")
			if loaded != tc.wakes || len(sleepers(t, r)) == 0 != tc.wakes {
				t.Fatalf("loaded = %v, want %v (notices %v)", loaded, tc.wakes, e.notices())
			}
			if _, ok := e.noticeContaining(tc.saw); tc.saw != "" && !ok {
				t.Errorf("no notice %q: %v", tc.saw, e.notices())
			}
			if tc.wakes && command(t, r, "hello").Description != "greets" {
				t.Error("/hello still shows the header's description after the script registered its own")
			}
			if tc.wakes && !r.HasHandlers("turn_end") {
				t.Error("the woken script's other handlers are not listened for")
			}
			e.noErrors(t)
		})
	}
}

func TestASleepingSubcommandWakesItsScript(t *testing.T) {
	e := newEnv(t)
	e.write(t, ".pi/init.lua", sleepy)
	var out, errb bytes.Buffer
	code, err := RunSubcommand(ctxT(t), e.opts, "hello", nil, &out, &errb)
	if code != 0 || err != nil || out.String() != "hello from the shell\n" {
		t.Errorf("pi hello: %d, %v, stdout %q, stderr %q", code, err, out.String(), errb.String())
	}
	r := e.start(t, "")
	names, err := r.Subcommands(ctxT(t))
	if err != nil || names["hello"] != "says hello on the command line" {
		t.Errorf("Subcommands = %v, %v: want the sleeping script's word with its header's description", names, err)
	}
}

func TestASleepingScriptThatFailsToLoadIsANotice(t *testing.T) {
	cases := []struct {
		name, src, want string
		loaded          bool // its chunk ran, up to the error
	}{
		{"a bad header: it loads at start", "-- @wake tool_cal\npi.notify('sleepy loaded')", "loading it at start instead", true},
		{"a syntax error, at the wake", "-- @wake /hello\npi.notify('sleepy loaded'", "script not loaded", false},
		{"an error while loading, at the wake", "-- @wake /hello\npi.notify('sleepy loaded')\nerror('half way')", "half way", true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t)
			r := e.start(t, tc.src)
			for _, c := range r.Commands() {
				if c.Name == "hello" {
					if err := c.Run(ctxT(t), ""); err == nil || !strings.Contains(err.Error(), "no longer defined") {
						t.Errorf("/hello after its script failed to load: %v", err)
					}
				}
			}
			if _, ok := e.noticeContaining(tc.want); !ok {
				t.Errorf("no notice %q: %v", tc.want, e.notices())
			}
			if _, ok := e.noticeContaining("sleepy loaded"); ok != tc.loaded {
				t.Errorf("the chunk ran: %v, want %v (%v)", ok, tc.loaded, e.notices())
			}
		})
	}
}

// The bundled checkpoints script sleeps through a run whose calls change nothing, and the
// first call that may change files wakes it in time to snapshot the files before the call.
func TestCheckpointsSleepUntilACallMayChangeFiles(t *testing.T) {
	e := newEnv(t)
	e.opts.Disabled = nil
	e.write(t, "a.txt", "one\n")
	r := e.start(t, `pi.register_command{name = "first", run = function()
		local l = pi.checkpoint.list()
		local c = l[1] and pi.checkpoint.diff(l[1].id) or {}
		pi.notify("first: " .. (l[1] and l[1].note or "none") .. " " .. (c[1] and c[1].op .. " " .. c[1].path or "same"))
	end}`)
	ctx := context.Background()
	turn := func(c ToolCallEvent) {
		r.Emit(ctx, "agent_start", map[string]any{})
		r.Emit(ctx, "turn_start", map[string]any{"turn_index": 0})
		r.CheckToolCall(ctx, c)
		if !c.ReadOnly {
			e.write(t, "a.txt", "two\n") // what the call does
		}
		r.Emit(ctx, "turn_end", map[string]any{"turn_index": 0})
		r.Emit(ctx, "agent_end", map[string]any{})
		r.Flush(ctx)
	}
	turn(ToolCallEvent{Name: "read", ID: "1", Args: map[string]any{"path": "a.txt"}, ReadOnly: true})
	if got := sleepers(t, r); !slices.Equal(got, []string{"bundled/checkpoints.lua"}) {
		t.Fatalf("asleep after a read-only turn: %v, want the checkpoints script", got)
	}
	turn(ToolCallEvent{Name: "bash", ID: "2", Args: map[string]any{"command": "echo two > a.txt"}})
	if got := sleepers(t, r); len(got) != 0 {
		t.Fatalf("still asleep after a call that may change files: %v", got)
	}
	if err := command(t, r, "first").Run(ctxT(t), ""); err != nil {
		t.Fatal(err)
	}
	if _, ok := e.noticeContaining("first: before bash modified a.txt"); !ok {
		t.Errorf("want the first snapshot taken before the call, with a.txt as it was: %v", e.notices())
	}
}
