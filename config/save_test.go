package config

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestSaveSettingKeepsTheRest(t *testing.T) {
	const file = `# my settings
model = "ollama/qwen3:1.7b" # the small one

[compaction]
# keep it on
enabled = true

[providers.work]
kind = "openai"
base_url = "http://127.0.0.1:1234/v1"
`
	tests := []struct {
		name, table, key string
		value            any
		want             []string // lines the result holds, in order
	}{
		{"replace a top-level key", "", "model", "ollama/llama3", []string{"# my settings", `model = "ollama/llama3" # the small one`, "", "[compaction]"}},
		{"add a top-level key", "", "thinking", "high", []string{"# my settings", `model = "ollama/qwen3:1.7b" # the small one`, `thinking = "high"`, "", "[compaction]"}},
		{"replace in a table", "compaction", "enabled", false, []string{"[compaction]", "# keep it on", "enabled = false", "", "[providers.work]"}},
		{"add to a table", "compaction", "reserve_tokens", 4096, []string{"enabled = true", "reserve_tokens = 4096", "", "[providers.work]"}},
		{"a new table", "bash", "timeout", 60, []string{`base_url = "http://127.0.0.1:1234/v1"`, "", "[bash]", "timeout = 60"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "pi.toml")
			os.WriteFile(path, []byte(file), 0o644)
			if err := SaveSetting(path, tt.table, tt.key, tt.value); err != nil {
				t.Fatal(err)
			}
			data, _ := os.ReadFile(path)
			if !strings.Contains(string(data), strings.Join(tt.want, "\n")) {
				t.Fatalf("got:\n%s\nwant the lines:\n%s", data, strings.Join(tt.want, "\n"))
			}
			if strings.Count(string(data), "#") != strings.Count(file, "#") {
				t.Fatalf("a comment was lost:\n%s", data)
			}
			if _, err := Load(filepath.Dir(path), "", false); err != nil {
				t.Fatalf("the saved file does not load: %v", err)
			}
		})
	}
}

func TestSaveSettingCreatesTheFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "home", "pi.toml")
	if err := SaveSetting(path, "", "thinking", "low"); err != nil {
		t.Fatal(err)
	}
	if err := SaveSetting(path, "compaction", "enabled", false); err != nil {
		t.Fatal(err)
	}
	c, err := Load(filepath.Dir(path), "", false)
	if err != nil || c.Thinking != "low" || c.Compaction.Enabled == nil || *c.Compaction.Enabled {
		t.Fatalf("%+v, %v", c, err)
	}
}

func TestInlineComment(t *testing.T) {
	tests := []struct{ line, want string }{
		{`model = "a" # note`, " # note"},
		{`model = "a#b"`, ""},
		{`model = 'x#y' # c`, " # c"},
		{`model = "q\"#" # d`, " # d"},
		{`n = 3`, ""},
	}
	for _, tt := range tests {
		if got := inlineComment(tt.line); got != tt.want {
			t.Errorf("inlineComment(%q) = %q, want %q", tt.line, got, tt.want)
		}
	}
}
