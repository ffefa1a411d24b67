//go:build unix

package images

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"testing"
)

// fakeTool puts an executable script called name on a fresh PATH.
func fakeTool(t *testing.T, dir, name, script string) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(dir, name), []byte("#!/bin/sh\n"+script), 0o755); err != nil {
		t.Fatal(err)
	}
}

func TestClipboardAsksTheInstalledTool(t *testing.T) {
	if runtime.GOOS == "darwin" {
		t.Skip("on macOS the clipboard is read through osascript")
	}
	png := filepath.Join(t.TempDir(), "clip.png")
	os.WriteFile(png, testPNG(t, 8, 8), 0o644)
	cases := []struct {
		name, wayland string
		tools         map[string]string
		wantErr       error
	}{
		{"xclip", "", map[string]string{"xclip": `[ "$*" = "-selection clipboard -t image/png -o" ] && cat ` + png}, nil},
		{"wl-paste in Wayland", "wayland-0", map[string]string{"wl-paste": `[ "$*" = "--no-newline --type image/png" ] && cat ` + png, "xclip": "exit 1"}, nil},
		{"wl-paste fails, xclip answers", "wayland-0", map[string]string{"wl-paste": "exit 1", "xclip": "cat " + png}, nil},
		{"text in the clipboard", "", map[string]string{"xclip": "echo hello"}, ErrNoClipboardImage},
		{"no tool", "", nil, ErrNoClipboardImage},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			bin := t.TempDir()
			for name, script := range c.tools {
				fakeTool(t, bin, name, script)
			}
			t.Setenv("PATH", bin+":/bin:/usr/bin")
			t.Setenv("WAYLAND_DISPLAY", c.wayland)
			data, err := Clipboard(context.Background())
			if !errors.Is(err, c.wantErr) || (c.wantErr == nil && MIME(data) != "image/png") {
				t.Fatalf("got %d bytes, %v; want %v", len(data), err, c.wantErr)
			}
		})
	}
}
