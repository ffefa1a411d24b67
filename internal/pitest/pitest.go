// Package pitest holds helpers for tests only, as net/http/httptest does: what the root
// package's tests and package live's tests both need to build a scripted model's replies and
// read back a session. It must not import package live (live's own tests import it) nor the
// root package, and nothing but tests may import it.
package pitest

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"pi/provider"
	"pi/provider/faux"
	"pi/session"
)

// FauxModel is the scripted provider's model, with a large window.
func FauxModel(reasoning bool) provider.Model {
	return provider.Model{ID: "faux-1", Provider: "faux", API: "faux", ContextWindow: 128000, Reasoning: reasoning}
}

// Call is an assistant reply that makes one tool call.
func Call(id, name string, args map[string]any) provider.Message {
	return faux.Blocks(faux.Call(id, name, args))
}

// EntriesOfType reads the session's entries of one type.
func EntriesOfType(t testing.TB, s *session.Session, typ session.Type) []session.Entry {
	t.Helper()
	all, err := s.Entries()
	if err != nil {
		t.Fatal(err)
	}
	var out []session.Entry
	for _, e := range all {
		if e.Type == typ {
			out = append(out, e)
		}
	}
	return out
}

// Transcript renders a transcript as "role:text" items joined by " | ": a summary stands for
// its message, a tool call's name for a reply without text, and only a text's first line.
func Transcript(msgs []provider.Message) string {
	var out []string
	for _, m := range msgs {
		text := m.TextContent()
		if s := session.Summary(&m); s != "" {
			text = s
		}
		if text == "" && len(m.ToolCalls()) > 0 {
			text = m.ToolCalls()[0].Name
		}
		out = append(out, string(m.Role)+":"+strings.SplitN(text, "\n", 2)[0])
	}
	return strings.Join(out, " | ")
}

// Roles are the messages' roles, in order.
func Roles(msgs []provider.Message) []string {
	out := make([]string, len(msgs))
	for i := range msgs {
		out[i] = string(msgs[i].Role)
	}
	return out
}

// InOrder reports whether want appears in have in order, other items between them allowed.
func InOrder(have, want []string) bool {
	i := 0
	for _, h := range have {
		if i < len(want) && h == want[i] {
			i++
		}
	}
	return i == len(want)
}

// Router answers every model call of a parent and its children: who is the text of the
// call's first user message (the parent's prompt, or a child's task).
type Router func(who string, last provider.Message, req *provider.Request) provider.Message

// RouterProvider is a scripted provider whose replies, enough for a parent and its
// children, all come from r.
func RouterProvider(r Router) *faux.Provider {
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
	return faux.New(steps...)
}

// SubagentHome is a pi home with toml as its pi.toml, and a project folder holding notes.txt.
func SubagentHome(t testing.TB, toml string) (home, cwd string) {
	t.Helper()
	home, cwd = t.TempDir(), t.TempDir()
	if err := os.WriteFile(filepath.Join(cwd, "notes.txt"), []byte("the answer is 42\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(home, "pi.toml"), []byte(toml), 0o644); err != nil {
		t.Fatal(err)
	}
	return home, cwd
}

// SubCall is a reply that calls one tool, with an id of its own.
func SubCall(name string, args map[string]any) provider.Message {
	m := faux.Blocks(faux.Call("call_"+name+time.Now().Format("150405.000000000"), name, args))
	m.StopReason = provider.StopToolUse
	return m
}

// ToolResultTexts are the texts of the tool results among msgs.
func ToolResultTexts(msgs []provider.Message) []string {
	var out []string
	for _, m := range msgs {
		if m.Role == provider.RoleToolResult {
			out = append(out, m.TextContent())
		}
	}
	return out
}

// LuaProviderHome is a pi home whose init.lua is the script at scriptPath followed by more,
// with [extensions.ollama-lua] pointed at baseURL; pi.toml's ollama provider points nowhere.
func LuaProviderHome(t testing.TB, scriptPath, baseURL string, more ...string) string {
	t.Helper()
	home := t.TempDir()
	src, err := os.ReadFile(scriptPath)
	if err != nil {
		t.Fatal(err)
	}
	toml := "[extensions.ollama-lua]\nbase_url = \"" + baseURL + "\"\n\n[providers.ollama]\nbase_url = \"http://127.0.0.1:9\"\n"
	if err := os.WriteFile(filepath.Join(home, "init.lua"), append(src, strings.Join(more, "\n")...), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(home, "pi.toml"), []byte(toml), 0o644); err != nil {
		t.Fatal(err)
	}
	return home
}

// Git runs git in dir as a user named t and returns its output, trimmed.
func Git(t testing.TB, dir string, args ...string) string {
	t.Helper()
	out, err := exec.Command("git", append([]string{"-C", dir, "-c", "user.name=t", "-c", "user.email=t@t"}, args...)...).CombinedOutput()
	if err != nil {
		t.Fatalf("git %v: %v: %s", args, err, out)
	}
	return strings.TrimSpace(string(out))
}

// TOMLString is s as a TOML (and JSON) string.
func TOMLString(s string) string { b, _ := json.Marshal(s); return string(b) }

// SummaryModel answers summary requests with "## Goal\nBRANCH" and keeps their prompts.
type SummaryModel struct {
	mu      sync.Mutex
	prompts []string
}

// Reply is the model's answer to req (a faux.Reply).
func (sm *SummaryModel) Reply(req *provider.Request) provider.Message {
	sm.mu.Lock()
	defer sm.mu.Unlock()
	sm.prompts = append(sm.prompts, req.Messages[0].TextContent())
	return faux.Text("## Goal\nBRANCH")
}

// CheckRequest checks that the model was asked once, with every text of want and none of
// not; with want empty, that it was never asked.
func (sm *SummaryModel) CheckRequest(t testing.TB, want, not []string) {
	t.Helper()
	sm.mu.Lock()
	defer sm.mu.Unlock()
	if len(want) == 0 {
		if len(sm.prompts) != 0 {
			t.Errorf("the model was asked %d times, want never", len(sm.prompts))
		}
		return
	}
	if len(sm.prompts) != 1 {
		t.Fatalf("the model was asked %d times, want once", len(sm.prompts))
	}
	for _, w := range want {
		if !strings.Contains(sm.prompts[0], w) {
			t.Errorf("summary request lacks %q", w)
		}
	}
	for _, w := range not {
		if strings.Contains(sm.prompts[0], w) {
			t.Errorf("summary request contains %q", w)
		}
	}
}
