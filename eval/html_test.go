package eval

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"
)

// twoReports is a comparison with a failure, a task only A ran and re-processed tokens only B
// knows.
func twoReports() (a, b *report) {
	n := 500
	a = &report{Model: "ollama/small", Started: time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC), Runs: []runResult{
		{Task: "fix", Run: 1, Pass: false, Turns: 6, TokensIn: 4000, WallMs: 30000, Reason: "check exited 1 <b>not bold</b>"},
		{Task: "only-a", Run: 1, Pass: true, Turns: 2, TokensIn: 900, WallMs: 1000},
	}}
	b = &report{Model: "ollama/big", Started: a.Started, Runs: []runResult{
		{Task: "fix", Run: 1, Pass: true, Turns: 3, TokensIn: 2500, WallMs: 60000, Reprocessed: &n},
	}}
	a.Totals, b.Totals = totalsOf(a.Runs), totalsOf(b.Runs)
	return a, b
}

// bars finds the SVG bars of the page: their task, series, width and failure mark.
var barPattern = regexp.MustCompile(`<rect class="bar (a|b)( failed)?" data-task="([^"]+)" data-series="([AB])" x="\d+" y="\d+" width="(\d+)"`)

func TestHTMLPageDrawsABarPerTaskAndSeries(t *testing.T) {
	a, b := twoReports()
	path := filepath.Join(t.TempDir(), "page.html")
	if err := writeHTML(path, []string{"a.json", "b.json"}, []*report{a, b}); err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(path)
	page := string(data)
	for _, bad := range []string{"<script", "http://", "https://", "<b>not bold</b>"} {
		if bad == "http://" {
			page = strings.ReplaceAll(page, `xmlns="http://www.w3.org/2000/svg"`, "")
		}
		if strings.Contains(page, bad) {
			t.Errorf("the page holds %q: it must load nothing and escape what it shows", bad)
		}
	}
	bars := barPattern.FindAllStringSubmatch(string(data), -1)
	if len(bars) != 4*2*2 { // 4 charts × 2 tasks × 2 series
		t.Fatalf("%d bars, want 16:\n%s", len(bars), data)
	}
	// The time chart comes first: A's failed fix (30 s) is half B's (60 s), the longest bar.
	want := [][]string{{"a", " failed", "fix", "A", "210"}, {"b", "", "fix", "B", "420"}, {"a", "", "only-a", "A", "7"}, {"b", "", "only-a", "B", "0"}}
	for i, w := range want {
		if got := bars[i][1:]; strings.Join(got, "|") != strings.Join(w, "|") {
			t.Errorf("time bar %d: %q, want %q", i, got, w)
		}
	}
}

func TestCompareWritesTheHTMLPage(t *testing.T) {
	dir := t.TempDir()
	a, b := twoReports()
	pa, pb, page := filepath.Join(dir, "a.json"), filepath.Join(dir, "b.json"), filepath.Join(dir, "cmp.html")
	for p, r := range map[string]*report{pa: a, pb: b} {
		if err := writeReport(p, r); err != nil {
			t.Fatal(err)
		}
	}
	var stdout, stderr bytes.Buffer
	if code := Main(context.Background(), []string{"--compare", "--html", page, pa, pb}, &stdout, &stderr, Options{}); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	data, err := os.ReadFile(page)
	if err != nil || !strings.Contains(string(data), "ollama/small (A) and ollama/big (B)") {
		t.Fatalf("page %v:\n%.400s", err, data)
	}
}

