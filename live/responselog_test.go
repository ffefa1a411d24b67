package live

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"pi/provider"
	"pi/provider/faux"
	"pi/session"
)

// [log] responses gets one line per model response, with the cost only where the model has a
// price.
func TestResponseLogLines(t *testing.T) {
	cases := []struct {
		name     string
		cost     provider.ModelCost
		wantCost bool
	}{
		{"priced model", provider.ModelCost{Input: 3, Output: 15}, true},
		{"local model", provider.ModelCost{}, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			home := t.TempDir()
			if err := os.WriteFile(filepath.Join(home, "pi.toml"), []byte("[log]\nresponses = \"responses.jsonl\"\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			h, err := New(context.Background(), Options{PiHome: home, Cwd: t.TempDir(), Provider: faux.New(faux.Text("one"), faux.Text("two")),
				ProviderModel: provider.Model{ID: "m1", Provider: "faux", API: "faux", Cost: tc.cost}, Session: session.Choice{InMemory: true}, Stderr: os.Stderr})
			if err != nil {
				t.Fatal(err)
			}
			defer h.Close()
			for _, text := range []string{"a", "b"} {
				if err := h.Send(context.Background(), Input{Text: text, Source: SourceRPC}); err != nil {
					t.Fatal(err)
				}
			}
			data, err := os.ReadFile(filepath.Join(home, "responses.jsonl"))
			if err != nil {
				t.Fatal(err)
			}
			lines := strings.Split(strings.TrimSpace(string(data)), "\n")
			if len(lines) != 2 {
				t.Fatalf("%d lines, want 2:\n%s", len(lines), data)
			}
			for _, l := range lines {
				var got map[string]any
				if err := json.Unmarshal([]byte(l), &got); err != nil {
					t.Fatalf("line %q: %v", l, err)
				}
				for _, key := range []string{"time", "session", "model", "input_tokens", "output_tokens", "cache_read", "cache_write"} {
					if _, ok := got[key]; !ok {
						t.Errorf("line %s has no %s", l, key)
					}
				}
				if got["model"] != "faux/m1" || got["session"] != h.State().SessionID {
					t.Errorf("line %s: want model faux/m1 and session %s", l, h.State().SessionID)
				}
				if _, has := got["cost"]; has != tc.wantCost {
					t.Errorf("line %s: cost present %v, want %v", l, has, tc.wantCost)
				}
			}
		})
	}
}
