package live

import (
	"context"
	"fmt"
	"net/http/httptest"
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
	"pi/internal/mcptest"
	"pi/internal/pitest"
	"pi/internal/testwait"
	"pi/provider"
	"pi/provider/faux"
	"pi/session"
	"pi/subagent"
)

func toolNamesOf(req *provider.Request) []string {
	var out []string
	for _, t := range req.Tools {
		out = append(out, t.Name)
	}
	return out
}

func TestSubagentForeground(t *testing.T) {
	var childTools, parentTools []string
	var agentDescription string
	var mu sync.Mutex
	h, _ := subagentSession(t, "[subagents]\nenabled = true\n", Options{}, func(who string, last provider.Message, req *provider.Request) provider.Message {
		mu.Lock()
		defer mu.Unlock()
		if strings.Contains(who, "TASK") { // the explore child
			childTools = toolNamesOf(req)
			if last.Role == provider.RoleUser {
				return pitest.SubCall("read", map[string]any{"path": "notes.txt"})
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
			return pitest.SubCall("Agent", map[string]any{"prompt": "TASK: what does notes.txt say?", "description": "scout", "subagent_type": "explore"})
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
		o          Options
		want       bool
	}{
		{"default", "", Options{}, false},
		{"enabled in pi.toml", "[subagents]\nenabled = true\n", Options{}, true},
		{"named in --tools", "", Options{Tools: strings.Split("read,Agent,get_subagent_result", ",")}, true},
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
	h, _ := subagentSession(t, "[subagents]\nenabled = true\n", Options{}, func(who string, last provider.Message, req *provider.Request) provider.Message {
		if strings.Contains(who, "LOOP") {
			childCalls.Add(1)
			return pitest.SubCall("ls", map[string]any{})
		}
		if last.Role == provider.RoleUser {
			return pitest.SubCall("Agent", map[string]any{"prompt": "LOOP forever", "description": "loop", "max_turns": 3})
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

var agentIDIn = regexp.MustCompile(`agent-\d+`)

// isChildNotice says whether m is the session's notice about a child: its own word (a custom
// message), which the model reads as user input and front ends show as a notice.
func isChildNotice(m *provider.Message) bool {
	return m.Role == session.RoleCustom && session.CustomType(m) == subagent.NoticeType && session.Displayed(m)
}

func TestSubagentBackgroundChildrenRunTogether(t *testing.T) {
	var inside, most atomic.Int32
	h, _ := subagentSession(t, "[subagents]\nenabled = true\n", Options{}, func(who string, last provider.Message, req *provider.Request) provider.Message {
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
				return pitest.SubCall("get_subagent_result", map[string]any{"agent_id": id})
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
	testwait.Until(t, "both results fetched after the notices", func() bool { return !h.Busy() && fetched("alpha") && fetched("beta") })
	if most.Load() != 2 {
		t.Errorf("at most %d children were in a model call at once, want 2", most.Load())
	}
}

func TestSubagentQueueHoldsChildrenPastTheLimit(t *testing.T) {
	var inside, most atomic.Int32
	h, _ := subagentSession(t, "[subagents]\nenabled = true\nmax_concurrent = 1\n", Options{}, func(who string, last provider.Message, req *provider.Request) provider.Message {
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
	testwait.Until(t, "two notices", func() bool {
		n := 0
		for _, m := range h.agent.MessagesView() {
			if isChildNotice(&m) && strings.Contains(m.TextContent(), "Background agent") {
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
	h, _ := subagentSession(t, "[subagents]\nenabled = true\n", Options{}, func(who string, last provider.Message, req *provider.Request) provider.Message {
		if strings.Contains(who, "WORK") {
			if last.Role == provider.RoleUser && strings.Contains(last.TextContent(), "STEER-MSG") {
				return faux.Text("child heard: " + last.TextContent())
			}
			if last.Role == provider.RoleUser {
				enterOnce.Do(func() { close(inCall) })
				<-release // keeps the child running until the parent has steered
				return pitest.SubCall("ls", map[string]any{})
			}
			return faux.Text("child never heard the steer")
		}
		switch {
		case last.Role == provider.RoleUser && strings.Contains(last.TextContent(), "Background agent"):
			return faux.Text("noted")
		case last.Role == provider.RoleUser:
			return pitest.SubCall("Agent", map[string]any{"prompt": "WORK slowly", "description": "w", "run_in_background": true})
		case strings.Contains(last.TextContent(), "started in the background"):
			select {
			case <-inCall:
			case <-time.After(15 * time.Second):
				return faux.Text("the child never made its first model call")
			}
			return pitest.SubCall("steer_subagent", map[string]any{"agent_id": "agent-1", "message": "STEER-MSG"})
		case strings.Contains(last.TextContent(), "delivered"):
			releaseOnce.Do(func() { close(release) })
			return pitest.SubCall("get_subagent_result", map[string]any{"agent_id": "agent-1", "wait": true})
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
	h := subagentSessionIn(t, home, cwd, Options{}, func(who string, last provider.Message, req *provider.Request) provider.Message {
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
	h, _ := subagentSession(t, "[subagents]\nenabled = true\n", Options{}, func(who string, last provider.Message, req *provider.Request) provider.Message {
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
			return pitest.SubCall("Agent", map[string]any{"prompt": "REMEMBER a word", "description": "r"})
		}
		if last.Role == provider.RoleUser {
			var file string
			for _, m := range req.Messages {
				if f := fileIn.FindStringSubmatch(m.TextContent()); f != nil {
					file = f[1]
				}
			}
			return pitest.SubCall("Agent", map[string]any{"prompt": "AGAIN: which word?", "description": "r", "resume": file})
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
			pitest.Git(t, cwd, "init", "-q")
			os.WriteFile(filepath.Join(cwd, "a.txt"), []byte("one\n"), 0o644)
			pitest.Git(t, cwd, "add", "a.txt")
			pitest.Git(t, cwd, "commit", "-qm", "first")
			h := subagentSessionIn(t, home, cwd, Options{}, func(who string, last provider.Message, req *provider.Request) provider.Message {
				if strings.Contains(who, "EDIT") {
					if last.Role == provider.RoleUser && tc.writes {
						return pitest.SubCall("write", map[string]any{"path": "b.txt", "content": "new\n"})
					}
					return faux.Text("child done")
				}
				if last.Role == provider.RoleUser {
					return pitest.SubCall("Agent", map[string]any{"prompt": "EDIT things", "description": "e", "isolation": "worktree"})
				}
				return faux.Text("parent done")
			})
			send(t, h, "go")
			res := toolResultTexts(h)[0]
			if st := pitest.Git(t, cwd, "status", "--porcelain"); st != "" {
				t.Errorf("the parent's checkout changed: %q", st)
			}
			branches := pitest.Git(t, cwd, "branch", "--list", "pi/*")
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
			if got := pitest.Git(t, cwd, "show", branch[1]+":b.txt"); got != "new" {
				t.Errorf("branch %s holds b.txt = %q", branch[1], got)
			}
			wt := regexp.MustCompile(`worktree: (\S+)`).FindStringSubmatch(res)
			pitest.Git(t, cwd, "worktree", "remove", "--force", wt[1])
		})
	}
}

func TestSubagentParentAbortStopsAForegroundChild(t *testing.T) {
	inCall, inSleep := make(chan struct{}), make(chan struct{})
	var once, sleeping sync.Once
	h, _ := subagentSession(t, "[subagents]\nenabled = true\n", Options{}, func(who string, last provider.Message, req *provider.Request) provider.Message {
		if strings.Contains(who, "HANG") {
			once.Do(func() { close(inCall) })
			return pitest.SubCall("bash", map[string]any{"command": "sleep 30"})
		}
		if last.Role == provider.RoleUser {
			return pitest.SubCall("Agent", map[string]any{"prompt": "HANG around", "description": "h"})
		}
		return faux.Text("after: " + last.TextContent())
	})
	h.agent.Subscribe(func(_ context.Context, ev agent.Event) { // the child's bash has started its sleep
		if ev.Type == agent.EvSubagent && ev.Sub != nil && ev.Sub.Type == agent.EvToolExecutionStart && ev.Sub.ToolName == "bash" {
			sleeping.Do(func() { close(inSleep) })
		}
	})
	done := make(chan error, 1)
	go func() { done <- h.Send(context.Background(), Input{Text: "go", Source: SourceRPC}) }()
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
	h, _ := subagentSession(t, "[subagents]\nenabled = true\n", Options{}, func(who string, last provider.Message, req *provider.Request) provider.Message {
		if strings.Contains(who, "SLOW") {
			if last.Role == provider.RoleUser {
				return pitest.SubCall("bash", map[string]any{"command": "sleep 1.5"})
			}
			return faux.Text("slow answer")
		}
		if last.Role == provider.RoleUser {
			return pitest.SubCall("Agent", map[string]any{"prompt": "SLOW job", "description": "slowpoke"})
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
	h, _ := subagentSession(t, "[subagents]\nenabled = true\n", Options{}, func(who string, last provider.Message, req *provider.Request) provider.Message {
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
	h, _ := subagentSession(t, "[subagents]\nenabled = true\n", Options{}, func(who string, last provider.Message, req *provider.Request) provider.Message {
		if strings.Contains(who, "HANG") {
			return pitest.SubCall("bash", map[string]any{"command": "sleep 30"})
		}
		switch {
		case last.Role == provider.RoleUser && strings.Contains(last.TextContent(), "Background agent"):
			return faux.Text("noted")
		case last.Role == provider.RoleUser:
			return pitest.SubCall("Agent", map[string]any{"prompt": "HANG around", "description": "h", "run_in_background": true})
		}
		return faux.Text("started")
	})
	send(t, h, "go")
	start := time.Now()
	send(t, h, "/agents abort agent-1")
	notice := func() string {
		for _, m := range h.agent.MessagesView() {
			if isChildNotice(&m) && strings.Contains(m.TextContent(), "Background agent agent-1") {
				return m.TextContent()
			}
		}
		return ""
	}
	testwait.Until(t, "the notice of the aborted child", func() bool { return notice() != "" })
	if !strings.Contains(notice(), "is aborted") || time.Since(start) > 10*time.Second {
		t.Errorf("notice %q after %v", notice(), time.Since(start))
	}
}

// sessionFiles counts the session files under home's sessions folder.
func sessionFiles(t *testing.T, home string) int {
	t.Helper()
	n := 0
	filepath.WalkDir(filepath.Join(home, "sessions"), func(path string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(path, ".jsonl") {
			n++
		}
		return nil
	})
	return n
}

// limitSession is a session whose every level, the top one and each child of the nesting
// type "rec", starts calls children of type rec at its first turn, and answers with the
// results once they are back.
func limitSession(t *testing.T, toml string, calls int) (h *Session, home string, errors *atomic.Int32) {
	t.Helper()
	home, cwd := t.TempDir(), t.TempDir()
	os.WriteFile(filepath.Join(home, "pi.toml"), []byte(toml), 0o644)
	os.MkdirAll(filepath.Join(home, "agents"), 0o755)
	os.WriteFile(filepath.Join(home, "agents", "rec.md"), []byte("---\nname: rec\ndescription: starts more of itself\ntools: read, Agent\n---\nRecurse.\n"), 0o644)
	errors = &atomic.Int32{}
	h = subagentSessionIn(t, home, cwd, Options{}, func(who string, last provider.Message, req *provider.Request) provider.Message {
		if last.Role == provider.RoleUser {
			var blocks []provider.Block
			for i := range calls {
				blocks = append(blocks, faux.Call("c"+string(rune('a'+i)), "Agent",
					map[string]any{"prompt": "RECURSE", "description": "again", "subagent_type": "rec"}))
			}
			m := faux.Blocks(blocks...)
			m.StopReason = provider.StopToolUse
			return m
		}
		for _, m := range req.Messages {
			if m.Role == provider.RoleToolResult && strings.Contains(m.TextContent(), "limit") {
				errors.Add(1)
			}
		}
		return faux.Text("done")
	})
	return h, home, errors
}

// A recursive agent type stops at [subagents] max_depth (default 2): the top session, its
// child and its grandchild write a session file each, and the grandchild's Agent call gets
// an error result naming the limit.
func TestSubagentDepthLimitStopsARecursiveType(t *testing.T) {
	for _, tc := range []struct {
		name, toml string
		files      int
	}{
		{"default 2", "[subagents]\nenabled = true\n", 3},
		{"max_depth 1", "[subagents]\nenabled = true\nmax_depth = 1\n", 2},
		{"max_depth 4", "[subagents]\nenabled = true\nmax_depth = 4\n", 5},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h, home, _ := limitSession(t, tc.toml, 1)
			send(t, h, "go")
			if n := sessionFiles(t, home); n != tc.files {
				t.Errorf("%d session files, want %d (the top session and a chain of %d children)", n, tc.files, tc.files-1)
			}
			res := strings.Join(toolResultTexts(h), "\n")
			if !strings.Contains(res, "status: done") {
				t.Errorf("the top session's child should end done: %s", res)
			}
		})
	}
}

// The deepest child's Agent call is refused with an error result that says why.
func TestSubagentDepthLimitErrorResult(t *testing.T) {
	home, cwd := t.TempDir(), t.TempDir()
	os.WriteFile(filepath.Join(home, "pi.toml"), []byte("[subagents]\nenabled = true\nmax_depth = 1\n"), 0o644)
	os.MkdirAll(filepath.Join(home, "agents"), 0o755)
	os.WriteFile(filepath.Join(home, "agents", "rec.md"), []byte("---\nname: rec\ndescription: r\ntools: read, Agent\n---\nRecurse.\n"), 0o644)
	var refusal atomic.Value
	h := subagentSessionIn(t, home, cwd, Options{}, func(who string, last provider.Message, req *provider.Request) provider.Message {
		if last.Role == provider.RoleUser {
			return pitest.SubCall("Agent", map[string]any{"prompt": "RECURSE", "description": "again", "subagent_type": "rec"})
		}
		if who == "RECURSE" && last.Role == provider.RoleToolResult {
			refusal.Store(last)
		}
		return faux.Text("done")
	})
	send(t, h, "go")
	got, _ := refusal.Load().(provider.Message)
	if !got.IsError || !strings.Contains(got.TextContent(), "subagent depth limit 1 reached") {
		t.Fatalf("the child's Agent call should get an error result naming the limit, got %+v", got)
	}
}

// A fan-out (every level starts three children) stops at [subagents] max_children for the
// whole tree of sessions, not per session.
func TestSubagentChildrenCapStopsAFanOut(t *testing.T) {
	h, home, refused := limitSession(t, "[subagents]\nenabled = true\nmax_children = 5\n", 3)
	send(t, h, "go")
	if n := sessionFiles(t, home); n != 6 {
		t.Errorf("%d session files, want 6: the top session and the 5 children the cap allows", n)
	}
	if refused.Load() == 0 {
		t.Error("no session saw an error result naming the limit")
	}
}

// A general-purpose child of a session with an MCP server gets the session's MCP tools, served
// by its own scripts, and can call them (it used to fail at its start: a tool name without
// its tool).
func TestSubagentGetsTheParentsMCPTools(t *testing.T) {
	s := mcptest.New()
	srv := httptest.NewServer(s.Handler())
	defer srv.Close()
	home, cwd := t.TempDir(), t.TempDir()
	toml := fmt.Sprintf("[subagents]\nenabled = true\n[mcp.servers.local]\nurl = %s\n", pitest.TOMLString(srv.URL+"/mcp"))
	os.WriteFile(filepath.Join(home, "pi.toml"), []byte(toml), 0o644)
	var mu sync.Mutex
	var childTools []string
	h := subagentSessionIn(t, home, cwd, Options{}, func(who string, last provider.Message, req *provider.Request) provider.Message {
		switch {
		case strings.HasPrefix(who, "CHILD") && last.Role == provider.RoleUser:
			mu.Lock()
			childTools = toolNamesOf(req)
			mu.Unlock()
			return pitest.SubCall("mcp__local__echo", map[string]any{"text": "from the child"})
		case strings.HasPrefix(who, "CHILD"):
			return faux.Text("child got: " + last.TextContent())
		case last.Role == provider.RoleUser:
			return pitest.SubCall("Agent", map[string]any{"prompt": "CHILD echo something", "description": "echo"})
		}
		return faux.Text("done")
	})
	send(t, h, "go")
	res := strings.Join(toolResultTexts(h), "\n")
	if !strings.Contains(res, "status: done") || !strings.Contains(res, "child got: echo: from the child") {
		t.Fatalf("the child should run and answer with the MCP tool's result:\n%s", res)
	}
	mu.Lock()
	defer mu.Unlock()
	if !slices.Contains(childTools, "mcp__local__echo") || !slices.Contains(childTools, "read") {
		t.Errorf("the child was offered %v, want the session's tools with mcp__local__echo", childTools)
	}
}

// subagentSession builds a session with the Lua scripts (so the bundled subagents script)
// on one faux provider that all its children share.
func subagentSession(t *testing.T, toml string, o Options, r pitest.Router) (*Session, string) {
	t.Helper()
	home, cwd := pitest.SubagentHome(t, toml)
	return subagentSessionIn(t, home, cwd, o, r), cwd
}

func subagentSessionIn(t *testing.T, home, cwd string, o Options, r pitest.Router) *Session {
	t.Helper()
	o.Cwd, o.PiHome, o.Stderr = cwd, home, os.Stderr
	o.Provider, o.ProviderModel = pitest.RouterProvider(r), pitest.FauxModel(false)
	h, err := New(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(h.close)
	return h
}

// toolResultTexts are the parent's tool results so far.
func toolResultTexts(h *Session) []string { return pitest.ToolResultTexts(h.agent.MessagesView()) }

func send(t *testing.T, h *Session, text string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := h.Send(ctx, Input{Text: text, Source: SourceRPC}); err != nil {
		t.Fatal(err)
	}
}

// TestSubagentInheritContext: with inherit_context the child's session starts with the
// parent's conversation, as it is when it fits in half the child's window, else compacted by
// a summary the model writes (as /compact does); when that summary fails, the child gets the
// newest messages' text, and the result says so.
func TestSubagentInheritContext(t *testing.T) {
	filler := strings.Repeat("filler text that fills the window ", 9000) // ≈ 77k tokens, over half of 128k
	cases := []struct {
		name, first  string
		summaryFails bool
		want, not    []string // in the child's first request
		wantSummary  bool
		wantNote     string
	}{
		{name: "fits as it is", first: "the secret word is quince",
			want: []string{"the secret word is quince", "[assistant] noted"}, not: []string{"The conversation so far", "<summary>"}},
		{name: "compacted to the window", first: filler + "the secret word is quince", wantSummary: true,
			want: []string{"<summary>\nSUMMARY: the word is quince", "</summary>\n[user] go\n[user] CHILD"}, not: []string{"filler text", "The conversation so far"}},
		{name: "summary fails: the newest text instead", first: filler + "the secret word is quince", summaryFails: true, wantSummary: true,
			want: []string{"The conversation so far", "quince"}, not: []string{"<summary>"},
			wantNote: "note: inherit_context: compacting the conversation for the agent's window failed"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			im := &inheritModel{summaryFails: tc.summaryFails}
			h, _ := subagentSession(t, "[subagents]\nenabled = true\n", Options{}, im.reply)
			send(t, h, tc.first)
			send(t, h, "go")
			im.mu.Lock()
			defer im.mu.Unlock()
			child, summaryPrompt := im.child, im.summaryPrompt
			t.Logf("parent's first message ≈ %d tokens; the child's first request ≈ %d tokens (characters/4)", len(tc.first)/4, len(child)/4)
			if !strings.HasSuffix(child, "CHILD: what is the word?") {
				t.Fatalf("the child's request does not end with its task:\n%.2000s", child)
			}
			for _, w := range tc.want {
				if !strings.Contains(child, w) {
					t.Errorf("the child's request lacks %q:\n%.3000s", w, child)
				}
			}
			for _, n := range tc.not {
				if strings.Contains(child, n) {
					t.Errorf("the child's request has %q:\n%.3000s", n, child)
				}
			}
			if tc.wantSummary != (summaryPrompt != "") || tc.wantSummary && !strings.Contains(summaryPrompt, "CHILD: what is the word?") {
				t.Errorf("summary request (want one: %v, naming the task): %.300q", tc.wantSummary, summaryPrompt)
			}
			results := strings.Join(toolResultTexts(h), "\n")
			if tc.wantNote != "" && !strings.Contains(results, tc.wantNote) || tc.wantNote == "" && strings.Contains(results, "note:") {
				t.Errorf("the Agent result, want note %q:\n%s", tc.wantNote, results)
			}
		})
	}
}

// inheritModel plays the parent, the child (its task says CHILD) and the summariser, and
// keeps the child's first request as text and the summary prompt.
type inheritModel struct {
	summaryFails         bool
	mu                   sync.Mutex
	child, summaryPrompt string
}

func (im *inheritModel) reply(_ string, last provider.Message, req *provider.Request) provider.Message {
	im.mu.Lock()
	defer im.mu.Unlock()
	text := last.TextContent()
	switch {
	case strings.Contains(req.Messages[0].TextContent(), "as a checkpoint"):
		im.summaryPrompt = req.Messages[0].TextContent()
		if im.summaryFails {
			return provider.Message{Role: provider.RoleAssistant, StopReason: provider.StopError, ErrorMessage: "model gone"}
		}
		return faux.Text("SUMMARY: the word is quince")
	case last.Role == provider.RoleUser && strings.Contains(text, "CHILD"):
		var parts []string
		for _, m := range req.Messages {
			parts = append(parts, "["+string(m.Role)+"] "+m.TextContent())
		}
		im.child = strings.Join(parts, "\n")
		return faux.Text("quince")
	case last.Role == provider.RoleUser && strings.HasSuffix(text, "go"):
		return pitest.SubCall("Agent", map[string]any{"prompt": "CHILD: what is the word?", "description": "w", "inherit_context": true})
	case last.Role == provider.RoleUser:
		return faux.Text("noted")
	}
	return faux.Text("done")
}

// An Agent call with session_file runs the child in that file (new: started there, naming
// the parent); a later call naming the same file continues that conversation.
func TestSubagentRunsInANamedSessionFileAndResumesIt(t *testing.T) {
	agentCall := func(id, prompt string) faux.Step {
		return faux.Blocks(faux.Call(id, "Agent", map[string]any{"prompt": prompt, "description": "helper", "session_file": "child.jsonl"}))
	}
	p := faux.New(agentCall("c1", "remember the word tangerine"), faux.Text("noted: tangerine"), faux.Text("the child noted it"),
		agentCall("c2", "which word?"), faux.Text("tangerine"), faux.Text("it said tangerine"))
	home, cwd := t.TempDir(), t.TempDir()
	if err := os.WriteFile(filepath.Join(home, "pi.toml"), []byte("[subagents]\nenabled = true\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	h, err := New(context.Background(), Options{PiHome: home, Cwd: cwd, Provider: p,
		ProviderModel: provider.Model{ID: "faux-1", Provider: "faux", API: "faux"}, Session: session.Choice{Dir: t.TempDir()}})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	for _, text := range []string{"start a helper", "ask it again"} {
		if err := h.Send(context.Background(), Input{Text: text, Source: SourceRPC}); err != nil {
			t.Fatal(err)
		}
	}
	child := filepath.Join(cwd, "child.jsonl")
	s, err := session.Open(context.Background(), child)
	if err != nil {
		t.Fatalf("the child's session file: %v", err)
	}
	defer s.Close()
	if got := s.Header().ParentSession; got == "" || got != h.State().SessionFile {
		t.Errorf("the child's header names parent %q, want %q", got, h.State().SessionFile)
	}
	reqs := p.Requests()
	resumed := reqs[4] // the child's second call: its first conversation must be in it
	var texts []string
	for _, m := range resumed.Messages {
		texts = append(texts, m.TextContent())
	}
	if all := strings.Join(texts, " | "); !strings.Contains(all, "noted: tangerine") || !strings.Contains(all, "which word?") {
		t.Errorf("the resumed child saw %q: want its first exchange and the new prompt", all)
	}
}
