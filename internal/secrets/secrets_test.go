package secrets

import (
	"slices"
	"strings"
	"testing"
)

func TestHidden(t *testing.T) {
	p := &Policy{KeyVars: []string{"WORK_LLM"}, Allow: []string{"GH_TOKEN"}}
	for name, hidden := range map[string]bool{
		"WORK_LLM": true, "OPENAI_API_KEY": true, "aws_secret_access_key": true, "GITHUB_TOKEN": true,
		"DB_PASSWORD": true, "MyKeyring": true, "GH_TOKEN": false, "PATH": false, "HOME": false, "WORK_LLM_URL": false,
	} {
		if got := p.Hidden(name); got != hidden {
			t.Errorf("Hidden(%q) = %v, want %v", name, got, hidden)
		}
	}
	got := p.Filter([]string{"PATH=/bin", "WORK_LLM=x", "GH_TOKEN=y", "A_TOKEN=z", "EMPTY="})
	if !slices.Equal(got, []string{"PATH=/bin", "GH_TOKEN=y", "EMPTY="}) {
		t.Errorf("Filter = %q", got)
	}
}

func TestRedact(t *testing.T) {
	keys := []string{"sk-abcdefgh", "sk-abcdefgh-longer", "short", `quo"te-key-1`, "  sk-spaced-key  "}
	p := &Policy{Values: func() []string { return keys }}
	tests := []struct{ in, want string }{
		{"key=sk-abcdefgh end", "key=[redacted] end"},
		{"sk-abcdefgh-longer", "[redacted]"},
		{"a short word stays", "a short word stays"},
		{`{"t":"quo\"te-key-1"}`, `{"t":"[redacted]"}`},
		{"sk-spaced-key", "[redacted]"},
		{"nothing here", "nothing here"},
	}
	for _, tt := range tests {
		got, changed := p.Redact(tt.in)
		if got != tt.want || changed != (tt.in != tt.want) {
			t.Errorf("Redact(%q) = %q, %v; want %q", tt.in, got, changed, tt.want)
		}
	}
	var none *Policy
	if got, changed := none.Redact("x sk-abcdefgh"); changed || got != "x sk-abcdefgh" {
		t.Error("a nil policy redacted")
	}
}

func FuzzRedact(f *testing.F) {
	f.Add("sk-abcdefgh", "text sk-abcdefgh text")
	f.Fuzz(func(t *testing.T, key, text string) {
		p := &Policy{Values: func() []string { return []string{key} }}
		got, _ := p.Redact(text)
		if k := p.keys(); len(k) > 0 && strings.Contains(got, k[len(k)-1]) && !strings.Contains(Redacted, k[len(k)-1]) {
			t.Fatalf("Redact(%q) with key %q left it in: %q", text, key, got)
		}
	})
}
