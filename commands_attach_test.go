package main

import (
	"encoding/base64"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"pi/provider"
)

// onePixelPNG is a 1×1 PNG.
var onePixelPNG, _ = base64.StdEncoding.DecodeString("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==")

// TestBinaryAttachesFilesToTheFirstPrompt: `pi @notes.txt @pic.png "question"` sends one user
// message holding the file's text, the image, and the question.
func TestBinaryAttachesFilesToTheFirstPrompt(t *testing.T) {
	bin := buildPi(t)
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("remember the milk\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "pic.png"), onePixelPNG, 0o644)
	hello, _ := filepath.Abs(filepath.Join("testdata", "faux", "hello.json"))
	r := runPi(t, bin, dir, "--no-session", "--mode", "json", "--faux-script", hello, "@notes.txt", "@pic.png", "what now?")
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	for _, line := range strings.Split(r.stdout, "\n") {
		var ev struct {
			Type    string           `json:"type"`
			Message provider.Message `json:"message"`
		}
		if json.Unmarshal([]byte(line), &ev) != nil || ev.Type != "message_end" || ev.Message.Role != provider.RoleUser {
			continue
		}
		text, images := ev.Message.TextContent(), 0
		for _, b := range ev.Message.Content {
			if b.Type == provider.BlockImage {
				images++
			}
		}
		if !strings.Contains(text, "remember the milk") || !strings.HasSuffix(text, "what now?") || images != 1 {
			t.Fatalf("first message: %q with %d images", text, images)
		}
		return
	}
	t.Fatalf("no user message in:\n%s", r.stdout)
}
