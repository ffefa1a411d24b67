package tools

import (
	"os"
	"path/filepath"
	"pi/provider"
	"strings"
	"testing"
)

func TestAttachFiles(t *testing.T) {
	dir := t.TempDir()
	write := func(name string, data []byte) { os.WriteFile(filepath.Join(dir, name), data, 0o644) }
	write("notes.txt", []byte("line one\nline two\n"))
	write("pic.png", encodedImage(t, "png", 2, 2))
	write("blob.bin", []byte{0, 1, 2, 0xff, 0xfe})
	big, _ := os.Create(filepath.Join(dir, "huge.log"))
	big.Truncate(MaxAttachment + 1) // sparse: costs no disk
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
		text, images, err := Attachments(tt.paths, dir)
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

// TestAttachTyped: a prompt's @words attach as the command line's @file arguments do, with
// the same reasons for the ones that cannot go, and the typed text always sent whole.
func TestAttachTyped(t *testing.T) {
	dir := t.TempDir()
	write := func(name string, data []byte) { os.WriteFile(filepath.Join(dir, name), data, 0o644) }
	write("main.go", []byte("package main\n"))
	write("my notes.txt", []byte("hello"))
	write("blob.bin", []byte{0, 1, 2, 0xff})
	write("pic.png", encodedImage(t, "png", 2, 2))
	big, _ := os.Create(filepath.Join(dir, "huge.log"))
	big.Truncate(MaxAttachment + 1)
	big.Close()
	os.Mkdir(filepath.Join(dir, "sub"), 0o755)
	block := func(name, body string) string {
		return "<file name=\"" + dir + "/" + name + "\">\n" + body + "\n</file>\n"
	}
	tests := []struct {
		name, text string
		withImages bool
		wantText   string
		attached   []string
		problems   []string
		images     int
	}{
		{"a text file", "explain @main.go.", false, block("main.go", "package main") + "explain @main.go.", []string{"main.go"}, nil, 0},
		{"quoted with a space, and twice", `@"my notes.txt" and @main.go and @main.go`, false,
			block("my notes.txt", "hello") + block("main.go", "package main") + `@"my notes.txt" and @main.go and @main.go`,
			[]string{"my notes.txt", "main.go"}, nil, 0},
		{"missing, binary, too big, a folder", "@gone.go @blob.bin @huge.log @sub/", false,
			"@gone.go @blob.bin @huge.log @sub/", nil,
			[]string{"no such file: " + dir + "/gone.go; sent as typed", "neither text nor an image", "an @file may have up to", "is a folder"}, 0},
		{"a name that is no path", "ask @alice", false, "ask @alice", nil, nil, 0},
		{"a picture, left to the editor", "see @pic.png", false, "see @pic.png", nil, nil, 0},
		{"a picture, attached", "see @pic.png", true, "<file name=\"" + dir + "/pic.png\"></file>\nsee @pic.png", []string{"pic.png"}, nil, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := AttachTyped(t.Context(), tt.text, dir, tt.withImages)
			if got.Text != tt.wantText {
				t.Errorf("text %q, want %q", got.Text, tt.wantText)
			}
			var words []string
			for _, a := range got.Attached {
				words = append(words, a.Word)
			}
			if strings.Join(words, "|") != strings.Join(tt.attached, "|") || len(got.Images) != tt.images {
				t.Errorf("attached %q and %d images, want %q and %d", words, len(got.Images), tt.attached, tt.images)
			}
			if len(got.Problems) != len(tt.problems) {
				t.Fatalf("problems %v, want %q", got.Problems, tt.problems)
			}
			for i, p := range got.Problems {
				if !strings.Contains(p.Error(), tt.problems[i]) || !strings.HasSuffix(p.Error(), "; sent as typed") {
					t.Errorf("problem %q, want one saying %q and that the word was sent as typed", p, tt.problems[i])
				}
			}
		})
	}
}
