package session

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"pi/provider"
)

// A Claude Code session becomes pi's messages: its main thread in order, an assistant reply
// split over lines joined into one, tool results named after their calls; side chains, meta
// lines, summaries and unreadable lines left out (the last counted).
func TestImportClaudeCodeSession(t *testing.T) {
	dir := t.TempDir()
	s, skipped, err := Import(context.Background(), "../testdata/sessions/claude-code.jsonl", dir, "/home/ada/proj")
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if skipped != 1 {
		t.Errorf("skipped %d lines, want 1 (the one that is not JSON)", skipped)
	}
	msgs := contextMessages(t, s)
	var roles []string
	for _, m := range msgs {
		roles = append(roles, string(m.Role))
	}
	if want := []string{"user", "assistant", "toolResult", "assistant", "user"}; !reflect.DeepEqual(roles, want) {
		t.Fatalf("roles %v, want %v", roles, want)
	}
	call := msgs[1]
	if len(call.Content) != 2 || call.Content[0].Thinking != "Read the test first." || call.Content[1].Name != "Read" ||
		call.StopReason != provider.StopToolUse || call.Usage.CacheRead != 100 || call.Model != "claude-sonnet-4-20250514" {
		t.Errorf("the joined reply: %+v", call)
	}
	if r := msgs[2]; r.ToolCallID != "toolu_1" || r.ToolName != "Read" || !strings.Contains(r.TextContent(), "TestParse") {
		t.Errorf("the tool result: %+v", r)
	}
	if msgs[4].TextContent() != "thanks" || msgs[0].Timestamp == 0 {
		t.Errorf("user messages: %q at %d", msgs[4].TextContent(), msgs[0].Timestamp)
	}
	if _, err := os.Stat(s.Path()); err != nil || filepath.Dir(s.Path()) != dir {
		t.Errorf("the new session %s: %v; want a file in %s", s.Path(), err, dir)
	}
	s.Close()
	again, err := Open(context.Background(), s.Path()) // written whole: it opens as it was made
	if err != nil {
		t.Fatal(err)
	}
	defer again.Close()
	if len(contextMessages(t, again)) != len(msgs) {
		t.Errorf("reopened with %d messages, want %d", len(contextMessages(t, again)), len(msgs))
	}
}

// A pi session is imported as a copy with the same messages; a file of neither kind is refused.
func TestImportPiSessionAndRefusals(t *testing.T) {
	s, _, err := Import(context.Background(), fixture, t.TempDir(), "/w")
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	src, err := Open(context.Background(), fixture)
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	if len(contextMessages(t, s)) != len(contextMessages(t, src)) || s.ID() == src.ID() {
		t.Errorf("imported %d messages (id %s), the source has %d (id %s): want the same messages, a new id",
			len(contextMessages(t, s)), s.ID(), len(contextMessages(t, src)), src.ID())
	}
	for _, content := range []string{"", "\n\n", "hello\n", `{"type":"other"}` + "\n"} {
		path := filepath.Join(t.TempDir(), "x.jsonl")
		if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		if _, _, err := Import(context.Background(), path, t.TempDir(), "/w"); !errors.Is(err, ErrUnknownFormat) {
			t.Errorf("Import of %q: %v, want ErrUnknownFormat", content, err)
		}
	}
}

// contextMessages is the session's context: the messages the model would see.
func contextMessages(t *testing.T, s *Session) []provider.Message {
	t.Helper()
	c, err := s.Context()
	if err != nil {
		t.Fatal(err)
	}
	return c.Messages
}

func FuzzClaudeCodeLines(f *testing.F) {
	data, err := os.ReadFile("../testdata/sessions/claude-code.jsonl")
	if err != nil {
		f.Fatal(err)
	}
	for _, l := range strings.Split(string(data), "\n") {
		f.Add(l)
	}
	f.Fuzz(func(t *testing.T, line string) {
		msgs, _, _ := claudeCodeMessages(context.Background(), strings.NewReader(line+"\n"+line))
		for _, m := range msgs {
			if m.Role == provider.RoleAssistant && m.Usage == nil {
				t.Fatalf("an assistant message without usage from %q", line)
			}
		}
	})
}
