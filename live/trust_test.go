package live

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"pi/lua"
	"pi/session"
)

// TestTrustAskedInTheUIAndChangedAtWill: in the terminal UI an undecided project's script is
// left unloaded (not refused for good) until the user answers; /trust loads or unloads it at
// once, and the answer is kept where the message says.
func TestTrustAskedInTheUIAndChangedAtWill(t *testing.T) {
	dir, home := t.TempDir(), t.TempDir()
	t.Setenv("PI_HOME", home)
	os.MkdirAll(filepath.Join(dir, ".pi"), 0o755)
	os.WriteFile(filepath.Join(dir, ".pi", "init.lua"), []byte(`pi.register_command{name = "hello", run = function() end}`), 0o644)
	hello, _ := filepath.Abs(filepath.Join("..", "testdata", "faux", "hello.json"))
	var stderr bytes.Buffer
	h, err := New(context.Background(), Options{Cwd: dir, FauxScript: hello, Session: session.Choice{InMemory: true},
		Interactive: true, Stderr: &stderr})
	if err != nil {
		t.Fatal(err)
	}
	defer h.close()
	has := func() bool { _, _, ok := h.scripts.command("/hello"); return ok }
	if !trustUndecided(h) || has() {
		t.Fatalf("before the answer: undecided %v, script loaded %v", trustUndecided(h), has())
	}
	if _, decided, _ := lua.TrustDecision(home, dir); decided {
		t.Fatal("the trust question was answered before anyone asked")
	}
	for _, trusted := range []bool{true, false, true} {
		msg, err := setTrust(context.Background(), h, trusted)
		if err != nil || has() != trusted || !strings.Contains(msg, lua.TrustFile(home)) {
			t.Fatalf("setTrust(%v): %q, %v; script loaded %v", trusted, msg, err, has())
		}
		if got, decided, _ := lua.TrustDecision(home, dir); !decided || got != trusted {
			t.Fatalf("after setTrust(%v) trust.json says %v (decided %v)", trusted, got, decided)
		}
	}
	if strings.Contains(stderr.String(), "[y/N]") {
		t.Fatalf("asked on the bare terminal: %q", stderr.String())
	}
}
