package main

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"pi/agent"
	"pi/config"
	"pi/internal/testwait"
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
			if m.Role == provider.RoleUser && len(m.Content) > 0 { // the text after the context block
				who = m.Content[len(m.Content)-1].Text
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
					agentDescription = tl.Description + string(tl.Parameters) // resume is offered at the top
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
	if cmd, _, ok := h.scripts.command("/agents"); !ok || !cmd.Runnable() {
		t.Error("/agents should be a command of the top-level session")
	}
	for _, line := range []string{"\n- explore: ", "\n- general-purpose: ", `"resume"`} {
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

// waitFor polls until ok, or fails after testwait's deadline.
func waitFor(t *testing.T, what string, ok func() bool) {
	t.Helper()
	testwait.Until(t, what, ok)
}

var agentIDIn = regexp.MustCompile(`agent-\d+`)

func TestSubagentBackgroundChildrenRunTogether(t *testing.T) {
	var inside, most atomic.Int32
	h, _ := subagentSession(t, "[subagents]\nenabled = true\n", cliOptions{}, func(who string, last provider.Message, req *provider.Request) provider.Message {
		if strings.Contains(who, "JOB") { // both children: wait until the other is in its call too
			n := inside.Add(1)
			for most.Load() < n {
				most.CompareAndSwap(most.Load(), n)
			}
			testwait.Within(testwait.Deadline, func() bool { return inside.Load() >= 2 })
			return faux.Text("result of " + strings.Fields(who)[1])
		}
		noticed, fetched := map[string]bool{}, map[string]bool{}
		for _, m := range req.Messages {
			if m.Role == provider.RoleUser && strings.Contains(m.TextContent(), "Background agent") {
				noticed[agentIDIn.FindString(m.TextContent())] = true
			}
			for _, c := range m.ToolCalls() {
				if id, _ := c.Arguments["agent_id"].(string); c.Name == "get_subagent_result" {
					fetched[id] = true
				}
			}
		}
		for id := range noticed { // every notice, also two that came in one turn
			if !fetched[id] {
				return subCall("get_subagent_result", map[string]any{"agent_id": id})
			}
		}
		switch {
		case last.Role == provider.RoleUser && len(noticed) > 0:
			return faux.Text("noted")
		case last.Role == provider.RoleUser:
			return faux.Blocks(faux.Call("a", "Agent", map[string]any{"prompt": "JOB alpha", "description": "a", "run_in_background": true}),
				faux.Call("b", "Agent", map[string]any{"prompt": "JOB beta", "description": "b", "run_in_background": true}))
		}
		return faux.Text("noted")
	})
	send(t, h, "go")
	fetched := func(name string) bool {
		return slices.ContainsFunc(toolResultTexts(h), func(s string) bool { return strings.Contains(s, "result of "+name) })
	}
	defer func() {
		if t.Failed() {
			for _, m := range h.agent.MessagesView() {
				t.Logf("%s: %.120q", m.Role, m.TextContent())
			}
			steer, follow := h.agent.QueuedMessages()
			t.Logf("queued: %d steering, %d follow-up", len(steer), len(follow))
		}
	}()
	waitFor(t, "both results fetched after the notices", func() bool { return !h.Busy() && fetched("alpha") && fetched("beta") })
	if most.Load() != 2 {
		t.Errorf("at most %d children were in a model call at once, want 2", most.Load())
	}
}

func TestSubagentQueueHoldsChildrenPastTheLimit(t *testing.T) {
	var inside, most atomic.Int32
	h, _ := subagentSession(t, "[subagents]\nenabled = true\nmax_concurrent = 1\n", cliOptions{}, func(who string, last provider.Message, req *provider.Request) provider.Message {
		if strings.Contains(who, "JOB") {
			n := inside.Add(1)
			defer inside.Add(-1)
			if n > most.Load() {
				most.Store(n)
			}
			time.Sleep(200 * time.Millisecond)
			return faux.Text("result of " + strings.Fields(who)[1])
		}
		if last.Role == provider.RoleUser && !strings.Contains(last.TextContent(), "Background agent") {
			return faux.Blocks(faux.Call("a", "Agent", map[string]any{"prompt": "JOB alpha", "description": "a", "run_in_background": true}),
				faux.Call("b", "Agent", map[string]any{"prompt": "JOB beta", "description": "b", "run_in_background": true}))
		}
		return faux.Text("noted")
	})
	send(t, h, "go")
	waitFor(t, "two notices", func() bool {
		n := 0
		for _, m := range h.agent.MessagesView() {
			if m.Role == provider.RoleUser && strings.Contains(m.TextContent(), "Background agent") {
				n++
			}
		}
		return n == 2 && !h.Busy()
	})
	if most.Load() != 1 {
		t.Errorf("%d children ran at once, want 1 (max_concurrent = 1)", most.Load())
	}
}

// The parent steers only once the child is inside its first model call, so the steer meets a
// running child (not one still being built, whose steers wait for it) and the child cannot end,
// and its notice reach the parent, before the parent has asked for its result.
func TestSubagentSteerReachesARunningChild(t *testing.T) {
	inCall, release := make(chan struct{}), make(chan struct{})
	var enterOnce, releaseOnce sync.Once
	t.Cleanup(func() { releaseOnce.Do(func() { close(release) }) }) // a failed run leaves no child blocked
	h, _ := subagentSession(t, "[subagents]\nenabled = true\n", cliOptions{}, func(who string, last provider.Message, req *provider.Request) provider.Message {
		if strings.Contains(who, "WORK") {
			if last.Role == provider.RoleUser && strings.Contains(last.TextContent(), "STEER-MSG") {
				return faux.Text("child heard: " + last.TextContent())
			}
			if last.Role == provider.RoleUser {
				enterOnce.Do(func() { close(inCall) })
				<-release // keeps the child running until the parent has steered
				return subCall("ls", map[string]any{})
			}
			return faux.Text("child never heard the steer")
		}
		switch {
		case last.Role == provider.RoleUser && strings.Contains(last.TextContent(), "Background agent"):
			return faux.Text("noted")
		case last.Role == provider.RoleUser:
			return subCall("Agent", map[string]any{"prompt": "WORK slowly", "description": "w", "run_in_background": true})
		case strings.Contains(last.TextContent(), "started in the background"):
			select {
			case <-inCall:
			case <-time.After(15 * time.Second):
				return faux.Text("the child never made its first model call")
			}
			return subCall("steer_subagent", map[string]any{"agent_id": "agent-1", "message": "STEER-MSG"})
		case strings.Contains(last.TextContent(), "delivered"):
			releaseOnce.Do(func() { close(release) })
			return subCall("get_subagent_result", map[string]any{"agent_id": "agent-1", "wait": true})
		}
		return faux.Text("final: " + last.TextContent())
	})
	send(t, h, "go")
	res := toolResultTexts(h)
	if len(res) == 0 || !strings.Contains(res[len(res)-1], "child heard: STEER-MSG") {
		t.Fatalf("the parent's tool results %q should end with the child's answer showing the steer arrived", res)
	}
}

func TestSubagentNestingOnlyWhenTheTypeAllowsIt(t *testing.T) {
	home, cwd := t.TempDir(), t.TempDir()
	os.WriteFile(filepath.Join(home, "pi.toml"), []byte("[subagents]\nenabled = true\n"), 0o644)
	os.MkdirAll(filepath.Join(home, "agents"), 0o755)
	os.WriteFile(filepath.Join(home, "agents", "lead.md"), []byte("---\nname: lead\ndescription: leads others\ntools: read, Agent\n---\nYou lead.\n"), 0o644)
	var mu sync.Mutex
	tools := map[string][]string{}
	h := subagentSessionIn(t, home, cwd, cliOptions{}, func(who string, last provider.Message, req *provider.Request) provider.Message {
		if strings.HasPrefix(who, "CHILD") {
			mu.Lock()
			tools[who] = toolNamesOf(req)
			mu.Unlock()
			return faux.Text("ok")
		}
		if last.Role == provider.RoleUser {
			return faux.Blocks(faux.Call("a", "Agent", map[string]any{"prompt": "CHILD gp", "description": "g"}),
				faux.Call("b", "Agent", map[string]any{"prompt": "CHILD lead", "description": "l", "subagent_type": "lead"}))
		}
		return faux.Text("done")
	})
	send(t, h, "go")
	if slices.Contains(tools["CHILD gp"], "Agent") {
		t.Errorf("a general-purpose child was offered Agent: %v", tools["CHILD gp"])
	}
	if !slices.Contains(tools["CHILD lead"], "Agent") || slices.Contains(tools["CHILD lead"], "resume") {
		t.Errorf("a lead child (tools: read, Agent) should be offered Agent: %v", tools["CHILD lead"])
	}
}

func TestSubagentResumeContinuesAFinishedChild(t *testing.T) {
	fileIn := regexp.MustCompile(`session_file: (\S+)`)
	var sawEarlier atomic.Bool
	h, _ := subagentSession(t, "[subagents]\nenabled = true\n", cliOptions{}, func(who string, last provider.Message, req *provider.Request) provider.Message {
		if strings.Contains(who, "REMEMBER") {
			if strings.Contains(last.TextContent(), "AGAIN") {
				for _, m := range req.Messages {
					sawEarlier.Store(sawEarlier.Load() || strings.Contains(m.TextContent(), "the word is plum"))
				}
				return faux.Text("still plum")
			}
			return faux.Text("the word is plum")
		}
		if last.Role == provider.RoleUser && strings.Contains(last.TextContent(), "first") {
			return subCall("Agent", map[string]any{"prompt": "REMEMBER a word", "description": "r"})
		}
		if last.Role == provider.RoleUser {
			var file string
			for _, m := range req.Messages {
				if f := fileIn.FindStringSubmatch(m.TextContent()); f != nil {
					file = f[1]
				}
			}
			return subCall("Agent", map[string]any{"prompt": "AGAIN: which word?", "description": "r", "resume": file})
		}
		return faux.Text("parent: " + last.TextContent())
	})
	send(t, h, "first")
	send(t, h, "second")
	res := toolResultTexts(h)
	if len(res) != 2 || !strings.Contains(res[1], "still plum") || !sawEarlier.Load() {
		t.Fatalf("the resumed child should see its earlier turn: saw %v, results %q", sawEarlier.Load(), res)
	}
}

func gitIn(t *testing.T, dir string, args ...string) string {
	t.Helper()
	out, err := exec.Command("git", append([]string{"-C", dir, "-c", "user.name=t", "-c", "user.email=t@t"}, args...)...).CombinedOutput()
	if err != nil {
		t.Fatalf("git %v: %v: %s", args, err, out)
	}
	return strings.TrimSpace(string(out))
}

func TestSubagentWorktreeIsolation(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	cases := []struct {
		name   string
		writes bool
	}{{"changes kept on a branch", true}, {"unchanged worktree removed", false}}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			home, cwd := t.TempDir(), t.TempDir()
			os.WriteFile(filepath.Join(home, "pi.toml"), []byte("[subagents]\nenabled = true\n"), 0o644)
			gitIn(t, cwd, "init", "-q")
			os.WriteFile(filepath.Join(cwd, "a.txt"), []byte("one\n"), 0o644)
			gitIn(t, cwd, "add", "a.txt")
			gitIn(t, cwd, "commit", "-qm", "first")
			h := subagentSessionIn(t, home, cwd, cliOptions{}, func(who string, last provider.Message, req *provider.Request) provider.Message {
				if strings.Contains(who, "EDIT") {
					if last.Role == provider.RoleUser && tc.writes {
						return subCall("write", map[string]any{"path": "b.txt", "content": "new\n"})
					}
					return faux.Text("child done")
				}
				if last.Role == provider.RoleUser {
					return subCall("Agent", map[string]any{"prompt": "EDIT things", "description": "e", "isolation": "worktree"})
				}
				return faux.Text("parent done")
			})
			send(t, h, "go")
			res := toolResultTexts(h)[0]
			if st := gitIn(t, cwd, "status", "--porcelain"); st != "" {
				t.Errorf("the parent's checkout changed: %q", st)
			}
			branches := gitIn(t, cwd, "branch", "--list", "pi/*")
			if !tc.writes {
				if branches != "" || strings.Contains(res, "branch:") {
					t.Errorf("an unchanged worktree should go with its branch: %q, result %q", branches, res)
				}
				return
			}
			branch := regexp.MustCompile(`branch: (\S+)`).FindStringSubmatch(res)
			if branch == nil || !strings.Contains(res, "b.txt") {
				t.Fatalf("result %q should name the branch and b.txt", res)
			}
			if got := gitIn(t, cwd, "show", branch[1]+":b.txt"); got != "new" {
				t.Errorf("branch %s holds b.txt = %q", branch[1], got)
			}
			wt := regexp.MustCompile(`worktree: (\S+)`).FindStringSubmatch(res)
			gitIn(t, cwd, "worktree", "remove", "--force", wt[1])
		})
	}
}

