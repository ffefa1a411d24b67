package images

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"time"
)

// clipboardTimeout bounds one clipboard tool's run: they answer at once or hang on a dead
// display.
const clipboardTimeout = 5 * time.Second

// ErrNoClipboardImage says the clipboard holds no image, or no clipboard tool is installed.
var ErrNoClipboardImage = errors.New("no image in the clipboard")

// clipboardReader is one way to ask the system for the clipboard's image as PNG.
type clipboardReader struct {
	tool string // looked up on PATH
	// when reports whether this reader applies here (a Wayland session, macOS).
	when func(getenv func(string) string) bool
	read func(ctx context.Context, path string) ([]byte, error)
}

func clipboardReaders() []clipboardReader {
	return []clipboardReader{
		{"osascript", func(func(string) string) bool { return runtime.GOOS == "darwin" }, readMacClipboard},
		{"wl-paste", func(env func(string) string) bool { return env("WAYLAND_DISPLAY") != "" }, func(ctx context.Context, path string) ([]byte, error) {
			return exec.CommandContext(ctx, path, "--no-newline", "--type", "image/png").Output()
		}},
		{"xclip", func(func(string) string) bool { return runtime.GOOS != "darwin" }, func(ctx context.Context, path string) ([]byte, error) {
			return exec.CommandContext(ctx, path, "-selection", "clipboard", "-t", "image/png", "-o").Output()
		}},
	}
}

// Clipboard returns the image in the system clipboard as PNG (or whatever image the tool
// hands over), through wl-paste or xclip on Linux and osascript on macOS, the first that is
// installed and applies. ErrNoClipboardImage when there is none.
func Clipboard(ctx context.Context) ([]byte, error) {
	tried := false
	for _, r := range clipboardReaders() {
		path, err := exec.LookPath(r.tool)
		if err != nil || !r.when(os.Getenv) {
			continue
		}
		tried = true
		ctx, cancel := context.WithTimeout(ctx, clipboardTimeout)
		data, err := r.read(ctx, path)
		cancel()
		if err == nil && MIME(data) != "" {
			return data, nil
		}
	}
	if !tried {
		return nil, fmt.Errorf("%w (no clipboard tool: install wl-clipboard or xclip)", ErrNoClipboardImage)
	}
	return nil, ErrNoClipboardImage
}

// readMacClipboard has AppleScript write the clipboard's PNG to a temporary file.
func readMacClipboard(ctx context.Context, osascript string) ([]byte, error) {
	dir, err := os.MkdirTemp("", "pi-clip-")
	if err != nil {
		return nil, fmt.Errorf("a folder for the clipboard image: %w", err)
	}
	defer os.RemoveAll(dir)
	file := filepath.Join(dir, "clip.png")
	script := []string{
		"-e", fmt.Sprintf("set f to open for access POSIX file %q with write permission", file),
		"-e", "try",
		"-e", "write (the clipboard as «class PNGf») to f",
		"-e", "end try",
		"-e", "close access f",
	}
	var stderr bytes.Buffer
	cmd := exec.CommandContext(ctx, osascript, script...)
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		return nil, fmt.Errorf("osascript: %w: %s", err, bytes.TrimSpace(stderr.Bytes()))
	}
	return os.ReadFile(file)
}
