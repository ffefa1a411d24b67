package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"pi/internal/pitest"
	"pi/live"
	"pi/permission"
	"pi/provider"
	"pi/provider/faux"
)

// subagentEventRouter: the parent hands "TASK" to an explore child, which reads a file and
// answers; then the parent answers.
func subagentEventRouter(who string, last provider.Message, req *provider.Request) provider.Message {
	switch {
	case strings.Contains(who, "TASK") && last.Role == provider.RoleUser:
		return pitest.SubCall("read", map[string]any{"path": "notes.txt"})
	case strings.Contains(who, "TASK"):
		return faux.Text("CHILD-ANSWER")
	case last.Role == provider.RoleUser:
		return pitest.SubCall("Agent", map[string]any{"prompt": "TASK: read notes.txt", "description": "scan", "subagent_type": "explore"})
	}
	return faux.Text("PARENT-DONE")
}

// TestSubagentEventsInJSONAndRPC: JSON mode and RPC mode carry the child's own events, each
// as {"type":"subagent_event","agentId":...,"event":{...}}, before the parent's Agent call ends.
func TestSubagentEventsInJSONAndRPC(t *testing.T) {
	for _, mode := range []string{"json", "rpc"} {
		t.Run(mode, func(t *testing.T) {
			h, _ := subagentSession(t, "[subagents]\nenabled = true\n", live.Options{}, subagentEventRouter)
			var lines []map[string]any
			switch mode {
			case "json":
				var out, errOut bytes.Buffer
				if code := runJSONMode(context.Background(), h, false, []string{"go"}, nil, &out, &errOut); code != 0 {
					t.Fatalf("exit %d: %s", code, errOut.String())
				}
				for _, l := range strings.Split(strings.TrimSpace(out.String()), "\n") {
					var v map[string]any
					if err := json.Unmarshal([]byte(l), &v); err != nil {
						t.Fatalf("not JSON: %q", l)
					}
					lines = append(lines, v)
				}
			case "rpc":
				inR, inW := io.Pipe()
				outR, outW := io.Pipe()
				done := make(chan int, 1)
				go func() { done <- runRPCMode(context.Background(), h, false, inR, outW, io.Discard); outW.Close() }()
				c := newRPCClient(t, inW, outR)
				c.prompt("go")
				inW.Close()
				for range c.lines { // the rest, until pi has closed stdout
				}
				<-done
				for _, l := range c.history {
					lines = append(lines, l)
				}
			}
			checkSubagentEvents(t, lines)
		})
	}
}

func checkSubagentEvents(t *testing.T, lines []map[string]any) {
	t.Helper()
	var inner []string
	lastSub, agentEnd := -1, -1
	for i, l := range lines {
		switch l["type"] {
		case "subagent_event":
			ev, _ := l["event"].(map[string]any)
			if l["agentId"] != "agent-1" || ev == nil {
				t.Fatalf("line %d: %v", i, l)
			}
			kind, _ := ev["type"].(string)
			if kind == "tool_execution_start" {
				kind += ":" + ev["toolName"].(string)
			}
			if msg, _ := ev["message"].(map[string]any); kind == "message_end" && msg["role"] == "assistant" {
				if c, _ := msg["content"].([]any); len(c) > 0 {
					if b, _ := c[0].(map[string]any); b["type"] == "text" {
						kind += ":" + b["text"].(string)
					}
				}
			}
			inner, lastSub = append(inner, kind), i
		case "tool_execution_end":
			if l["toolName"] == "Agent" {
				agentEnd = i
			}
		}
	}
	for _, want := range []string{"agent_start", "tool_execution_start:read", "message_end:CHILD-ANSWER", "agent_end"} {
		if !slices.Contains(inner, want) {
			t.Errorf("no %s among the child's events %v", want, inner)
		}
	}
	if slices.Contains(inner, "queue_update") {
		t.Errorf("the child's queue_update is passed on: %v", inner)
	}
	if agentEnd < 0 || lastSub > agentEnd {
		t.Errorf("child's last event at line %d, the Agent call's end at %d", lastSub, agentEnd)
	}
}

