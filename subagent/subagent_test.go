package subagent

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"pi/agent"
	"pi/internal/testwait"
	"pi/provider"
)

func TestParseType(t *testing.T) {
	cases := []struct {
		name, text string
		want       Type
		err        bool
	}{
		{"full", "---\nname: scout\ndescription: \"Finds things\"\ntools: read, grep\nmodel: ollama/qwen3\nthinking: low\nmax_turns: 5\n---\nYou scout.\n",
			Type{Name: "scout", Description: "Finds things", Tools: []string{"read", "grep"}, Model: "ollama/qwen3", Thinking: "low", MaxTurns: 5, Prompt: "You scout."}, false},
		{"list syntax", "---\ntools: [read, 'ls']\n---\n", Type{Tools: []string{"read", "ls"}}, false},
		{"empty tools means none", "---\ntools:\n---\nbody", Type{Tools: []string{}, Prompt: "body"}, false},
		{"no frontmatter", "Just a prompt.", Type{Prompt: "Just a prompt."}, false},
		{"unclosed frontmatter is body", "---\nname: x\n", Type{Prompt: "---\nname: x"}, false},
		{"bad max_turns", "---\nmax_turns: lots\n---\n", Type{}, true},
		{"bad name", "---\nname: a b\n---\n", Type{}, true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := ParseType(tc.text)
			if (err != nil) != tc.err {
				t.Fatalf("err %v, want error %v", err, tc.err)
			}
			if err == nil && !reflect.DeepEqual(got, tc.want) {
				t.Errorf("got %+v\nwant %+v", got, tc.want)
			}
		})
	}
}

func FuzzParseType(f *testing.F) {
	f.Add("---\nname: scout\ntools: read, grep\nmax_turns: 3\n---\nbody")
	f.Add("---\n---\n")
	f.Add("\ufeff---\r\nname: x\r\n---\r\n")
	f.Fuzz(func(t *testing.T, text string) {
		ty, err := ParseType(text)
		if err == nil && ty.MaxTurns < 0 {
			t.Fatalf("negative max_turns from %q", text)
		}
	})
}

func TestLoadTypesProjectNeedsTrust(t *testing.T) {
	home, cwd := t.TempDir(), t.TempDir()
	os.MkdirAll(filepath.Join(home, "agents"), 0o755)
	os.MkdirAll(filepath.Join(cwd, ".pi", "agents"), 0o755)
	os.WriteFile(filepath.Join(home, "agents", "mine.md"), []byte("---\ndescription: user's\n---\n"), 0o644)
	os.WriteFile(filepath.Join(cwd, ".pi", "agents", "theirs.md"), []byte("---\ndescription: project's\n---\n"), 0o644)
	os.WriteFile(filepath.Join(cwd, ".pi", "agents", "explore.md"), []byte("---\ndescription: replaced\n---\n"), 0o644)
	names := func(ts []Type) map[string]string {
		m := map[string]string{}
		for _, t := range ts {
			m[t.Name] = t.Description
		}
		return m
	}
	pkg := t.TempDir()
	os.MkdirAll(filepath.Join(pkg, "agents"), 0o755)
	os.WriteFile(filepath.Join(pkg, "agents", "reviewer.md"), []byte("---\ndescription: a package's\n---\n"), 0o644)
	os.WriteFile(filepath.Join(pkg, "agents", "mine.md"), []byte("---\ndescription: the package's mine\n---\n"), 0o644)
	untrusted, _ := LoadTypes(home, cwd, false, nil, nil)
	if n := names(untrusted); n["theirs"] != "" || n["mine"] != "user's" || n["explore"] == "replaced" || n["reviewer"] != "" {
		t.Errorf("untrusted project: %v", n)
	}
	trusted, _ := LoadTypes(home, cwd, true, []string{pkg}, nil)
	if n := names(trusted); n["theirs"] != "project's" || n["explore"] != "replaced" || n["general-purpose"] == "" ||
		n["reviewer"] != "a package's" || n["mine"] != "the package's mine" {
		t.Errorf("trusted project with a package: %v", n)
	}
}

// fake is a child that runs until released or aborted.
type fake struct {
	release chan struct{}
	steered chan string
	running *atomic.Int32
	most    *atomic.Int32
}

func (f *fake) Run(ctx context.Context) (Outcome, error) {
	n := f.running.Add(1)
	defer f.running.Add(-1)
	for m := f.most.Load(); n > m && !f.most.CompareAndSwap(m, n); m = f.most.Load() {
	}
	select {
	case <-f.release:
		return Outcome{Answer: "done", Turns: 1}, nil
	case s := <-f.steered:
		return Outcome{Answer: "steered: " + s, Turns: 2}, nil
	case <-ctx.Done():
		return Outcome{}, ctx.Err()
	}
}
func (f *fake) Steer(s string) error         { f.steered <- s; return nil }
func (f *fake) Close()                       {}
func (f *fake) Messages() []provider.Message { return []provider.Message{provider.UserText("task", 0)} }

