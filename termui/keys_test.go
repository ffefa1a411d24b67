package termui

import (
	"context"
	"slices"
	"testing"

	"github.com/gdamore/tcell/v2"

	"pi/internal/testwait"
	"pi/provider"
	"pi/session"
)

// The keys: Shift+Tab steps the thinking level, Ctrl+P and Shift+Ctrl+P the model, each
// saying what it got or why nothing changed.
func TestCycling(t *testing.T) {
	cases := []struct {
		name  string
		setup func(*fake)
		run   func(*Controller)
		call  string
		shows string
	}{
		{"thinking", func(f *fake) { f.level = "high" }, (*Controller).CycleThinking, "CycleThinking", "thinking: high"},
		{"a model that does not think", func(f *fake) { f.state.Model = provider.Model{Provider: "ollama", ID: "qwen2.5:0.5b"} },
			(*Controller).CycleThinking, "CycleThinking", "qwen2.5:0.5b does not think; thinking stays off"},
		{"a model that does not think, unnamed", nil, (*Controller).CycleThinking, "CycleThinking", "this model does not think; thinking stays off"},
		{"thinking refused", func(f *fake) { f.failing = map[string]error{"CycleThinking": errBoom} }, (*Controller).CycleThinking, "CycleThinking", errBoom.Error()},
		{"next model", func(f *fake) { f.next = &provider.Model{Provider: "ollama", ID: "llama3"} }, func(c *Controller) { c.CycleModel(1) },
			"CycleModel 1", "model: ollama/llama3"},
		{"no other model", nil, func(c *Controller) { c.CycleModel(-1) }, "CycleModel -1", "no other model to cycle to (see /scoped-models)"},
		{"cycling refused", func(f *fake) { f.failing = map[string]error{"CycleModel": errBoom} }, func(c *Controller) { c.CycleModel(1) },
			"CycleModel 1", errBoom.Error()},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			f := &fake{}
			if tc.setup != nil {
				tc.setup(f)
			}
			r := newRig(t, f)
			tc.run(r.c)
			checkCalls(t, f.recorded(), []string{tc.call, "Refresh"}, nil)
			r.shows(t, tc.shows)
		})
	}
}

// The screen's keys reach the controller: each named key runs its command, and a key the
// controller does not have is left to the screen.
func TestKeysRunTheirCommands(t *testing.T) {
	cases := map[string]string{"thinking": "CycleThinking", "cycle-model": "CycleModel 1", "cycle-model-back": "CycleModel -1",
		"model": "Models", "tree": "Tree"}
	for key, call := range cases {
		f := &fake{}
		r := newRig(t, f)
		if !r.c.Callbacks().OnKey(key) {
			t.Errorf("%s is not taken", key)
		}
		testwait.Until(t, key+" to call "+call, func() bool { return slices.Contains(f.recorded(), call) })
	}
	if newRig(t, &fake{}).c.Callbacks().OnKey("no-such-key") {
		t.Error("an unknown key was taken")
	}
}

// What the user types goes to the session as typed, Enter and Alt+Enter saying how; a
// follow-up naming one of the controller's commands runs it instead. Escape aborts.
func TestTypedLines(t *testing.T) {
	f := &fake{}
	r := newRig(t, f)
	cb := r.c.Callbacks()
	cb.OnSubmit("hello")
	testwait.Until(t, "the prompt", func() bool { return slices.Contains(f.recorded(), "Send hello 0") })
	cb.OnSteer("use tabs")
	testwait.Until(t, "the steer", func() bool { return slices.Contains(f.recorded(), "Send use tabs 1") })
	cb.OnFollowUp("then commit")
	testwait.Until(t, "the follow-up", func() bool { return slices.Contains(f.recorded(), "Send then commit 2") })
	cb.OnFollowUp("/name late")
	testwait.Until(t, "the /name follow-up", func() bool { return slices.Contains(f.recorded(), "Rename late") })
	cb.OnFollowUp("/deploy")
	testwait.Until(t, "a script's follow-up", func() bool { return slices.Contains(f.recorded(), "Send /deploy 2") })
	cb.OnAbort()
	cb.OnShortcut("ctrl+alt+p")
	cb.OnQuit()
	testwait.Until(t, "abort, shortcut, quit", func() bool {
		calls := f.recorded()
		return slices.Contains(calls, "Abort") && slices.Contains(calls, "RunShortcut ctrl+alt+p") && slices.Contains(calls, "Quit")
	})
	f.failing = map[string]error{"Send": errBoom}
	cb.OnSubmit("refused")
	r.shows(t, errBoom.Error())
}