// TestSubagentPrintModeWaitsForBackgroundChildren: in print mode pi does not exit while a
// background child runs: it waits for the child and for the turn its notice starts, whose
// reply is the one printed.
func TestSubagentPrintModeWaitsForBackgroundChildren(t *testing.T) {
	h, _ := subagentSession(t, "[subagents]\nenabled = true\n", live.Options{}, func(who string, last provider.Message, req *provider.Request) provider.Message {
		text := last.TextContent()
		switch {
		case strings.Contains(who, "TASK") && last.Role == provider.RoleUser:
			return pitest.SubCall("bash", map[string]any{"command": "sleep 0.5"})
		case strings.Contains(who, "TASK"):
			return faux.Text("BG-ANSWER")
		case last.Role == provider.RoleUser && strings.Contains(text, "Background agent agent-1"):
			return faux.Text("NOTICE-SEEN")
		case last.Role == provider.RoleUser:
			return pitest.SubCall("Agent", map[string]any{"prompt": "TASK: look", "description": "bg", "run_in_background": true})
		}
		return faux.Text("STARTED")
	})
	var out, errOut bytes.Buffer
	if code := runPrintMode(context.Background(), h, []string{"go"}, nil, &out, &errOut); code != 0 {
		t.Fatalf("exit %d: %s", code, errOut.String())
	}
	if got := strings.TrimSpace(out.String()); got != "NOTICE-SEEN" {
		t.Fatalf("printed %q, want the reply to the child's notice", got)
	}
}

// askUI answers every question Yes and keeps the titles.
type askUI struct {
	mu     sync.Mutex
	titles []string
}

func (u *askUI) Select(_ context.Context, title string, _ []string) (string, bool, error) {
	u.mu.Lock()
	defer u.mu.Unlock()
	u.titles = append(u.titles, title)
	return permission.AnswerYes, true, nil
}
func (u *askUI) Confirm(context.Context, string, string) (bool, error)        { return true, nil }
func (u *askUI) Input(context.Context, string, string) (string, bool, error)  { return "", false, nil }
func (u *askUI) Editor(context.Context, string, string) (string, bool, error) { return "", false, nil }
func (u *askUI) Notify(string, string)                                        {}
func (u *askUI) ExtensionUI(string, map[string]any)                           {}

// TestSubagentAsksOnTheParentsScreen: in the ask permission mode a child's call is put to the
// user on the parent's screen, named as the child's; the answer lets it run.
func TestSubagentAsksOnTheParentsScreen(t *testing.T) {
	h, _ := subagentSession(t, "[subagents]\nenabled = true\n", live.Options{Permissions: "ask"}, func(who string, last provider.Message, req *provider.Request) provider.Message {
		switch {
		case strings.Contains(who, "TASK") && last.Role == provider.RoleUser:
			return pitest.SubCall("bash", map[string]any{"command": "echo child-ran"})
		case strings.Contains(who, "TASK"):
			return faux.Text("child: " + last.TextContent())
		case last.Role == provider.RoleUser:
			return pitest.SubCall("Agent", map[string]any{"prompt": "TASK: run it", "description": "r"})
		}
		return faux.Text("done")
	})
	ui := &askUI{}
	h.SetUI(ui)
	send(t, h, "go")
	ui.mu.Lock()
	defer ui.mu.Unlock()
	if !slices.ContainsFunc(ui.titles, func(s string) bool {
		return strings.HasPrefix(s, "agent-1 (a subagent) asks · Allow bash: echo child-ran")
	}) {
		t.Errorf("questions asked: %q", ui.titles)
	}
	if res := strings.Join(toolResultTexts(h), "\n"); !strings.Contains(res, "child: child-ran") {
		t.Errorf("the child's bash did not run after the yes: %s", res)
	}
}

// subagentSession builds a session as a front end does, with the Lua scripts (so the bundled
// subagents script) on one faux provider that all its children share.
func subagentSession(t *testing.T, toml string, o live.Options, r pitest.Router) (*live.Session, string) {
	t.Helper()
	home, cwd := pitest.SubagentHome(t, toml)
	o.Cwd, o.PiHome, o.Stderr = cwd, home, os.Stderr
	o.Provider, o.ProviderModel = pitest.RouterProvider(r), pitest.FauxModel(false)
	h, err := live.New(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(h.Close)
	return h, cwd
}

// toolResultTexts are the parent's tool results so far.
func toolResultTexts(h *live.Session) []string {
	return pitest.ToolResultTexts(h.Agent().MessagesView())
}

func send(t *testing.T, h *live.Session, text string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := h.Send(ctx, live.Input{Text: text, Source: live.SourceRPC}); err != nil {
		t.Fatal(err)
	}
}
