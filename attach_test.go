package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"pi/provider"
)

// pngHeader is enough of a PNG for content sniffing.
var pngHeader = []byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x01\x00\x00\x00\x01\x08\x06\x00\x00\x00")

func TestAttachFiles(t *testing.T) {
	dir := t.TempDir()
	write := func(name string, data []byte) { os.WriteFile(filepath.Join(dir, name), data, 0o644) }
	write("notes.txt", []byte("line one\nline two\n"))
	write("pic.png", pngHeader)
	write("blob.bin", []byte{0, 1, 2, 0xff, 0xfe})
	big, _ := os.Create(filepath.Join(dir, "huge.log"))
	big.Truncate(maxAttachment + 1) // sparse: costs no disk
	big.Close()
	os.Mkdir(filepath.Join(dir, "sub"), 0o755)
	tests := []struct {
		paths             []string
		wantText, wantErr string
		wantImages        int
	}{
		{[]string{"notes.txt"}, "<file name=\"" + dir + "/notes.txt\">\nline one\nline two\n</file>\n", "", 0},
		{[]string{"pic.png", "notes.txt"}, "<file name=\"" + dir + "/pic.png\"></file>\n<file name=", "", 1},
		{[]string{"blob.bin"}, "", "neither text nor an image", 0},
		{[]string{"huge.log"}, "", "an @file may have up to", 0},
		{[]string{"sub"}, "", "is a folder", 0},
		{[]string{"missing.txt"}, "", "no such file", 0},
	}
	for _, tt := range tests {
		text, images, err := attachFiles(tt.paths, dir)
		switch {
		case tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr)):
			t.Errorf("%v: error %v, want %q", tt.paths, err, tt.wantErr)
		case tt.wantErr == "" && (err != nil || !strings.HasPrefix(text, tt.wantText) || len(images) != tt.wantImages):
			t.Errorf("%v: %q, %d images, %v", tt.paths, text, len(images), err)
		case len(images) > 0 && (images[0].MimeType != "image/png" || images[0].Type != provider.BlockImage):
			t.Errorf("%v: image block %+v", tt.paths, images[0])
		}
	}
}

// TestBinaryAttachesFilesToTheFirstPrompt: `pi @notes.txt @pic.png "question"` sends one user
// message holding the file's text, the image, and the question.
func TestBinaryAttachesFilesToTheFirstPrompt(t *testing.T) {
	bin := buildPi(t)
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("remember the milk\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "pic.png"), pngHeader, 0o644)
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
