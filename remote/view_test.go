package remote

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/gdamore/tcell/v2"

	"pi/internal/testwait"
	"pi/server"
	"pi/tui"
)

// headless is a view with a screen and no server, for what needs none.
func headless(t *testing.T) *attached {
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	v := &view{ctx: ctx, cancel: cancel, keys: tui.DefaultKeymap()}
	scr := &screen{}
	v.ui = tui.NewApp(scr, 240, 60, tui.Callbacks{}, tui.Options{ManualFrames: true, Cwd: t.TempDir()})
	return &attached{v: v, scr: scr, cancel: cancel}
}

func text(s string) map[string]any { return map[string]any{"type": "text", "text": s} }

// A snapshot's transcript is drawn whole: user and assistant messages, finished and running
// tools, and a reply still streaming becomes the partial one deltas extend.
func TestShowDrawsTheSnapshot(t *testing.T) {
	cases := []struct {
		name      string
		items     []any
		want      []string
		streaming bool
		working   bool
	}{
		{"a conversation", []any{
			map[string]any{"role": "user", "content": []any{text("what is in main.go")}},
			map[string]any{"role": "assistant", "status": "done", "content": []any{text("a main function")}},
		}, []string{"what is in main.go", "a main function"}, false, false},
		{"a reply streaming", []any{
			map[string]any{"role": "user", "content": []any{text("count")}},
			map[string]any{"role": "assistant", "status": "streaming", "content": []any{text("one two")}},
		}, []string{"count", "one two"}, true, true},
		{"tools finished and running", []any{
			map[string]any{"role": "tool", "status": "done", "toolCallId": "c1", "toolName": "read", "input": map[string]any{"path": "go.mod"},
				"content": []any{text("module pi")}},
			map[string]any{"role": "tool", "status": "running", "toolCallId": "c2", "toolName": "bash", "input": map[string]any{"command": "make lint"}},
		}, []string{"go.mod", "make lint"}, false, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			a := headless(t)
			phase := "idle"
			if c.working {
				phase = "turn"
			}
			a.v.show(map[string]any{"id": "s1", "cwd": "/proj", "phase": phase, "transcript": c.items,
				"model": map[string]any{"provider": "ollama", "id": "qwen3:8b"}})
			for _, w := range c.want {
				if !a.shown(w) {
					t.Errorf("the screen lacks %q:\n%s", w, a.scr.text())
				}
			}
			a.v.mu.Lock()
			streaming, gotPhase, cwd := a.v.partial != nil, a.v.phase, a.v.cwd
			a.v.mu.Unlock()
			if streaming != c.streaming || gotPhase != phase || cwd != "/proj" {
				t.Errorf("partial %v phase %q cwd %q", streaming, gotPhase, cwd)
			}
			if !a.shown("ollama/qwen3:8b") && !a.shown("qwen3:8b") {
				t.Errorf("the footer lacks the model:\n%s", a.scr.text())
			}
		})
	}
}

// state takes the steering queue from the snapshot and drops the follow-ups once idle.
func TestStateKeepsTheQueue(t *testing.T) {
	cases := []struct {
		phase      string
		keepFollow bool
	}{{"turn", true}, {"idle", false}}
	for _, c := range cases {
		a := headless(t)
		a.v.followUps = []string{"then run the tests"}
		a.v.state(map[string]any{"phase": c.phase, "cwd": "/p", "name": "fixes",
			"queuedSteer": []any{map[string]any{"role": "user", "content": []any{text("use tabs")}}}})
		a.v.mu.Lock()
		steer, follow, foot := a.v.steer, a.v.followUps, a.v.foot
		a.v.mu.Unlock()
		if !slices.Equal(steer, []string{"use tabs"}) || (follow != nil) != c.keepFollow || foot.Session != "fixes" || foot.Cwd != "/p" {
			t.Errorf("%s: steer %q follow %q footer %+v", c.phase, steer, follow, foot)
		}
		if !a.shown("use tabs") {
			t.Errorf("%s: the queue is not shown:\n%s", c.phase, a.scr.text())
		}
	}
}

