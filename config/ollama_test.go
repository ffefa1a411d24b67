package config

import (
	"strings"
	"testing"
)

// TestOllamaModel: the Ollama server a spec's model would come from (discovery, the built-in
// provider, a configured one, OLLAMA_HOST) and its id there, and none for a model of another API.
func TestOllamaModel(t *testing.T) {
	user := `[providers.box]
kind = "ollama"
base_url = "http://10.0.0.5:11434/"
[[providers.box.models]]
id = "big"
[providers.lm]
kind = "openai"
base_url = "http://127.0.0.1:1234/v1"
`
	cases := []struct {
		model, spec, env, want, id string
		ok                         bool
	}{
		{"", "", "", "http://127.0.0.1:11434", "", true},
		{"", "", "127.0.0.1:9999", "http://127.0.0.1:9999", "", true},
		{"ollama/qwen3:high", "", "", "http://127.0.0.1:11434", "qwen3", true},
		{"", "box/anything", "", "http://10.0.0.5:11434", "anything", true},
		{"", "big", "", "http://10.0.0.5:11434", "big", true},
		{"", "box", "", "http://10.0.0.5:11434", "big", true},
		{"", "lm/qwen", "", "", "", false},
		{"lm/qwen", "", "", "", "", false},
		{"", "nobody/x", "", "", "", false},
	}
	for _, c := range cases {
		cfg := loadBoth(t, "model = \""+c.model+"\"\n"+user, "", true)
		cfg.getenv = func(k string) string {
			if k == "OLLAMA_HOST" {
				return c.env
			}
			return ""
		}
		host, id, ok := cfg.OllamaModel(c.spec)
		if host != c.want || id != c.id || ok != c.ok {
			t.Errorf("model %q, spec %q, OLLAMA_HOST %q: %q, %q, %v; want %q, %q, %v", c.model, c.spec, c.env, host, id, ok, c.want, c.id, c.ok)
		}
	}
}

// TestOllamaStartOnlyFromTheUsersFile: [ollama] start runs a program, so a project's file,
// even a trusted one, cannot set it; a value pi does not know is an error.
func TestOllamaStartOnlyFromTheUsersFile(t *testing.T) {
	c := loadBoth(t, "", "[ollama]\nstart = \"detached\"\n", true)
	if c.Ollama.StartMode() != OllamaStartAsk || !strings.Contains(strings.Join(c.Warnings, "\n"), "ollama.start is only read from $PI_HOME/pi.toml") {
		t.Errorf("a project set ollama.start: %q, warnings %q", c.Ollama.StartMode(), c.Warnings)
	}
	if c := loadBoth(t, "[ollama]\nstart = \"child\"\n", "", false); c.Ollama.StartMode() != OllamaStartChild {
		t.Errorf("the user's file: %q", c.Ollama.StartMode())
	}
	home := t.TempDir()
	writeFile(t, home+"/pi.toml", "[ollama]\nstart = \"always\"\n")
	if _, err := Load(home, t.TempDir(), false); err == nil || !strings.Contains(err.Error(), `ollama.start = "always"`) {
		t.Errorf("an unknown start: %v", err)
	}
}
