package provider

import "testing"

// TestModelSame: an Ollama model named without a tag is the ":latest" its server lists, and
// nothing else is conflated (another tag, another provider, a tag on another API).
func TestModelSame(t *testing.T) {
	ollama := func(id string) Model { return Model{Provider: "ollama", API: "ollama", ID: id} }
	cases := []struct {
		a, b Model
		want bool
	}{
		{ollama("qwen3"), ollama("qwen3:latest"), true},
		{ollama("qwen3:latest"), Model{Provider: "ollama", ID: "qwen3"}, true}, // the current model may lack its API
		{ollama("user/qwen3"), ollama("user/qwen3:latest"), true},
		{ollama("qwen3"), ollama("qwen3:8b"), false},
		{ollama("qwen3"), Model{Provider: "native", API: "ollama", ID: "qwen3:latest"}, false},
		{Model{Provider: "lmstudio", API: "openai", ID: "qwen3"}, Model{Provider: "lmstudio", API: "openai", ID: "qwen3:latest"}, false},
		{Model{Provider: "none", ID: "none"}, Model{Provider: "none", ID: "none"}, true},
	}
	for _, c := range cases {
		if got := c.a.Same(c.b); got != c.want {
			t.Errorf("%s (%s) same as %s (%s): %v, want %v", c.a.Label(), c.a.API, c.b.Label(), c.b.API, got, c.want)
		}
		if got := c.b.Same(c.a); got != c.want {
			t.Errorf("%s same as %s: %v, want %v (not symmetric)", c.b.Label(), c.a.Label(), got, c.want)
		}
	}
}