// Progress events stream a reply into the screen: started, deltas appended to the right
// block, finished; a delta out of range or with no reply streaming is dropped.
func TestProgressStreamsAReply(t *testing.T) {
	a := headless(t)
	started := map[string]any{"role": "assistant", "content": []any{map[string]any{"type": "thinking", "thinking": ""}, text("")}}
	steps := []map[string]any{
		{"type": "item_started", "item": map[string]any{"role": "user", "content": []any{text("say hello")}}},
		{"type": "item_started", "item": started},
		{"type": "assistant_delta", "kind": "thinking", "contentIndex": int64(0), "delta": "greet them"},
		{"type": "assistant_delta", "kind": "text", "contentIndex": int64(1), "delta": "Hello"},
		{"type": "assistant_delta", "kind": "text", "contentIndex": int64(1), "delta": ", world"},
		{"type": "assistant_delta", "kind": "text", "contentIndex": int64(7), "delta": "lost"},
		{"type": "assistant_delta", "kind": "image", "contentIndex": int64(1), "delta": "ignored"},
	}
	for _, p := range steps {
		a.v.progress(p)
	}
	a.v.mu.Lock()
	got := a.v.partial.Content[1].Text + "|" + a.v.partial.Content[0].Thinking
	a.v.mu.Unlock()
	if got != "Hello, world|greet them" {
		t.Fatalf("the partial reply is %q", got)
	}
	a.v.progress(map[string]any{"type": "item_finished", "item": map[string]any{"role": "assistant", "content": []any{text("Hello, world!")}}})
	a.v.mu.Lock()
	partial := a.v.partial
	a.v.mu.Unlock()
	if partial != nil {
		t.Fatal("a finished reply is still streaming")
	}
	a.v.delta(map[string]any{"kind": "text", "contentIndex": int64(0), "delta": "after the end"}) // no panic, no text
	for _, w := range []string{"say hello", "Hello, world!"} {
		if !a.shown(w) {
			t.Errorf("the screen lacks %q:\n%s", w, a.scr.text())
		}
	}
	if a.shown("after the end") || a.shown("lost") {
		t.Errorf("a dropped delta was drawn:\n%s", a.scr.text())
	}

	// A tool call starts and finishes with its output.
	a.v.progress(map[string]any{"type": "item_started", "item": map[string]any{"role": "tool", "toolCallId": "t1", "toolName": "bash",
		"input": map[string]any{"command": "go vet ./..."}}})
	a.v.progress(map[string]any{"type": "item_finished", "item": map[string]any{"role": "tool", "toolCallId": "t1", "toolName": "bash",
		"isError": true, "content": []any{text("vet: unreachable code")}}})
	for _, w := range []string{"go vet ./...", "vet: unreachable code"} {
		if !a.shown(w) {
			t.Errorf("the screen lacks %q:\n%s", w, a.scr.text())
		}
	}
}

// The slash commands that only talk to the server send the RPC command they stand for, with
// its fields, and show its answer.
func TestCommandsSendTheirRPC(t *testing.T) {
	cases := []struct {
		name, args string
		answer     string
		rpc        string
		fields     map[string]any
		shows      string
	}{
		{"name", "refactor", "", "set_session_name", map[string]any{"name": "refactor"}, ""},
		{"compact", "keep the API", "", "compact", map[string]any{"customInstructions": "keep the API"}, "compacted"},
		{"clone", "", "", "clone", nil, ""},
		{"scoped-models", "ollama/*, openai/gpt-4o ,", rpcOK(map[string]any{"scoped": true,
			"models": []any{map[string]any{"provider": "ollama", "id": "qwen3"}, map[string]any{"provider": "openai", "id": "gpt-4o"}}}),
			"scoped_models", map[string]any{"patterns": []any{"ollama/*", "openai/gpt-4o"}}, "ctrl+p cycles through the scope: ollama/qwen3, openai/gpt-4o"},
		{"scoped-models", "", rpcOK(map[string]any{"scoped": false, "models": []any{}}), "scoped_models", map[string]any{}, "ctrl+p cycles through every available model"},
		{"export", "/tmp/out.html", rpcOK(map[string]any{"path": "/tmp/out.html"}), "export_html", map[string]any{"outputPath": "/tmp/out.html"}, "exported to /tmp/out.html"},
		{"session", "", rpcOK(map[string]any{"sessionId": "sess-1", "sessionFile": "/s.jsonl", "totalMessages": 4,
			"tokens": map[string]any{"input": 120, "output": 30}, "cost": 0.5}), "get_session_stats", nil, "4 messages · 120 tokens in, 30 out · $0.5000"},
		{"deploy", "now", "", "prompt", map[string]any{"message": "/deploy now", "streamingBehavior": "steer"}, ""},
		{"name", "x", rpcFailed("the session is read-only"), "set_session_name", map[string]any{"name": "x"}, "/name: the session is read-only"},
		{"copy", "", rpcOK(map[string]any{}), "get_last_assistant_text", nil, "no reply to copy yet"},
	}
	for _, c := range cases {
		t.Run(c.name+" "+c.args, func(t *testing.T) {
			k := startKit(t, func(map[string]any) string {
				if c.answer != "" {
					return c.answer
				}
				return rpcOK(map[string]any{})
			})
			a := attach(t, k)
			a.v.command(c.name, c.args)
			got := a.rt.nextRPC(t)
			if got["type"] != c.rpc {
				t.Fatalf("sent %v, want %s", got, c.rpc)
			}
			for f, want := range c.fields {
				if !equalJSON(got[f], want) {
					t.Errorf("%s = %#v, want %#v", f, got[f], want)
				}
			}
			if _, has := got["patterns"]; c.rpc == "scoped_models" && len(c.fields) == 0 && has {
				t.Errorf("no argument sent patterns %v", got["patterns"])
			}
			if c.shows != "" {
				a.shows(t, c.shows)
			}
		})
	}
}

