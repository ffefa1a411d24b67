package main

import (
	"context"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"pi/config"
	"pi/provider"
	"pi/provider/faux"
	"pi/session"
)

// router answers every model call of a parent and its children: who is the text of the
// call's first user message (the parent's prompt, or a child's task).
type router func(who string, last provider.Message, req *provider.Request) provider.Message

// subagentSession builds a harness with the Lua scripts (so the bundled subagents script)
// on one faux provider that all its children share.
func subagentSession(t *testing.T, toml string, o cliOptions, r router) (*harness, string) {
	t.Helper()
	home, cwd := t.TempDir(), t.TempDir()
	os.WriteFile(filepath.Join(cwd, "notes.txt"), []byte("the answer is 42\n"), 0o644)
	if err := os.WriteFile(filepath.Join(home, "pi.toml"), []byte(toml), 0o644); err != nil {
		t.Fatal(err)
	}
	return subagentSessionIn(t, home, cwd, o, r), cwd
}

func subagentSessionIn(t *testing.T, home, cwd string, o cliOptions, r router) *harness {
	t.Helper()
	cfg, err := config.Load(home, cwd, false)
	if err != nil {
		t.Fatal(err)
	}
	reply := func(req *provider.Request) provider.Message {
		who := ""
		for _, m := range req.Messages {
			if m.Role == provider.RoleUser {
				who = m.TextContent()
				break
			}
		}
		return r(who, req.Messages[len(req.Messages)-1], req)
	}
	steps := make([]faux.Step, 200)
	for i := range steps {
		steps[i] = faux.Reply(reply)
	}
	o.cwd = cwd
	p := parts{cfg: cfg, cwd: cwd, piHome: home, stderr: os.Stderr, provider: faux.New(steps...), model: fauxModel(false)}
	h, err := setupScripts(context.Background(), &o, p, false)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(h.close)
	return h
}

func subCall(name string, args map[string]any) provider.Message {
	m := faux.Blocks(faux.Call("call_"+name+time.Now().Format("150405.000000000"), name, args))
	m.StopReason = provider.StopToolUse
	return m
}

func toolNamesOf(req *provider.Request) []string {
	var out []string
	for _, t := range req.Tools {
		out = append(out, t.Name)
	}
	return out
}

// toolResultTexts are the parent's tool results so far.
func toolResultTexts(h *harness) []string {
	var out []string
	for _, m := range h.agent.MessagesView() {
		if m.Role == provider.RoleToolResult {
			out = append(out, m.TextContent())
		}
	}
	return out
}

func send(t *testing.T, h *harness, text string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := h.Send(ctx, Input{Text: text, Source: sourceRPC}); err != nil {
		t.Fatal(err)
	}
}

func TestSubagentForeground(t *testing.T) {
	var childTools, parentTools []string
	var agentDescription string
	var mu sync.Mutex
	h, _ := subagentSession(t, "[subagents]\nenabled = true\n", cliOptions{}, func(who string, last provider.Message, req *provider.Request) provider.Message {
		mu.Lock()
		defer mu.Unlock()
		if strings.Contains(who, "TASK") { // the explore child
			childTools = toolNamesOf(req)
			if last.Role == provider.RoleUser {
				return subCall("read", map[string]any{"path": "notes.txt"})
			}
			return faux.Text("notes.txt: " + last.TextContent())
		}
		if last.Role == provider.RoleUser {
			parentTools = toolNamesOf(req)
			for _, tl := range req.Tools {
				if tl.Name == "Agent" {
					agentDescription = tl.Description
				}
			}
			return subCall("Agent", map[string]any{"prompt": "TASK: what does notes.txt say?", "description": "scout", "subagent_type": "explore"})
		}
		return faux.Text("parent continues with: " + last.TextContent())
	})
	send(t, h, "go")
	msgs := h.agent.MessagesView()
	final := msgs[len(msgs)-1].TextContent()
	if !strings.Contains(final, "parent continues with") || !strings.Contains(final, "the answer is 42") {
		t.Fatalf("the parent's last reply %q should carry the child's answer", final)
	}
	if want := []string{"read", "grep", "find", "ls"}; !slices.Equal(childTools, want) {
		t.Errorf("explore child's tools %v, want %v", childTools, want)
	}
	if !slices.Contains(parentTools, "Agent") || !slices.Contains(parentTools, "get_subagent_result") {
		t.Errorf("parent's tools %v should include the subagent tools", parentTools)
	}
	for _, line := range []string{"\n- explore: ", "\n- general-purpose: "} {
		if !strings.Contains(agentDescription, line) {
			t.Errorf("Agent description should list %q on its own line:\n%s", line, agentDescription)
		}
	}
	file := regexp.MustCompile(`session_file: (\S+)`).FindStringSubmatch(final)
	if file == nil {
		t.Fatalf("no session file in %q", final)
	}
	s, err := session.Open(context.Background(), file[1])
	if err != nil {
		t.Fatal(err)
	}
	parent := h.rec.session().Path()
	if s.Header().ParentSession != parent || filepath.Dir(file[1]) != filepath.Dir(parent) {
		t.Errorf("child %s: parentSession %q, want %q in the same folder", file[1], s.Header().ParentSession, parent)
	}
}

func TestSubagentToolsOffByDefault(t *testing.T) {
	cases := []struct {
		name, toml string
		o          cliOptions
		want       bool
	}{
		{"default", "", cliOptions{}, false},
		{"enabled in pi.toml", "[subagents]\nenabled = true\n", cliOptions{}, true},
		{"named in --tools", "", cliOptions{toolList: "read,Agent,get_subagent_result"}, true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var seen []string
			h, _ := subagentSession(t, tc.toml, tc.o, func(_ string, _ provider.Message, req *provider.Request) provider.Message {
				seen = toolNamesOf(req)
				return faux.Text("ok")
			})
			send(t, h, "hi")
			if got := slices.Contains(seen, "Agent"); got != tc.want {
				t.Errorf("Agent offered: %v, want %v (tools %v)", got, tc.want, seen)
			}
		})
	}
}

func TestSubagentMaxTurnsStopsALoopingChild(t *testing.T) {
	var childCalls atomic.Int32
	h, _ := subagentSession(t, "[subagents]\nenabled = true\n", cliOptions{}, func(who string, last provider.Message, req *provider.Request) provider.Message {
		if strings.Contains(who, "LOOP") {
			childCalls.Add(1)
			return subCall("ls", map[string]any{})
		}
		if last.Role == provider.RoleUser {
			return subCall("Agent", map[string]any{"prompt": "LOOP forever", "description": "loop", "max_turns": 3})
		}
		return faux.Text("done: " + last.TextContent())
	})
	send(t, h, "go")
	res := toolResultTexts(h)
	if len(res) != 1 || !strings.Contains(res[0], "stopped at its turn limit") || !strings.Contains(res[0], "turns: 3") {
		t.Fatalf("result %q should say the child stopped after 3 turns", res)
	}
	if n := childCalls.Load(); n != 3 {
		t.Errorf("the child made %d model calls, want 3", n)
	}
}
