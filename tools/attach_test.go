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
