package subagent

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"pi/provider"
	"pi/session"
)

// BenchmarkLoadSchedules is what opening a session costs more with scheduling on: reading
// the schedules entry of a session of 2,000 replies of 2 KB each (a 4 MB file).
func BenchmarkLoadSchedules(b *testing.B) {
	dir := b.TempDir()
	path := filepath.Join(dir, "big.jsonl")
	s := session.CreateAt(path, dir)
	text := strings.Repeat("word ", 400)
	for i := range 2000 {
		role := provider.RoleUser
		if i%2 == 1 {
			role = provider.RoleAssistant
		}
		if _, err := s.AppendMessage(provider.Message{Role: role, Content: []provider.Block{{Type: provider.BlockText, Text: text}}}); err != nil {
			b.Fatal(err)
		}
		if i == 1000 {
			if err := SaveSchedules(s, []Scheduled{{ID: "schedule-1", When: "every 1h", Next: now, Spec: Spec{Prompt: "x"}}}); err != nil {
				b.Fatal(err)
			}
		}
	}
	s.Close()
	opened, err := session.Open(context.Background(), path)
	if err != nil {
		b.Fatal(err)
	}
	defer opened.Close()
	b.ResetTimer()
	for range b.N {
		if list, err := LoadSchedules(opened); err != nil || len(list) != 1 {
			b.Fatal(list, err)
		}
	}
}