func equalJSON(a, b any) bool {
	as, bs := strings.ReplaceAll(strings.TrimSpace(jsonString(a)), " ", ""), strings.ReplaceAll(jsonString(b), " ", "")
	return as == bs
}

// /new creates a session in the server's cwd of this one, moves the view there, detaches
// from the old one and lists the new one's commands.
func TestNewMovesToANewSession(t *testing.T) {
	k := startKit(t, nil)
	a := attach(t, k)
	old := a.v.session()
	a.v.command("new", "")
	if got := a.v.session(); got == old || got == "" {
		t.Fatalf("the view stayed on %q (was %q)", got, old)
	}
	fresh := k.runtime(1)
	if cmd := fresh.nextRPC(t); cmd["type"] != "get_commands" {
		t.Errorf("the new session was first asked %v", cmd)
	}
	a.shows(t, "new session: "+a.v.session()+" (left "+old+" in pi serve)")
	res, err := a.v.c.Request(context.Background(), map[string]any{"command": "list"})
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, s := range res["sessions"].([]any) {
		ids = append(ids, str(s.(map[string]any)["id"]))
	}
	if !slices.Contains(ids, a.v.session()) {
		t.Errorf("the new session is not listed: %v", ids)
	}
	// The connection left the old session: it has no client now, the new one has this one.
	st, err := a.v.c.Request(context.Background(), map[string]any{"command": "pi_status"})
	if err != nil {
		t.Fatal(err)
	}
	clients := map[string]int{}
	for _, l := range st["live"].([]any) {
		m := l.(map[string]any)
		clients[str(m["id"])] = integer(m["clients"])
	}
	if clients[old] != 0 || clients[a.v.session()] != 1 {
		t.Errorf("clients by session %v (old %s)", clients, old)
	}
}

// /label picks an entry of the tree and sends its new label.
func TestLabelSendsTheEntryAndLabel(t *testing.T) {
	k := startKit(t, func(cmd map[string]any) string {
		if cmd["type"] == "get_tree" {
			return rpcOK(map[string]any{"leafId": "e2", "entries": []any{
				map[string]any{"id": "e1", "parentId": nil, "type": "message", "role": "user", "preview": "first question"},
				map[string]any{"id": "e2", "parentId": "e1", "type": "message", "role": "assistant", "preview": "an answer"},
			}})
		}
		return rpcOK(map[string]any{})
	})
	a := attach(t, k)
	done := make(chan struct{})
	go func() { a.v.command("label", ""); close(done) }()
	if cmd := a.rt.nextRPC(t); cmd["type"] != "get_tree" {
		t.Fatalf("first %v", cmd)
	}
	a.shows(t, "Label which entry?")
	a.press(tcell.KeyUp, tcell.KeyEnter) // from the current entry (e2) up to e1
	a.shows(t, "Label (empty to clear)")
	a.typeText("start")
	a.press(tcell.KeyEnter)
	cmd := a.rt.nextRPC(t)
	if cmd["type"] != "set_label" || cmd["entryId"] != "e1" || cmd["label"] != "start" {
		t.Fatalf("sent %v", cmd)
	}
	testwait.Receive(t, "/label to finish", done)
	a.shows(t, "labelled")
}

// Ctrl+P and Shift+Tab send cycle_model and cycle_thinking_level and say what they got.
func TestCycling(t *testing.T) {
	cases := []struct {
		name   string
		answer string
		cycle  func(v *view)
		rpc    string
		shows  string
	}{
		{"next model", rpcOK(map[string]any{"model": map[string]any{"provider": "ollama", "id": "llama3"}}),
			func(v *view) { v.cycleModel(1) }, "cycle_model", "model: ollama/llama3"},
		{"no model to cycle to", rpcOK(map[string]any{}), func(v *view) { v.cycleModel(-1) }, "cycle_model", "no other model to cycle to"},
		{"cycle fails", rpcFailed("no models"), func(v *view) { v.cycleModel(1) }, "cycle_model", "no models"},
		{"thinking level", rpcOK(map[string]any{"level": "high"}), func(v *view) { v.cycleThinking() }, "cycle_thinking_level", "thinking: high"},
		{"a model that does not think", `{"type":"response","success":true,"data":null}`, func(v *view) { v.cycleThinking() },
			"cycle_thinking_level", "this model does not think"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			k := startKit(t, func(map[string]any) string { return c.answer })
			a := attach(t, k)
			c.cycle(a.v)
			if cmd := a.rt.nextRPC(t); cmd["type"] != c.rpc {
				t.Fatalf("sent %v", cmd)
			} else if c.rpc == "cycle_model" && cmd["step"] == nil {
				t.Errorf("no step in %v", cmd)
			}
			a.shows(t, c.shows)
		})
	}
}

