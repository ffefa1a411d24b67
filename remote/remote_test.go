package remote

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"pi/provider"
	"pi/server"
	"pi/termui"
)

func TestPick(t *testing.T) {
	wd := "/work/here"
	list := []server.SessionMetadata{
		{ID: "aaa-1", Cwd: wd, UpdatedAt: 10},
		{ID: "aab-2", Cwd: wd, UpdatedAt: 30},
		{ID: "bbb-3", Cwd: "/elsewhere", UpdatedAt: 99},
	}
	cases := []struct {
		ref, want string
		fails     bool
	}{
		{"", "aab-2", false},      // this folder's latest, not the newest anywhere
		{"bbb", "bbb-3", false},   // a prefix, in any folder
		{"aa", "", true},          // ambiguous
		{"zzz", "", true},         // unknown
		{"aaa-1", "aaa-1", false}, // a whole id
	}
	for _, c := range cases {
		got, err := pick(list, c.ref, wd)
		if got != c.want || (err != nil) != c.fails {
			t.Errorf("pick(%q) = %q, %v; want %q (fails %v)", c.ref, got, err, c.want, c.fails)
		}
	}
	if got, err := pick(list[2:], "", wd); got != "" || err != nil {
		t.Errorf("no session here: %q, %v (want a new one)", got, err)
	}
}

func strp(s string) *string { return &s }

func TestMessageOf(t *testing.T) {
	item := server.Item{Role: "assistant", Status: "error", StopReason: "error", ErrorMessage: "boom",
		Content: []server.Content{
			{Type: "thinking", Thinking: strp("hmm")},
			{Type: "text", Text: strp("hi")},
			{Type: "toolCall", ToolCallID: "c1", ToolName: "bash", Input: json.RawMessage(`{"command":"ls"}`)},
			{Type: "toolCall", ToolCallID: "c2", ToolName: "odd", Input: json.RawMessage(`[1,2]`)},
			{Type: "image", Data: strp("aGk="), MimeType: "image/png"},
			{Type: "text"}, // a part without its text reads as empty, not as a crash
		}}
	m := item.Message()
	if m.Role != provider.RoleAssistant || m.StopReason != provider.StopError || m.ErrorMessage != "boom" || len(m.Content) != 6 {
		t.Fatalf("message: %+v", m)
	}
	if c := m.Content[2]; c.Type != provider.BlockToolCall || c.ID != "c1" || c.Arguments["command"] != "ls" {
		t.Errorf("tool call: %+v", c)
	}
	if c := m.Content[3]; c.ID != "c2" || len(c.Arguments) != 0 {
		t.Errorf("a call whose input is not an object: %+v", c)
	}
	if c := m.Content[4]; c.Type != provider.BlockImage || c.Data != "aGk=" {
		t.Errorf("image: %+v", c)
	}
	if m.TextContent() != "hi" {
		t.Errorf("text %q", m.TextContent())
	}
}

func TestFooterSumsTheTranscriptsUsage(t *testing.T) {
	usage := func(in, out, total int, cost float64) *server.Usage {
		return &server.Usage{Input: in, Output: out, TotalTokens: total, Cost: server.UsageCost{Total: cost}}
	}
	snap := &server.SessionSnapshot{Cwd: "/w", Name: "n", ThinkingLevel: "off", Model: server.ModelRef{Provider: "ollama", ID: "qwen3:8b"},
		Transcript: []server.Item{{Role: "user"}, {Role: "assistant", Usage: usage(100, 20, 120, 0.5)}, {Role: "tool"},
			{Role: "assistant", Usage: usage(150, 30, 180, 0.25)}}}
	cases := []struct {
		name   string
		models []server.ModelMetadata
		window int
	}{
		{"the model listed", []server.ModelMetadata{{Provider: "ollama", ID: "qwen3:8b", ContextWindow: 40960}}, 40960},
		{"another model listed", []server.ModelMetadata{{Provider: "ollama", ID: "other", ContextWindow: 8}}, 0},
		{"no models", nil, 0},
	}
	for _, c := range cases {
		v := &view{models: c.models}
		f := v.footerOfLocked(snap)
		if f.Model != "ollama/qwen3:8b" || f.Input != 250 || f.Output != 50 || f.ContextTokens != 180 || f.Cost != 0.75 ||
			f.ContextWindow != c.window || f.Session != "n" {
			t.Errorf("%s: %+v", c.name, f)
		}
	}
}