func TestManagerQueueSteerAbort(t *testing.T) {
	var running, most atomic.Int32
	release := make(chan struct{})
	var mu sync.Mutex
	var finished []string
	m := New(Options{Types: Builtins(), MaxConcurrent: 2, Finished: func(r Result) { mu.Lock(); finished = append(finished, r.ID); mu.Unlock() },
		Factory: func(ctx context.Context, l Launch) (Child, error) {
			return &fake{release: release, steered: make(chan string, 1), running: &running, most: &most}, nil
		}})
	defer m.Close()
	ctx := context.Background()
	var ids []string
	for range 3 {
		id, err := m.Start(ctx, Spec{Prompt: "x", Background: true})
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, id)
	}
	testwait.Until(t, "two children running", func() bool { return running.Load() == 2 })
	if r, _ := m.Get(ctx, ids[2], false); r.Status != Queued {
		t.Errorf("third child is %s, want queued behind the limit of 2", r.Status)
	}
	if err := m.Steer(ids[0], "hello"); err != nil {
		t.Fatal(err)
	}
	if r, _ := m.Get(ctx, ids[0], true); r.Answer != "steered: hello" || r.Status != Done {
		t.Errorf("steered child: %+v", r)
	}
	m.Abort(ids[1])
	if r, _ := m.Get(ctx, ids[1], true); r.Status != Aborted {
		t.Errorf("aborted child is %s", r.Status)
	}
	close(release)
	if r, _ := m.Get(ctx, ids[2], true); r.Status != Done {
		t.Errorf("queued child ended %s", r.Status)
	}
	if most.Load() != 2 {
		t.Errorf("%d ran at once, want 2", most.Load())
	}
	mu.Lock()
	if len(finished) != 3 {
		t.Errorf("notices for %v, want one per background child (none was fetched before it ended)", finished)
	}
	mu.Unlock()
	if _, err := m.Start(ctx, Spec{Prompt: "x", Type: "nope"}); err == nil {
		t.Error("an unknown type should be refused")
	}
	if _, err := m.Start(ctx, Spec{Prompt: "x", Resume: "agent-99"}); err == nil {
		t.Error("resuming an unknown id should be refused")
	}
}

func TestForegroundChildStopsWithItsCaller(t *testing.T) {
	var running, most atomic.Int32
	m := fakeManager(make(chan struct{}), &running, &most)
	defer m.Close()
	ctx, cancel := context.WithCancel(context.Background())
	id, err := m.Start(ctx, Spec{Prompt: "x"})
	if err != nil {
		t.Fatal(err)
	}
	cancel() // the parent's abort
	r, _ := m.Get(context.Background(), id, true)
	if r.Status != Aborted {
		t.Errorf("foreground child is %s after its caller stopped, want aborted", r.Status)
	}
	if !errors.Is(ctx.Err(), context.Canceled) {
		t.Fatal(ctx.Err())
	}
}

// Watchers hear every change of a child until they stop; a child's transcript is there
// while it runs and after it has closed; View needs a screen.
func TestManagerWatchTranscriptView(t *testing.T) {
	var running, most atomic.Int32
	release := make(chan struct{})
	m := fakeManager(release, &running, &most)
	defer m.Close()
	var mu sync.Mutex
	var seen []Status
	stop := m.Watch(func(r Result) { mu.Lock(); seen = append(seen, r.Status); mu.Unlock() })
	ctx := context.Background()
	id, _ := m.Start(ctx, Spec{Prompt: "x", Background: true})
	testwait.Until(t, "the child running", func() bool { return running.Load() == 1 })
	if msgs, err := m.Transcript(id); err != nil || len(msgs) != 1 {
		t.Fatalf("running child's transcript: %v %v", msgs, err)
	}
	close(release)
	m.Get(ctx, id, true)
	stop()
	m.Start(ctx, Spec{Prompt: "y", Background: true})
	mu.Lock()
	if !slices.Equal(seen, []Status{Running, Done}) {
		t.Errorf("the watcher saw %v, want running then done (and nothing once stopped)", seen)
	}
	mu.Unlock()
	if msgs, err := m.Transcript(id); err != nil || len(msgs) != 1 || msgs[0].TextContent() != "task" {
		t.Errorf("finished child's transcript: %v %v", msgs, err)
	}
	if _, err := m.Transcript("agent-9"); err == nil {
		t.Error("an unknown id has a transcript")
	}
	if m.CanView() || m.View(ctx, id) == nil {
		t.Error("View without a screen should say so")
	}
	var viewed string
	m.SetViewer(func(_ context.Context, id string) error { viewed = id; return nil })
	if err := m.View(ctx, id); err != nil || viewed != id || !m.CanView() {
		t.Errorf("View with a screen: %v, showed %q", err, viewed)
	}
}