func TestSubagentParentAbortStopsAForegroundChild(t *testing.T) {
	inCall, inSleep := make(chan struct{}), make(chan struct{})
	var once, sleeping sync.Once
	h, _ := subagentSession(t, "[subagents]\nenabled = true\n", cliOptions{}, func(who string, last provider.Message, req *provider.Request) provider.Message {
		if strings.Contains(who, "HANG") {
			once.Do(func() { close(inCall) })
			return subCall("bash", map[string]any{"command": "sleep 30"})
		}
		if last.Role == provider.RoleUser {
			return subCall("Agent", map[string]any{"prompt": "HANG around", "description": "h"})
		}
		return faux.Text("after: " + last.TextContent())
	})
	h.agent.Subscribe(func(_ context.Context, ev agent.Event) { // the child's bash has started its sleep
		if ev.Type == agent.EvSubagent && ev.Sub != nil && ev.Sub.Type == agent.EvToolExecutionStart && ev.Sub.ToolName == "bash" {
			sleeping.Do(func() { close(inSleep) })
		}
	})
	done := make(chan error, 1)
	go func() { done <- h.Send(context.Background(), Input{Text: "go", Source: sourceRPC}) }()
	testwait.Receive(t, "the child's first model call", inCall)
	testwait.Receive(t, "the child's bash", inSleep)
	start := time.Now()
	h.Abort()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("the parent's run did not end after the abort")
	}
	if time.Since(start) > 5*time.Second { // the child's sleep 30 would hold it otherwise
		t.Errorf("the abort took %v", time.Since(start))
	}
}

