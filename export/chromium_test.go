package export

import (
	"bytes"
	"context"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// chromium finds a Chromium to open pages with: $PI_CHROMIUM, or Debian's chromium.
func chromium(t *testing.T) string {
	t.Helper()
	if p := os.Getenv("PI_CHROMIUM"); p != "" {
		return p
	}
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	t.Skip("Chromium is not installed (Debian: apt-get install chromium; .ci/run installs it); the exported page was not opened in a browser")
	return ""
}

// runChromium opens page headless, cut off from the network, with a fresh profile.
func runChromium(t *testing.T, bin string, args ...string) []byte {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	profile := t.TempDir()
	base := []string{"--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
		"--disable-component-update", "--disable-sync", "--no-first-run", "--disable-dev-shm-usage",
		"--user-data-dir=" + profile}
	cmd := exec.CommandContext(ctx, bin, append(base, args...)...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	cmd.Env = append(os.Environ(), "HOME="+profile)
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("chromium %s: %v\n%s", strings.Join(args, " "), err, stderr.String())
	}
	return out
}

// The acceptance check of the export: the page of a session with a branch, a tool call,
// thinking and an image, opened in headless Chromium. The rendered document must hold the
// conversation as a reader sees it, and a screenshot of it must come out.
func TestChromiumOpensTheExportedPage(t *testing.T) {
	bin := chromium(t)
	dir := t.TempDir()
	path, err := File(testSession(t), Options{Title: "Bug hunt", Model: "ollama/qwen3:8b"}, dir, "page.html")
	if err != nil {
		t.Fatal(err)
	}
	url := "file://" + path
	dom := string(runChromium(t, bin, "--dump-dom", url))
	for _, want := range []string{
		"<title>Bug hunt</title>", "Session tree", "Branch 1", "Tool call", "read main.go", "Thinking",
		"THINKING-ABOUT-IT", "TOOL-OUTPUT", "ALTERNATIVE-ANSWER", "A red square.", "What is in this screenshot?",
		"data:image/png;base64,", "4,640", "$0.0044", "ollama/qwen3:8b",
	} {
		if !strings.Contains(dom, want) {
			t.Errorf("the page as Chromium read it lacks %q", want)
		}
	}
	if strings.Count(dom, "<details") < 4 {
		t.Errorf("Chromium found %d collapsible blocks, want the thinking, the call, the result and the tree", strings.Count(dom, "<details"))
	}
	shot := filepath.Join(dir, "page.png")
	runChromium(t, bin, "--screenshot="+shot, "--window-size=1000,1400", "--hide-scrollbars", url)
	data, err := os.ReadFile(shot)
	if err != nil {
		t.Fatalf("no screenshot: %v", err)
	}
	if cfg, err := png.DecodeConfig(bytes.NewReader(data)); err != nil || cfg.Width != 1000 {
		t.Errorf("screenshot: %v, %d×%d", err, cfg.Width, cfg.Height)
	}
}
