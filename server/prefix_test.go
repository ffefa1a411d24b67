package server

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// storeSession writes a session file with id under the server's sessions folder.
func storeSession(t *testing.T, k *harnessKit, id string) {
	t.Helper()
	dir := filepath.Join(k.srv.opts.PiHome, "sessions", "--work--")
	os.MkdirAll(dir, 0o700)
	header := `{"type":"session","version":3,"id":"` + id + `","timestamp":"2026-01-02T03:04:05.000Z","cwd":"/work"}` + "\n"
	if err := os.WriteFile(filepath.Join(dir, "2026-01-02T03-04-05-000Z_"+id+".jsonl"), []byte(header), 0o600); err != nil {
		t.Fatal(err)
	}
}

// TestAttachTakesAUniqueIDPrefix: attach (pi attach, --connect --session) takes what
// `pi sessions` prints, a unique prefix of an id, of a stored session or of a live one that
// has no file yet; a prefix two sessions share is refused naming both, an unknown one is
// not_found.
func TestAttachTakesAUniqueIDPrefix(t *testing.T) {
	k := startServer(t, slowReply("x", 0), nil)
	storeSession(t, k, "01a2b3c4-0000-7000-8000-000000000001")
	storeSession(t, k, "77aa0000-0000-7000-8000-000000000001")
	storeSession(t, k, "77aa0000-0000-7000-8000-000000000002")
	owner := k.dial()
	live := snapshotOf(request(t, owner, map[string]any{"command": "create"}))["id"].(string)
	cases := []struct {
		ref, want, code string
	}{
		{"01a2b3c4", "01a2b3c4-0000-7000-8000-000000000001", ""},
		{"01a2b3c4-0000-7000-8000-000000000001", "01a2b3c4-0000-7000-8000-000000000001", ""},
		{live[:13], live, ""},
		{"77aa0000", "", "ambiguous"},
		{"ffff", "", "not found"},
	}
	for _, c := range cases {
		t.Run(c.ref, func(t *testing.T) {
			res, err := k.dial().Request(context.Background(), map[string]any{"command": "attach", "sessionId": c.ref})
			if c.code != "" {
				if err == nil || !strings.Contains(err.Error(), c.code) {
					t.Fatalf("attach %q: %v, want an error saying %q", c.ref, err, c.code)
				}
				return
			}
			if err != nil {
				t.Fatalf("attach %q: %v", c.ref, err)
			}
			if got := snapshotOf(res)["id"]; got != c.want {
				t.Fatalf("attach %q gave session %v, want %s", c.ref, got, c.want)
			}
		})
	}
	k.mu.Lock()
	defer k.mu.Unlock()
	if len(k.opened) != 2 {
		t.Fatalf("%d runtimes opened, want 2 (the live session is shared, not opened again)", len(k.opened))
	}
}
