package session

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"pi/provider"
)

// A custom message recorded as a message becomes pi's custom_message entry, and comes back
// from the file as the custom message it was; the model reads it as the user's.
func TestAppendMessageCustomIsCustomMessageEntry(t *testing.T) {
	dir := t.TempDir()
	s := Create(dir, "/p")
	m := provider.Message{Role: RoleCustom, Content: []provider.Block{provider.Text("remember this")}, StringContent: true,
		Details: json.RawMessage(`{"n":1}`), Timestamp: time.Now().UnixMilli(),
		Extra: map[string]json.RawMessage{"customType": json.RawMessage(`"note"`), "display": json.RawMessage(`true`)}}
	if _, err := s.AppendMessage(provider.UserText("hi", 1)); err != nil {
		t.Fatal(err)
	}
	if _, err := s.AppendMessage(m); err != nil {
		t.Fatal(err)
	}
	if _, err := s.AppendMessage(provider.Message{Role: provider.RoleAssistant, Content: []provider.Block{provider.Text("ok")}}); err != nil {
		t.Fatal(err)
	}
	s.Close()
	data, _ := os.ReadFile(s.Path())
	if !strings.Contains(string(data), `"type":"custom_message","customType":"note"`) || !strings.Contains(string(data), `"content":"remember this","display":true,"details":{"n":1}`) {
		t.Fatalf("file:\n%s", data)
	}
	files, _ := filepath.Glob(filepath.Join(dir, "*.jsonl"))
	back, err := Open(context.Background(), files[0])
	if err != nil {
		t.Fatal(err)
	}
	defer back.Close()
	c, err := back.Context()
	if err != nil {
		t.Fatal(err)
	}
	got := c.Messages[1]
	if got.Role != RoleCustom || CustomType(&got) != "note" || !Displayed(&got) || string(got.Details) != `{"n":1}` {
		t.Fatalf("read back %+v", got)
	}
	if llm := ToLLM(c.Messages); llm[1].Role != provider.RoleUser || llm[1].TextContent() != "remember this" {
		t.Fatalf("the model reads %+v", llm[1])
	}
}
