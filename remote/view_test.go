package remote

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"testing"

	"pi/internal/testwait"
	"pi/rpcwire"
	"pi/server"
	"pi/termui"
	"pi/tui"
)

// headless is a view with a screen and no server, for what needs none.
func headless(t *testing.T) *attached {
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	v := &view{ctx: ctx, cancel: cancel}
	scr := &screen{}
	v.ui = tui.NewApp(scr, 240, 60, tui.Callbacks{}, tui.Options{ManualFrames: true, Cwd: t.TempDir()})
	return &attached{v: v, scr: scr, cancel: cancel}
}

func text(s string) server.Content { return server.Content{Type: "text", Text: &s} }

// A snapshot's transcript is drawn whole: user and assistant messages, finished and running
// tools, and a reply still streaming becomes the partial one deltas extend.
func TestShowDrawsTheSnapshot(t *testing.T) {
	cases := []struct {
		name      string
		items     []server.Item
		want      []string
		streaming bool
		working   bool
	}{
		{"a conversation", []server.Item{
			{Role: "user", Content: []server.Content{text("what is in main.go")}},
			{Role: "assistant", Status: "done", Content: []server.Content{text("a main function")}},
		}, []string{"what is in main.go", "a main function"}, false, false},
		{"a reply streaming", []server.Item{
			{Role: "user", Content: []server.Content{text("count")}},
			{Role: "assistant", Status: "streaming", Content: []server.Content{text("one two")}},
		}, []string{"count", "one two"}, true, true},
		{"tools finished and running", []server.Item{
			{Role: "tool", Status: "done", ToolCallID: "c1", ToolName: "read", Input: json.RawMessage(`{"path":"go.mod"}`),
				Content: []server.Content{text("module pi")}, Details: json.RawMessage(`{"lines":1}`)},
			{Role: "tool", Status: "running", ToolCallID: "c2", ToolName: "bash", Input: json.RawMessage(`{"command":"make lint"}`)},
		}, []string{"go.mod", "make lint"}, false, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			a := headless(t)
			phase := "idle"
			if c.working {
				phase = "turn"
			}
			a.v.show(&server.SessionSnapshot{ID: "s1", Cwd: "/proj", Phase: phase, Transcript: c.items,
				Model: server.ModelRef{Provider: "ollama", ID: "qwen3:8b"}})
			for _, w := range c.want {
				if !a.shown(w) {
					t.Errorf("the screen lacks %q:\n%s", w, a.scr.text())
				}
			}
			a.v.mu.Lock()
			streaming := a.v.partial != nil
			a.v.mu.Unlock()
			if streaming != c.streaming {
				t.Errorf("partial %v", streaming)
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
		a.v.state(&server.SessionSnapshot{Phase: c.phase, Cwd: "/p", Name: "fixes",
			QueuedSteer: []server.Item{{Role: "user", Content: []server.Content{text("use tabs")}}}})
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
// block, finished; a delta out of range, without its fields or with no reply streaming is
// dropped.
func TestProgressStreamsAReply(t *testing.T) {
	a := headless(t)
	empty := ""
	started := server.Item{Role: "assistant", Content: []server.Content{{Type: "thinking", Thinking: &empty}, text("")}}
	delta := func(kind string, i int, d string) *server.Progress {
		return &server.Progress{Type: "assistant_delta", Kind: kind, ContentIndex: &i, Delta: &d}
	}
	steps := []*server.Progress{
		{Type: "item_started", Item: &server.Item{Role: "user", Content: []server.Content{text("say hello")}}},
		{Type: "item_started", Item: &started},
		delta("thinking", 0, "greet them"),
		delta("text", 1, "Hello"),
		delta("text", 1, ", world"),
		delta("text", 7, "lost"),
		delta("text", -1, "lost"),
		delta("image", 1, "ignored"),
		{Type: "assistant_delta", Kind: "text"}, // no index, no delta
		{Type: "item_started"},                  // no item
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
	a.v.progress(&server.Progress{Type: "item_updated", Item: &server.Item{Role: "assistant", Content: []server.Content{text("Hello, world")}}})
	a.v.progress(&server.Progress{Type: "item_finished", Item: &server.Item{Role: "assistant", Content: []server.Content{text("Hello, world!")}}})
	a.v.mu.Lock()
	partial := a.v.partial
	a.v.mu.Unlock()
	if partial != nil {
		t.Fatal("a finished reply is still streaming")
	}
	a.v.progress(delta("text", 0, "after the end")) // no panic, no text
	for _, w := range []string{"say hello", "Hello, world!"} {
		if !a.shown(w) {
			t.Errorf("the screen lacks %q:\n%s", w, a.scr.text())
		}
	}
	if a.shown("after the end") || a.shown("lost") {
		t.Errorf("a dropped delta was drawn:\n%s", a.scr.text())
	}
	// A tool call starts and finishes with its output.
	yes := true
	a.v.progress(&server.Progress{Type: "item_started", Item: &server.Item{Role: "tool", ToolCallID: "t1", ToolName: "bash",
		Input: json.RawMessage(`{"command":"go vet ./..."}`)}})
	a.v.progress(&server.Progress{Type: "item_finished", Item: &server.Item{Role: "tool", ToolCallID: "t1", ToolName: "bash",
		IsError: &yes, Content: []server.Content{text("vet: unreachable code")}}})
	for _, w := range []string{"go vet ./...", "vet: unreachable code"} {
		if !a.shown(w) {
			t.Errorf("the screen lacks %q:\n%s", w, a.scr.text())
		}
	}
}

// Every slash command sends the RPC command it stands for, with its fields, and shows its
// answer in the local UI's words.
func TestCommandsSendTheirRPC(t *testing.T) {
	cases := []struct {
		name, args string
		answer     string
		rpc        string
		fields     map[string]any
		shows      string
	}{
		{"name", "refactor", "", "set_session_name", map[string]any{"name": "refactor"}, ""},
		{"compact", "keep the API", rpcOK(map[string]any{"tokensBefore": 1200, "tokensAfter": 300, "summary": "s", "details": map[string]any{}}),
			"compact", map[string]any{"customInstructions": "keep the API"}, "compacted: 1200 → 300 tokens"},
		{"clone", "", "", "clone", nil, "cloned session: sess-1"},
		{"scoped-models", "ollama/*, openai/gpt-4o ,", "", "scoped_models", map[string]any{"patterns": []any{"ollama/*", "openai/gpt-4o"}}, ""},
		{"scoped-models", "all", "", "scoped_models", map[string]any{"patterns": []any{"all"}}, ""},
		{"scoped-models", "", rpcOK(map[string]any{"scoped": false, "models": []any{}}), "scoped_models", map[string]any{}, "ctrl+p cycles through every available model"},
		{"export", "/tmp/out.html", rpcOK(map[string]any{"path": "/tmp/out.html"}), "export_html", map[string]any{"outputPath": "/tmp/out.html"}, "exported to /tmp/out.html"},
		{"session", "", rpcOK(map[string]any{"sessionId": "sess-1", "sessionFile": "/s.jsonl", "totalMessages": 4, "userMessages": 2,
			"tokens": map[string]any{"input": 120, "output": 30}, "cost": 0.5}), "get_session_stats", nil,
			"4 messages (2 user, 0 assistant, 0 tool calls)"},
		{"deploy", "now", "", "prompt", map[string]any{"message": "/deploy now", "streamingBehavior": "steer"}, ""},
		{"name", "x", rpcFailed("the session is read-only"), "set_session_name", map[string]any{"name": "x"}, "the session is read-only"},
		{"copy", "", rpcOK(map[string]any{"text": nil}), "get_last_assistant_text", nil, "no reply to copy yet"},
		{"copy", "", rpcOK(map[string]any{"text": "the reply"}), "get_last_assistant_text", nil, "copied the last reply"},
		{"reload", "", "", "reload", nil, "scripts reloaded"},
		{"tree", "", rpcOK(map[string]any{"entries": []any{}, "leafId": nil}), "get_tree", nil, "the session is empty: nothing to pick yet"},
		{"fork", "", rpcOK(map[string]any{"messages": []any{}}), "get_fork_messages", nil, "nothing to fork from yet"},
		{"settings", "", rpcFailed("get_state failed here"), "get_state", nil, "get_state failed here"},
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
			a.ctrl.Command(c.name, c.args)
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

// The commands that need no server say what they say without one: /trust names who
// decides, /hotkeys lists the keys, /detach (and quit, exit) leaves.
func TestCommandsOfTheTerminal(t *testing.T) {
	k := startKit(t, nil)
	a := attach(t, k)
	a.ctrl.Command("trust", "on")
	a.shows(t, "is pi serve's decision, not this terminal's")
	a.shows(t, "pi trust /work/sess-1")
	a.ctrl.Command("hotkeys", "")
	a.shows(t, "ctrl+l")
	for _, name := range []string{"detach", "quit", "exit"} {
		b := attach(t, k)
		b.ctrl.Command(name, "")
		if b.v.ctx.Err() == nil {
			t.Errorf("/%s did not leave", name)
		}
	}
	names := map[string]string{}
	for _, c := range a.ctrl.Builtins() {
		names[c.Name] = c.Description
	}
	if names["detach"] == "" || names["quit"] != "" || !strings.Contains(names["new"], "pi serve") {
		t.Errorf("the commands offered: %v", names)
	}
}

// /new creates a session in the server's cwd of this one, moves the view there, detaches
// from the old one and lists the new one's commands.
func TestNewMovesToANewSession(t *testing.T) {
	k := startKit(t, nil)
	a := attach(t, k)
	old := a.v.session()
	a.ctrl.Command("new", "")
	if got := a.v.session(); got == old || got == "" {
		t.Fatalf("the view stayed on %q (was %q)", got, old)
	}
	fresh := k.runtime(1)
	if cmd := fresh.nextRPC(t); cmd["type"] != "get_commands" {
		t.Errorf("the new session was first asked %v", cmd)
	}
	a.shows(t, "new session: "+a.v.session()+" (left "+old+" in pi serve)")
	list, err := a.v.c.List(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if !slices.ContainsFunc(list, func(s server.SessionMetadata) bool { return s.ID == a.v.session() && s.Cwd == "/work/"+old }) &&
		!slices.ContainsFunc(list, func(s server.SessionMetadata) bool { return s.ID == a.v.session() }) {
		t.Errorf("the new session is not listed: %+v", list)
	}
	// The connection left the old session: it has no client now, the new one has this one.
	st, err := a.v.c.Request(context.Background(), map[string]any{"command": "pi_status"})
	if err != nil {
		t.Fatal(err)
	}
	var live []server.LiveStatus
	if err := server.As(st["live"], &live); err != nil {
		t.Fatal(err)
	}
	clients := map[string]int{}
	for _, l := range live {
		clients[l.ID] = l.Clients
	}
	if clients[old] != 0 || clients[a.v.session()] != 1 {
		t.Errorf("clients by session %v (old %s)", clients, old)
	}
}

// /resume attaches to another session of the server, shows its conversation and leaves the
// old one running.
func TestResumeMovesToTheChosenSession(t *testing.T) {
	k := startKit(t, nil)
	other := attach(t, k) // sess-1, with a conversation
	other.ctrl.Callbacks().OnSubmit("the other conversation")
	testwait.Until(t, "sess-1's reply", func() bool { return len(other.rt.ag.MessagesView()) >= 2 })
	a := attach(t, k) // sess-2
	done := make(chan struct{})
	go func() { a.ctrl.Command("resume", ""); close(done) }()
	a.shows(t, "Resume which session?")
	a.press(keyEnter)
	testwait.Receive(t, "/resume to finish", done)
	if a.v.session() != "sess-1" {
		t.Fatalf("the view is on %s", a.v.session())
	}
	a.shows(t, "resumed session: sess-1 (left sess-2 in pi serve)")
	a.shows(t, "the other conversation")
}

// /label picks an entry of the tree and sends its new label.
func TestLabelSendsTheEntryAndLabel(t *testing.T) {
	k := startKit(t, func(cmd map[string]any) string {
		if cmd["type"] == "get_tree" {
			return rpcOK(treeData())
		}
		return rpcOK(map[string]any{})
	})
	a := attach(t, k)
	done := make(chan struct{})
	go func() { a.ctrl.Command("label", ""); close(done) }()
	if cmd := a.rt.nextRPC(t); cmd["type"] != "get_tree" {
		t.Fatalf("first %v", cmd)
	}
	a.shows(t, "Label which entry?")
	a.press(keyUp, keyEnter) // from the current entry (e2) up to e1
	a.shows(t, "Label (empty to clear)")
	a.typeText("start")
	a.press(keyEnter)
	cmd := a.rt.nextRPC(t)
	if cmd["type"] != "set_label" || cmd["entryId"] != "e1" || cmd["label"] != "start" {
		t.Fatalf("sent %v", cmd)
	}
	testwait.Receive(t, "/label to finish", done)
	a.shows(t, "labelled")
}

func treeData() map[string]any {
	return map[string]any{"leafId": "e2", "entries": []any{
		map[string]any{"id": "e1", "parentId": nil, "type": "message", "role": "user", "preview": "first question"},
		map[string]any{"id": "e2", "parentId": "e1", "type": "message", "role": "assistant", "preview": "an answer"},
	}}
}

// /tree asks the server whether the move leaves messages, offers a summary, moves and puts
// the message moved off back in the editor; Escape at the question moves nothing.
func TestTreeMovesOnTheServer(t *testing.T) {
	for _, cancel := range []bool{false, true} {
		k := startKit(t, func(cmd map[string]any) string {
			switch cmd["type"] {
			case "get_tree":
				return rpcOK(treeData())
			case "leaves_conversation":
				return rpcOK(map[string]any{"leaves": true})
			case "navigate_tree":
				return rpcOK(map[string]any{"cancelled": false, "leafId": "e1", "editorText": "first question"})
			}
			return rpcOK(map[string]any{})
		})
		a := attach(t, k)
		done := make(chan struct{})
		go func() { a.ctrl.Tree(); close(done) }()
		a.shows(t, "Continue from which point?")
		a.press(keyUp, keyEnter)
		a.shows(t, "Summarise the branch you are leaving?")
		if cancel {
			a.press(keyEscape)
			testwait.Receive(t, "/tree to finish", done)
			for _, want := range []string{"get_tree", "leaves_conversation"} {
				if cmd := a.rt.nextRPC(t); cmd["type"] != want {
					t.Fatalf("sent %v, want %s", cmd, want)
				}
			}
			select {
			case cmd := <-a.rt.rpcs:
				t.Fatalf("a cancelled /tree sent %v", cmd)
			default:
			}
			continue
		}
		a.press(keyDown, keyEnter) // summarise it
		testwait.Receive(t, "/tree to finish", done)
		var nav map[string]any
		for nav == nil || nav["type"] != "navigate_tree" {
			nav = a.rt.nextRPC(t)
		}
		if nav["targetId"] != "e1" || nav["summarize"] != true {
			t.Fatalf("sent %v", nav)
		}
		a.shows(t, "moved in the session tree; the conversation now reads:")
		if a.v.bashing.Load() != 0 {
			t.Error("the summary's hold is still on")
		}
	}
}

// Ctrl+P and Shift+Tab send cycle_model and cycle_thinking_level and say what they got.
func TestCycling(t *testing.T) {
	cases := []struct {
		name   string
		answer string
		cycle  func(c *termui.Controller)
		rpc    string
		shows  string
	}{
		{"next model", rpcOK(map[string]any{"model": map[string]any{"provider": "ollama", "id": "llama3"}}),
			func(c *termui.Controller) { c.CycleModel(1) }, "cycle_model", "model: ollama/llama3"},
		{"no model to cycle to", `{"type":"response","success":true,"data":null}`, func(c *termui.Controller) { c.CycleModel(-1) }, "cycle_model", "no other model to cycle to"},
		{"cycle fails", rpcFailed("no models"), func(c *termui.Controller) { c.CycleModel(1) }, "cycle_model", "no models"},
		{"thinking level", rpcOK(map[string]any{"level": "high"}), (*termui.Controller).CycleThinking, "cycle_thinking_level", "thinking: high"},
		{"a model that does not think", `{"type":"response","success":true,"data":null}`, (*termui.Controller).CycleThinking,
			"cycle_thinking_level", "does not think; thinking stays off"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			k := startKit(t, func(map[string]any) string { return c.answer })
			a := attach(t, k)
			c.cycle(a.ctrl)
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
	k := startKit(t, func(cmd map[string]any) string {
		return rpcOK(map[string]any{"model": map[string]any{"provider": "faux", "id": "faux-1"}, "thinkingLevel": "off"})
	})
	a := attach(t, k)
	a.v.mu.Lock()
	a.v.models = []server.ModelMetadata{{Provider: "faux", ID: "faux-1"}, {Provider: "ollama", ID: "qwen3:8b", ContextWindow: 40960}}
	a.v.mu.Unlock()
	done := make(chan struct{})
	go func() { a.ctrl.PickModel(); close(done) }()
	a.shows(t, "ollama/qwen3:8b  (40k context)")
	a.press(keyDown, keyEnter)
	testwait.Receive(t, "the picker to finish", done)
	if got := a.rt.setModels(); !slices.Equal(got, []string{"ollama/qwen3:8b"}) {
		t.Fatalf("set_model calls %v", got)
	}
	a.shows(t, "model: ollama/qwen3:8b")
}

// /settings shows the session's settings as get_state gives them and applies a change with
// the RPC command of that setting, for the session only.
func TestSettingsApplyToTheSession(t *testing.T) {
	k := startKit(t, func(cmd map[string]any) string {
		if cmd["type"] == "get_state" {
			return rpcOK(map[string]any{"model": map[string]any{"provider": "faux", "id": "faux-1"}, "thinkingLevel": "off",
				"steeringMode": "one-at-a-time", "followUpMode": "one-at-a-time", "autoCompactionEnabled": true})
		}
		return rpcOK(map[string]any{})
	})
	a := attach(t, k)
	done := make(chan struct{})
	go func() { a.ctrl.Command("settings", ""); close(done) }()
	a.shows(t, "Settings (saved to")
	a.press(keyDown, keyDown, keyEnter) // steering mode
	a.shows(t, "all")                   // the values' picker
	a.press(keyDown, keyEnter)
	testwait.Receive(t, "/settings to finish", done)
	var cmd map[string]any
	for cmd == nil || cmd["type"] == "get_state" {
		cmd = a.rt.nextRPC(t)
	}
	if cmd["type"] != "set_steering_mode" || cmd["mode"] != "all" {
		t.Fatalf("sent %v", cmd)
	}
	a.shows(t, "steering mode: all (for this session)")
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
		case "odd":
			return rpcOK([]any{"not", "an", "object"})
		}
		return rpcOK(map[string]any{"leaves": true})
	})
	a := attach(t, k)
	var data rpcwire.Leaves
	if _, err := a.v.rpc(rpcwire.Command{Type: "works"}, &data); err != nil || !data.Leaves {
		t.Fatalf("works: %v %v", data, err)
	}
	if _, err := a.v.rpc(rpcwire.Command{Type: "fails"}, nil); err == nil || err.Error() != "unknown command: fails" {
		t.Errorf("fails: %v", err)
	}
	if _, err := a.v.rpc(rpcwire.Command{Type: "garbled"}, nil); err == nil || !strings.Contains(err.Error(), "the answer to garbled") {
		t.Errorf("garbled: %v", err)
	}
	if _, err := a.v.rpc(rpcwire.Command{Type: "odd"}, &data); err == nil || !strings.Contains(err.Error(), "the answer to odd") {
		t.Errorf("data of the wrong shape: %v", err)
	}
	a.v.mu.Lock()
	real := a.v.id
	a.v.id = "no-such-session"
	a.v.mu.Unlock()
	if _, err := a.v.rpc(rpcwire.Command{Type: "works"}, nil); err == nil {
		t.Error("an RPC on a session not attached worked")
	}
	a.v.mu.Lock()
	a.v.id = real
	a.v.mu.Unlock()
	a.v.c.Close()
	if _, err := a.v.rpc(rpcwire.Command{Type: "works"}, nil); !errors.Is(err, server.ErrClosed) {
		t.Errorf("after close: %v", err)
	}
}

// A command that moves the session (clone, fork) leaves the view on the new one, drawn; a
// script's command that does says so.
func TestRPCFollowsAMovedSession(t *testing.T) {
	k := startKit(t, nil)
	a := attach(t, k)
	moved, scripted := "sess-clone", "sess-scripted"
	a.rt.answer = func(cmd map[string]any) string {
		switch cmd["type"] {
		case "clone":
			a.rt.id.Store(&moved)
		case "prompt":
			a.rt.id.Store(&scripted)
		}
		return rpcOK(map[string]any{})
	}
	a.ctrl.Command("clone", "")
	if got := a.v.session(); got != moved {
		t.Fatalf("the view is on %q", got)
	}
	a.shows(t, "cloned session: "+moved)
	a.ctrl.Command("new-branch", "")
	if got := a.v.session(); got != scripted {
		t.Fatalf("the view is on %q", got)
	}
	a.shows(t, "now in session "+scripted)
}

// piEvent: a later failed answer, the follow-up queue and a retry reach the screen.
func TestPiEvents(t *testing.T) {
	a := headless(t)
	a.v.piEvent(`{"type":"response","success":false,"error":"the model is gone"}`)
	a.v.piEvent(`{"type":"queue_update","steering":["s1"],"followUp":["after that, commit"]}`)
	a.v.piEvent(`{"type":"auto_retry_start","attempt":1,"maxAttempts":3,"delayMs":2000,"errorMessage":"overloaded"}`)
	a.v.piEvent(`{"type":"tool_execution_update","toolCallId":"t9","partialResult":{"content":[{"type":"text","text":"half way"}]}}`)
	a.v.piEvent(`not json`)
	a.v.piEvent(`{"type":"queue_update","steering":"not a list"}`)
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
	a.v.piEvent(`{"type":"auto_retry_end"}`)
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