// /resume offers the server's sessions and the session files of the folder it does not list,
// without the current one, this folder's first and the latest first, a session started from
// another right below it; a file's first prompt names a session without a name.
func TestResumeChoices(t *testing.T) {
	dir := t.TempDir()
	file := func(id, prompt string) {
		lines := `{"type":"session","version":3,"id":"` + id + `","timestamp":"2026-01-02T03:04:05.000Z","cwd":"/here"}` + "\n" +
			`{"type":"message","id":"e1","parentId":null,"timestamp":"2026-01-02T03:04:06.000Z","message":{"role":"user","content":[{"type":"text","text":"` + prompt + `"}],"timestamp":1}}` + "\n"
		if err := os.WriteFile(filepath.Join(dir, "2026-01-02T03-04-05-000Z_"+id+".jsonl"), []byte(lines), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	file("only-on-disk", "fix the parser")
	file("listed", "listed prompt")
	list := []server.SessionMetadata{
		{ID: "current", Cwd: "/here", UpdatedAt: 5e12},
		{ID: "kid", Cwd: "/here", UpdatedAt: 7e12, ParentSessionID: "listed"},
		{ID: "listed", Cwd: "/here", UpdatedAt: 4e12, SessionName: "named"},
		{ID: "far", Cwd: "/elsewhere", UpdatedAt: 6e12},
	}
	got := resumeChoices(context.Background(), list, "/here", "current", dir)
	var ids []string
	for _, c := range got {
		ids = append(ids, c.ID)
	}
	if strings.Join(ids, ",") != "listed,kid,only-on-disk,far" {
		t.Fatalf("choices %v", ids)
	}
	want := []termui.Resumable{
		{Ref: "listed", ID: "listed", Name: "named", FirstPrompt: "listed prompt", Messages: 1, Counted: true},
		{Ref: "kid", ID: "kid", Mark: "↳ "}, // a child below its parent, though newer
		{Ref: "only-on-disk", ID: "only-on-disk", FirstPrompt: "fix the parser", Messages: 1, Counted: true},
		{Ref: "far", ID: "far", Cwd: "/elsewhere"},
	}
	for i, w := range want {
		g := got[i]
		g.Modified = w.Modified
		if g != w {
			t.Errorf("choice %d: %+v, want %+v", i, g, w)
		}
	}
}

// open attaches to the session a reference names in the server's real list, and refuses an
// ambiguous or unknown one without attaching.
func TestOpenPicksFromTheServersList(t *testing.T) {
	k := startKit(t, nil)
	c := k.dial(t)
	ctx := context.Background()
	for range 2 {
		if _, err := c.Create(ctx, ""); err != nil {
			t.Fatal(err)
		}
	}
	cases := []struct {
		ref, want, fails string
	}{
		{"sess-2", "sess-2", ""},
		{"sess-1", "sess-1", ""},
		{"sess-", "", "ambiguous"},
		{"nope", "", `no session of pi serve starts with "nope"`},
	}
	for _, cs := range cases {
		snap, err := open(ctx, c, cs.ref)
		if cs.fails != "" {
			if err == nil || !strings.Contains(err.Error(), cs.fails) {
				t.Errorf("open(%q): %v, want an error with %q", cs.ref, err, cs.fails)
			}
			continue
		}
		if err != nil || snap.ID != cs.want {
			t.Errorf("open(%q) = %+v, %v; want %s", cs.ref, snap, err, cs.want)
		}
	}
	// No reference and no session of this folder: a new session.
	snap, err := open(ctx, c, "")
	if err != nil || snap.ID != "sess-3" {
		t.Errorf("open with no reference: %+v, %v", snap, err)
	}
}
