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
		{"key starts sk-abcdefg…", "key starts [redacted]…"},                              // a prefix
		{"Incorrect key: sk-abc****gh-longer", "Incorrect key: [redacted]****[redacted]"}, // as a server masks it
		{"tail: cdefgh-lon", "tail: [redacted]"},
		{"five: sk-ab fine", "five: sk-ab fine"}, // at most five characters in a row show
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

// TestRedactPartOfARealKey: a 14-character prefix of a key, as `echo ${KEY:0:14}` prints it,
// shows none of it; nor does a key's last part.
func TestRedactPartOfARealKey(t *testing.T) {
	const key = "sk-proj-Qx7vR2mK9pL4nB8wT1yZ"
	for _, text := range []string{key[:14], "x" + key[:14] + "y", key[len(key)-10:], "Bearer " + key} {
		got := RedactKeys(text, key)
		for i := 0; i+minPartialLen <= len(key); i++ {
			if strings.Contains(got, key[i:i+minPartialLen]) {
				t.Fatalf("RedactKeys(%q) = %q: %q of the key shows", text, got, key[i:i+minPartialLen])
			}
		}
	}
}

func TestHeaderSecrets(t *testing.T) {
	got := HeaderSecrets(map[string]string{"Authorization": "Bearer tok-1234567890", "X-Api-Key": "abcdefghij",
		"Cookie": "session=cookie-secret-1; theme=dark", "HTTP-Referer": "https://example.com/app", "X-Client": "pi"})
	slices.Sort(got)
	want := []string{"abcdefghij", "cookie-secret-1", "tok-1234567890"}
	if !slices.Equal(got, want) {
		t.Fatalf("HeaderSecrets = %q, want %q", got, want)
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