func TestSubagentProgressReachesTheToolCall(t *testing.T) {
	h, _ := subagentSession(t, "[subagents]\nenabled = true\n", cliOptions{}, func(who string, last provider.Message, req *provider.Request) provider.Message {
		if strings.Contains(who, "SLOW") {
			if last.Role == provider.RoleUser {
				return subCall("bash", map[string]any{"command": "sleep 1.5"})
			}
			return faux.Text("slow answer")
		}
		if last.Role == provider.RoleUser {
			return subCall("Agent", map[string]any{"prompt": "SLOW job", "description": "slowpoke"})
		}
		return faux.Text("ok")
	})
	var mu sync.Mutex
	var updates []string
	h.agent.Subscribe(func(_ context.Context, ev agent.Event) {
		if ev.Type == agent.EvToolExecutionUpdate && ev.ToolName == "Agent" && ev.Result != nil {
			mu.Lock()
			for _, b := range ev.Result.Content {
				updates = append(updates, b.Text)
			}
			mu.Unlock()
		}
	})
	send(t, h, "go")
	mu.Lock()
	defer mu.Unlock()
	if !slices.ContainsFunc(updates, func(s string) bool {
		return strings.Contains(s, "agent-1 general-purpose · slowpoke · bash")
	}) {
		t.Fatalf("partial results %q should show the child running bash", updates)
	}
}