// Settled cuts the turn still going on: the reply whose calls are not all answered, and what
// follows it.
func TestSettled(t *testing.T) {
	user := provider.UserText("u", 0)
	text := provider.Message{Role: provider.RoleAssistant, Content: []provider.Block{provider.Text("a")}}
	call := func(ids ...string) provider.Message {
		m := provider.Message{Role: provider.RoleAssistant}
		for _, id := range ids {
			m.Content = append(m.Content, provider.ToolCall(id, "read", nil))
		}
		return m
	}
	result := func(id string) provider.Message {
		return provider.Message{Role: provider.RoleToolResult, ToolCallID: id}
	}
	cases := []struct {
		name string
		in   []provider.Message
		want int
	}{
		{"empty", nil, 0},
		{"no calls", []provider.Message{user, text}, 2},
		{"the Agent call pending", []provider.Message{user, call("a")}, 1},
		{"one of two answered", []provider.Message{user, text, user, call("a", "b"), result("a")}, 3},
		{"all answered", []provider.Message{user, call("a"), result("a"), text}, 4},
		{"an earlier turn done, the newest pending", []provider.Message{user, call("a"), result("a"), text, user, call("b")}, 5},
	}
	for _, c := range cases {
		if got := Settled(c.in); len(got) != c.want {
			t.Errorf("%s: kept %d messages, want %d", c.name, len(got), c.want)
		}
	}
}

// Wait returns once the background children have ended, and says whether there were any.
func TestManagerWait(t *testing.T) {
	var running, most atomic.Int32
	release := make(chan struct{})
	m := fakeManager(release, &running, &most)
	defer m.Close()
	ctx := context.Background()
	if m.Wait(ctx) {
		t.Fatal("waited with no children")
	}
	id, _ := m.Start(ctx, Spec{Prompt: "x", Background: true})
	time.AfterFunc(50*time.Millisecond, func() { close(release) })
	if !m.Wait(ctx) {
		t.Fatal("did not wait for the background child")
	}
	if r, _ := m.Get(ctx, id, false); r.Status != Done {
		t.Errorf("after Wait the child is %s", r.Status)
	}
	stuck := fakeManager(make(chan struct{}), &running, &most)
	defer stuck.Close()
	stuck.Start(ctx, Spec{Prompt: "y", Background: true})
	short, cancel := context.WithTimeout(ctx, 50*time.Millisecond)
	defer cancel()
	if start := time.Now(); !stuck.Wait(short) || time.Since(start) > 5*time.Second {
		t.Error("Wait should wait for a running child until its context ends")
	}
}

// Next returns at a child's next change, not before, and at once for an ended child.
func TestManagerNext(t *testing.T) {
	var running, most atomic.Int32
	release := make(chan struct{})
	m := fakeManager(release, &running, &most)
	defer m.Close()
	ctx := context.Background()
	id, _ := m.Start(ctx, Spec{Prompt: "x", Background: true})
	testwait.Until(t, "the child running", func() bool { return running.Load() == 1 })
	var changed atomic.Bool // set just before the change: Next returning without it came too early
	time.AfterFunc(50*time.Millisecond, func() { changed.Store(true); m.launch(m.entries[id]).Progress(Progress{Tool: "grep"}) })
	if err := m.Next(ctx, id); err != nil {
		t.Fatal(err)
	}
	if !changed.Load() {
		t.Error("Next returned before the child changed")
	}
	if r, _ := m.Get(ctx, id, false); r.Tool != "grep" {
		t.Errorf("after Next the child's tool is %q", r.Tool)
	}
	close(release)
	m.Get(ctx, id, true)
	if err := m.Next(ctx, id); err != nil {
		t.Errorf("Next of an ended child: %v", err)
	}
	if m.Next(ctx, "agent-9") == nil {
		t.Error("Next of an unknown id should fail")
	}
}

// fakeManager is a manager of the built-in types whose children are fakes that end when
// release closes, counting those running in running and the most at once in most.
func fakeManager(release chan struct{}, running, most *atomic.Int32) *Manager {
	return New(Options{Types: Builtins(), Factory: func(ctx context.Context, l Launch) (Child, error) {
		return &fake{release: release, steered: make(chan string, 1), running: running, most: most}, nil
	}})
}

// A child's progress says what it does: "writing" while a reply streams, a tool's name while
// it runs, nothing between; a user message or an event of no interest reports nothing.
func TestChildProgress(t *testing.T) {
	var tools []string
	c := NewSessionChild(Launch{ID: "agent-1", Progress: func(p Progress) { tools = append(tools, p.Tool) }})
	c.Attach(Session{Messages: func() []provider.Message { return nil }})
	forward := c.Forward(func(agent.Event) {})
	reply := &provider.Message{Role: provider.RoleAssistant}
	user := &provider.Message{Role: provider.RoleUser}
	for _, ev := range []agent.Event{
		{Type: "message_start", Message: user},
		{Type: "message_start", Message: reply},
		{Type: "message_update", Message: reply},
		{Type: "message_end", Message: reply},
		{Type: "tool_execution_start", ToolName: "grep"},
		{Type: "tool_execution_end", ToolName: "grep"},
		{Type: "turn_end"},
	} {
		forward(context.Background(), ev)
	}
	if want := []string{"writing", "", "grep", "", ""}; !slices.Equal(tools, want) {
		t.Fatalf("progress tools %q, want %q", tools, want)
	}
}