func TestRunWritesTheHTMLPage(t *testing.T) {
	dir := t.TempDir()
	writeTask(t, dir, "solves", "prompt = \"write done.txt\"\ncheck = \"grep -qx yes done.txt\"\n", "[]", nil)
	page := filepath.Join(t.TempDir(), "run.html")
	var runs []Run
	var stdout, stderr bytes.Buffer
	code := Main(context.Background(), []string{"--model", "faux", "--tasks", dir, "--html", page},
		&stdout, &stderr, Options{Drive: fakeDrive(t, &runs)})
	data, err := os.ReadFile(page)
	if code != 0 || err != nil {
		t.Fatalf("exit %d, page %v: %s", code, err, stderr.String())
	}
	if bars := barPattern.FindAllStringSubmatch(string(data), -1); len(bars) != 4 || bars[0][3] != "solves" {
		t.Fatalf("bars %q", bars)
	}
}

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
	t.Skip("Chromium is not installed (Debian: apt-get install chromium; .ci/run installs it); the results page was not opened in a browser")
	return ""
}

// The acceptance check of --html: headless Chromium, cut off from the network, reads the page
// and its document holds the table and every bar.
func TestChromiumRendersTheResultsPage(t *testing.T) {
	bin := chromium(t)
	dir := t.TempDir()
	a, b := twoReports()
	path := filepath.Join(dir, "page.html")
	if err := writeHTML(path, []string{"a.json", "b.json"}, []*report{a, b}); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	profile := t.TempDir()
	cmd := exec.CommandContext(ctx, bin, "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
		"--disable-component-update", "--disable-sync", "--no-first-run", "--disable-dev-shm-usage",
		"--user-data-dir="+profile, "--dump-dom", "file://"+path)
	cmd.Env = append(os.Environ(), "HOME="+profile)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("chromium: %v\n%s", err, stderr.String())
	}
	dom := string(out)
	if n := len(barPattern.FindAllString(dom, -1)); n != 16 {
		t.Errorf("Chromium's document has %d bars, want 16", n)
	}
	for _, want := range []string{"<title>pi eval: ollama/small (A) and ollama/big (B)</title>", "Time per run",
		"Re-processed prompt tokens per run", `<td class="fail">FAIL`, "60.0s", "&lt;b&gt;not bold&lt;/b&gt;"} {
		if !strings.Contains(dom, want) {
			t.Errorf("the page as Chromium read it lacks %q", want)
		}
	}
}

func TestEvalHelpIsPisStyle(t *testing.T) {
	var stdout, stderr bytes.Buffer
	if code := Main(context.Background(), []string{"-h"}, &stdout, &stderr, Options{}); code != 0 || stderr.Len() > 0 {
		t.Fatalf("exit %d, stderr %q", code, stderr.String())
	}
	help := stdout.String()
	for _, want := range []string{"Usage:\n  pi eval --model", "\nFlags:\n", "  --html file ", "  --compare "} {
		if !strings.Contains(help, want) {
			t.Errorf("help lacks %q:\n%s", want, help)
		}
	}
	if strings.Contains(help, "-model string") || strings.Contains(help, "\t") {
		t.Errorf("help is in Go's flag style:\n%s", help)
	}
	stdout.Reset()
	if code := Main(context.Background(), []string{"--bogus"}, &stdout, &stderr, Options{}); code != 2 ||
		strings.TrimSpace(stderr.String()) != "pi eval: flag provided but not defined: -bogus (pi eval -h lists the flags)" {
		t.Fatalf("unknown flag: exit %d, stderr %q", code, stderr.String())
	}
}

// Smoke runs the named built-in tasks once each, through the Drive, and hands back each
// outcome (the fake model solves none of them; what counts is that each ran and came back).
func TestSmokeRunsTheNamedBuiltInTasks(t *testing.T) {
	var stderr bytes.Buffer
	runs, err := Smoke(context.Background(), "faux", SmokeTasks(), Options{Drive: fakeDrive(t, new([]Run))}, &stderr)
	if err != nil {
		t.Fatal(err)
	}
	if len(runs) != 3 {
		t.Fatalf("runs %+v", runs)
	}
	for _, r := range runs {
		if !slices.Contains(SmokeTasks(), r.Task) || r.Turns == 0 {
			t.Errorf("run %+v", r)
		}
	}
}