// A !cmd shows a bash box with the session's output, marked failed when the command failed,
// was cancelled or could not run; the screen is held working meanwhile.
func TestBash(t *testing.T) {
	zero, two := 0, 2
	cases := []struct {
		name   string
		keep   bool
		result session.BashResult
		err    error
		call   string
		shows  string
	}{
		{"kept", true, session.BashResult{Output: "\nREADME.md\n", ExitCode: &zero}, nil, "Bash ls false", "README.md"},
		{"not kept, failing", false, session.BashResult{Output: "boom", ExitCode: &two}, nil, "Bash ls true", "(exit code 2)"},
		{"cancelled", true, session.BashResult{Output: "part", ExitCode: &zero, Cancelled: true}, nil, "Bash ls false", "(cancelled)"},
		{"refused", true, session.BashResult{}, errBoom, "Bash ls false", errBoom.Error()},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			f := &fake{bash: tc.result}
			if tc.err != nil {
				f.failing = map[string]error{"Bash": tc.err}
			}
			r := newRig(t, f)
			r.c.Bash("ls", tc.keep)
			checkCalls(t, f.recorded(), []string{tc.call}, nil)
			r.shows(t, tc.shows)
			if f.held != 0 {
				t.Errorf("the screen is still held")
			}
		})
	}
}

// The completion list: the controller's commands worded for the session, then the scripts'
// with their argument completion; the scripts' shortcut keys are bound.
func TestCommandList(t *testing.T) {
	f := &fake{notes: Notes{Exit: "detach", ExitDescription: "leave the session running in pi serve",
		Descriptions: map[string]string{"new": "start a new session in pi serve and attach to it"}}}
	var asked string
	f.scripts = []Command{{Name: "deploy", Description: "ship it", Complete: func(ctx context.Context, arg string) []string {
		if _, ok := ctx.Deadline(); !ok {
			t.Error("completion without a deadline")
		}
		asked = arg
		return []string{"prod", "staging"}
	}}}
	r := newRig(t, f)
	names := map[string]string{}
	for _, c := range r.c.Builtins() {
		names[c.Name] = c.Description
	}
	if names["detach"] != f.notes.ExitDescription || names["new"] != f.notes.Descriptions["new"] || names["quit"] != "" ||
		names["model"] != "pick the model" || len(names) != 21 {
		t.Errorf("builtins %v", names)
	}
	r.c.LoadCommands()
	checkCalls(t, f.recorded(), []string{"Commands", "Shortcuts"}, nil)
	for _, k := range "/dep" {
		r.ui.HandleEvent(tcell.NewEventKey(tcell.KeyRune, k, tcell.ModNone))
	}
	r.shows(t, "ship it")
	for _, k := range "loy p" {
		r.ui.HandleEvent(tcell.NewEventKey(tcell.KeyRune, k, tcell.ModNone))
	}
	r.shows(t, "prod")
	if asked == "" {
		t.Error("the script's completion was not asked")
	}
	r.c.Command("hotkeys", "")
	r.shows(t, "plan mode")
}

// A session that lists no scripts' commands (an old pi serve) keeps the controller's own.
func TestCommandListWithoutScripts(t *testing.T) {
	f := &fake{failing: map[string]error{"Commands": errBoom}}
	r := newRig(t, f)
	r.c.LoadCommands()
	if slices.Contains(f.recorded(), "Shortcuts") {
		t.Error("shortcuts asked of a session that lists no commands")
	}
}

// An undecided project is asked about at start; a decided one, or one decided elsewhere, not.
func TestAskTrust(t *testing.T) {
	cases := []struct {
		name      string
		undecided bool
		elsewhere string
		keys      []tcell.Key
		call      string
	}{
		{"asked, yes", true, "", []tcell.Key{tcell.KeyRune}, "SetTrust true"},
		{"asked, dismissed", true, "", []tcell.Key{tcell.KeyEscape}, "SetTrust false"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			f := &fake{undecided: tc.undecided, notes: Notes{Project: "/proj"}}
			r := newRig(t, f)
			done := make(chan struct{})
			go func() { r.c.AskTrust(); close(done) }()
			r.shows(t, "/proj/.pi/init.lua runs with your permissions")
			if tc.keys[0] == tcell.KeyRune {
				r.ui.HandleEvent(tcell.NewEventKey(tcell.KeyRune, 'y', tcell.ModNone))
			} else {
				r.ui.HandleEvent(tcell.NewEventKey(tc.keys[0], 0, tcell.ModNone))
			}
			testwait.Receive(t, "the question to end", done)
			checkCalls(t, f.recorded(), []string{tc.call}, nil)
		})
	}
	for _, f := range []*fake{{}, {undecided: true, notes: Notes{Trust: "pi serve decides"}}} {
		r := newRig(t, f)
		r.c.AskTrust()
		checkCalls(t, f.recorded(), nil, []string{"SetTrust"})
	}
}
