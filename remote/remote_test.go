package remote

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"pi/provider"
)

func TestPick(t *testing.T) {
	wd, _ := os.Getwd()
	list := []any{
		map[string]any{"id": "aaa-1", "cwd": wd, "updatedAt": int64(10)},
		map[string]any{"id": "aab-2", "cwd": wd, "updatedAt": int64(30)},
		map[string]any{"id": "bbb-3", "cwd": "/elsewhere", "updatedAt": int64(99)},
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
		got, err := pick(list, c.ref)
		if got != c.want || (err != nil) != c.fails {
			t.Errorf("pick(%q) = %q, %v; want %q (fails %v)", c.ref, got, err, c.want, c.fails)
		}
	}
	if got, err := pick(list[2:], ""); got != "" || err != nil {
		t.Errorf("no session here: %q, %v (want a new one)", got, err)
	}
}

func TestMessageOf(t *testing.T) {
	item := map[string]any{"role": "assistant", "status": "error", "stopReason": "error", "errorMessage": "boom",
		"content": []any{
			map[string]any{"type": "thinking", "thinking": "hmm"},
			map[string]any{"type": "text", "text": "hi"},
			map[string]any{"type": "toolCall", "toolCallId": "c1", "toolName": "bash", "input": map[string]any{"command": "ls"}},
		}}
	m := messageOf(item)
	if m.Role != provider.RoleAssistant || m.StopReason != provider.StopError || m.ErrorMessage != "boom" || len(m.Content) != 3 {
		t.Fatalf("message: %+v", m)
	}
	if c := m.Content[2]; c.Type != provider.BlockToolCall || c.ID != "c1" || c.Arguments["command"] != "ls" {
		t.Errorf("tool call: %+v", c)
	}
	if m.TextContent() != "hi" {
		t.Errorf("text %q", m.TextContent())
	}
}

func TestFooterSumsTheTranscriptsUsage(t *testing.T) {
	usage := func(in, out, total int64, cost float64) map[string]any {
		return map[string]any{"input": in, "output": out, "cacheRead": int64(0), "cacheWrite": int64(0), "totalTokens": total,
			"cost": map[string]any{"total": cost}}
	}
	snap := map[string]any{"cwd": "/w", "name": "n", "thinkingLevel": "off",
		"model": map[string]any{"provider": "ollama", "id": "qwen3:8b"},
		"transcript": []any{
			map[string]any{"role": "user"},
			map[string]any{"role": "assistant", "usage": usage(100, 20, 120, 0.5)},
			map[string]any{"role": "tool"},
			map[string]any{"role": "assistant", "usage": usage(150, 30, 180, 0.25)},
		}}
	cases := []struct {
		name   string
		models []map[string]any
		window int
	}{
		{"the model listed", []map[string]any{{"provider": "ollama", "id": "qwen3:8b", "contextWindow": int64(40960)}}, 40960},
		{"another model listed", []map[string]any{{"provider": "ollama", "id": "other", "contextWindow": int64(8)}}, 0},
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
// without the current one, this folder's first and the latest first; a file's first prompt
// names a session without a name.
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
	list := []any{
		map[string]any{"id": "current", "cwd": "/here", "updatedAt": int64(5e12)},
		map[string]any{"id": "listed", "cwd": "/here", "updatedAt": int64(4e12), "sessionName": "named"},
		map[string]any{"id": "far", "cwd": "/elsewhere", "updatedAt": int64(6e12)},
	}
	got := resumeChoices(context.Background(), list, "/here", "current", dir)
	var ids []string
	for _, c := range got {
		ids = append(ids, c.id)
	}
	if strings.Join(ids, ",") != "listed,only-on-disk,far" {
		t.Fatalf("choices %v", ids)
	}
	if !strings.Contains(got[0].label, "named · 1 messages") || !strings.Contains(got[1].label, "fix the parser") ||
		!strings.Contains(got[2].label, "far · /elsewhere") {
		t.Fatalf("labels %q", []string{got[0].label, got[1].label, got[2].label})
	}
}

// open attaches to the session a reference names in the server's real list, and refuses an
// ambiguous or unknown one without attaching.
func TestOpenPicksFromTheServersList(t *testing.T) {
	k := startKit(t, nil)
	c := k.dial(t)
	ctx := context.Background()
	for range 2 {
		if _, err := c.Request(ctx, map[string]any{"command": "create"}); err != nil {
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
		if err != nil || str(snap["id"]) != cs.want {
			t.Errorf("open(%q) = %v, %v; want %s", cs.ref, snap["id"], err, cs.want)
		}
	}
	// No reference and no session of this folder: a new session.
	snap, err := open(ctx, c, "")
	if err != nil || str(snap["id"]) != "sess-3" {
		t.Errorf("open with no reference: %v, %v", snap["id"], err)
	}
}