// The model picker offers the server's models and sets the chosen one with v1's set_model.
func TestPickModelSetsTheChosenOne(t *testing.T) {
	k := startKit(t, nil)
	a := attach(t, k)
	a.v.mu.Lock()
	a.v.models = append(a.v.models, map[string]any{"provider": "ollama", "id": "qwen3:8b"})
	a.v.mu.Unlock()
	a.v.state(map[string]any{"phase": "idle", "model": map[string]any{"provider": "faux", "id": "faux-1"}})
	done := make(chan struct{})
	go func() { a.v.pickModel(); close(done) }()
	a.shows(t, "Select a model")
	a.press(tcell.KeyDown, tcell.KeyEnter)
	testwait.Receive(t, "the picker to finish", done)
	if got := a.rt.setModels(); !slices.Equal(got, []string{"ollama/qwen3:8b"}) {
		t.Fatalf("set_model calls %v", got)
	}
}

// rpc's failures: the command's own error, an answer that is not JSON, a session the
// connection is not attached to, and a closed connection.
func TestRPCErrors(t *testing.T) {
	k := startKit(t, func(cmd map[string]any) string {
		switch cmd["type"] {
		case "fails":
			return rpcFailed("unknown command: fails")
		case "garbled":
			return "{not json"
		}
		return rpcOK(map[string]any{"ok": true})
	})
	a := attach(t, k)
	if data, err := a.v.rpc("works", nil); err != nil || data["ok"] != true {
		t.Fatalf("works: %v %v", data, err)
	}
	if _, err := a.v.rpc("fails", nil); err == nil || err.Error() != "unknown command: fails" {
		t.Errorf("fails: %v", err)
	}
	if _, err := a.v.rpc("garbled", nil); err == nil || !strings.Contains(err.Error(), "the answer to garbled") {
		t.Errorf("garbled: %v", err)
	}
	a.v.mu.Lock()
	real := a.v.id
	a.v.id = "no-such-session"
	a.v.mu.Unlock()
	if _, err := a.v.rpc("works", nil); err == nil {
		t.Error("an RPC on a session not attached worked")
	}
	a.v.mu.Lock()
	a.v.id = real
	a.v.mu.Unlock()
	a.v.c.Close()
	if _, err := a.v.rpc("works", nil); !errors.Is(err, server.ErrClosed) {
		t.Errorf("after close: %v", err)
	}
}

// A command that moves the session (clone, fork) leaves the view on the new one, drawn.
func TestRPCFollowsAMovedSession(t *testing.T) {
	k := startKit(t, nil)
	a := attach(t, k)
	moved := "sess-clone"
	a.rt.answer = func(cmd map[string]any) string {
		if cmd["type"] == "clone" {
			a.rt.id.Store(&moved)
		}
		return rpcOK(map[string]any{})
	}
	a.v.command("clone", "")
	if got := a.v.session(); got != moved {
		t.Fatalf("the view is on %q", got)
	}
	a.shows(t, "now in session "+moved)
}

// piEvent: a later failed answer, the follow-up queue and a retry reach the screen.
func TestPiEvents(t *testing.T) {
	a := headless(t)
	a.v.piEvent(`{"type":"response","success":false,"error":"the model is gone"}`)
	a.v.piEvent(`{"type":"queue_update","steering":["s1"],"followUp":["after that, commit"]}`)
	a.v.piEvent(`{"type":"auto_retry_start","attempt":1,"maxAttempts":3,"delayMs":2000,"errorMessage":"overloaded"}`)
	a.v.piEvent(`not json`)
	a.v.mu.Lock()
	follow := a.v.followUps
	a.v.mu.Unlock()
	if !slices.Equal(follow, []string{"after that, commit"}) {
		t.Errorf("follow-ups %q", follow)
	}
	for _, w := range []string{"the model is gone", "after that, commit", "overloaded"} {
		if !a.shown(w) {
			t.Errorf("the screen lacks %q:\n%s", w, a.scr.text())
		}
	}
}

// follow says so when the connection to the server ends.
func TestFollowSaysWhenTheConnectionEnds(t *testing.T) {
	k := startKit(t, nil)
	a := attach(t, k)
	done := make(chan struct{})
	go func() { a.v.follow(); close(done) }()
	a.v.c.Close()
	testwait.Receive(t, "follow to end", done)
	a.shows(t, "the connection to pi serve ended")
}