func TestSubagentModelAndContext(t *testing.T) {
	var mu sync.Mutex
	models, prompts := map[string]string{}, map[string]string{}
	h, _ := subagentSession(t, "[subagents]\nenabled = true\n", cliOptions{}, func(who string, last provider.Message, req *provider.Request) provider.Message {
		if strings.Contains(who, "CHILD") || strings.Contains(who, "Your task:") {
			mu.Lock()
			name := strings.Fields(who[strings.Index(who, "CHILD"):])[1]
			models[name], prompts[name] = req.Model.ID, who
			mu.Unlock()
			return faux.Text("ok")
		}
		if last.Role == provider.RoleUser {
			return faux.Blocks(faux.Call("a", "Agent", map[string]any{"prompt": "CHILD plain", "description": "p"}),
				faux.Call("b", "Agent", map[string]any{"prompt": "CHILD other", "description": "o", "model": "faux/other"}),
				faux.Call("c", "Agent", map[string]any{"prompt": "CHILD inherits", "description": "i", "inherit_context": true}))
		}
		return faux.Text("done")
	})
	send(t, h, "the secret word is quince")
	if models["plain"] != "faux-1" || models["other"] != "other" {
		t.Errorf("child models %v: want the parent's faux-1 unless the call names one", models)
	}
	if !strings.Contains(prompts["inherits"], "the secret word is quince") || strings.Contains(prompts["plain"], "quince") {
		t.Errorf("only inherit_context should carry the conversation: %q", prompts)
	}
}

func TestSubagentAgentsCommandAbortsABackgroundChild(t *testing.T) {
	h, _ := subagentSession(t, "[subagents]\nenabled = true\n", cliOptions{}, func(who string, last provider.Message, req *provider.Request) provider.Message {
		if strings.Contains(who, "HANG") {
			return subCall("bash", map[string]any{"command": "sleep 30"})
		}
		switch {
		case last.Role == provider.RoleUser && strings.Contains(last.TextContent(), "Background agent"):
			return faux.Text("noted")
		case last.Role == provider.RoleUser:
			return subCall("Agent", map[string]any{"prompt": "HANG around", "description": "h", "run_in_background": true})
		}
		return faux.Text("started")
	})
	send(t, h, "go")
	start := time.Now()
	send(t, h, "/agents abort agent-1")
	notice := func() string {
		for _, m := range h.agent.MessagesView() {
			if m.Role == provider.RoleUser && strings.Contains(m.TextContent(), "Background agent agent-1") {
				return m.TextContent()
			}
		}
		return ""
	}
	waitFor(t, "the notice of the aborted child", func() bool { return notice() != "" })
	if !strings.Contains(notice(), "is aborted") || time.Since(start) > 10*time.Second {
		t.Errorf("notice %q after %v", notice(), time.Since(start))
	}
}
