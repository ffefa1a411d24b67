package tui

import (
	"context"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/gdamore/tcell/v2"

	"pi/provider"
	"pi/tui/theme"
)

// colourSGR matches every SGR sequence that sets a colour (foreground or background, from
// the 8, 16, 256 or 24-bit palettes), however it is combined with attributes.
var colourSGR = regexp.MustCompile(`\x1b\[(?:[0-9;]*;)?(?:3[0-8]|4[0-8]|9[0-7]|10[0-7])(?:;[0-9;]*)?m`)

// everything draws every component the UI has, in every state, with app's theme: the
// transcript (user message, notices, retry, markdown with every block, thinking open and
// closed, the ends of a failed, aborted and cut reply, tools running, done, failed, with a
// diff and expanded), the queue, the status line, the footer, the editor at every thinking
// level, the completion popup and each kind of question.
func everything(t *testing.T, app *App, clock *fixedClock) {
	t.Helper()
	app.AddUserMessage("hello")
	app.Notify(LevelInfo, "info")
	app.Notify(LevelWarning, "careful")
	app.Notify(LevelError, "broken")
	app.RetryStart(1, 3, time.Second, "overloaded")
	app.Flush()
	app.RetryEnd()
	app.SetWorking(true)
	app.SetQueue([]string{"steer me"}, []string{"later"})
	md := "# Title\n\n## Sub\n\n### Deep\n\nSome **bold**, *it*, ~~gone~~, `code`, [a link](http://x.y) and <http://auto.link> ![pic](p.png).\n\n" +
		"- one\n- two\n\n1. first\n\n> quoted\n\n---\n\n| a | b |\n|---|---|\n| 1 | 2 |\n\n" +
		"```go\n// a comment\nfunc main() { s := \"str\"; n := 42 /* block */ }\n```\n\n    indented code\n"
	m := &provider.Message{Role: provider.RoleAssistant, Content: []provider.Block{
		{Type: provider.BlockThinking, Thinking: "pondering\n\nmore"}, provider.Text(md)}}
	app.StartAssistant()
	app.UpdateAssistant(m)
	app.Flush()
	app.HandleEvent(key(tcell.KeyCtrlT, 0, 0)) // thinking shown, then hidden again
	app.Flush()
	app.HandleEvent(key(tcell.KeyCtrlT, 0, 0))
	app.Flush()
	app.EndAssistant(m)
	for _, stop := range []provider.StopReason{provider.StopError, provider.StopAborted, provider.StopLength} {
		app.EndAssistant(&provider.Message{Role: provider.RoleAssistant, StopReason: stop, ErrorMessage: "boom",
			Content: []provider.Block{provider.Text("partial")}})
	}
	app.ToolStart("t1", "bash", toolCallArgs("command", "make"))
	app.ToolUpdate("t1", []provider.Block{provider.Text(strings.Repeat("line\n", 12))})
	app.Flush()
	app.ToolEnd("t1", []provider.Block{provider.Text(strings.Repeat("line\n", 12))}, nil, false)
	app.ToolStart("t2", "edit", toolCallArgs("path", "a.go"))
	app.ToolEnd("t2", nil, map[string]any{"diff": " 1 keep\n-2 old\n+2 new"}, false)
	app.ToolStart("t3", "write", toolCallArgs("path", "/etc/x"))
	app.ToolEnd("t3", []provider.Block{provider.Text("denied")}, nil, true)
	app.Flush()
	clock.t = clock.t.Add(time.Second)
	app.SetStatus("thinking hard")
	for _, level := range []string{"off", "minimal", "low", "medium", "high", "xhigh"} {
		app.SetFooter(FooterInfo{Cwd: "/p", Model: "m", Thinking: level, Input: 10, Output: 5})
		app.Flush()
	}
	app.SetWorking(false)
	typeText(app, "/")
	app.SetCommands([]Command{{Name: "model", Description: "pick a model"}, {Name: "export", ArgHint: "<file>"}})
	typeText(app, "e")
	app.Flush()
	app.HandleEvent(key(tcell.KeyCtrlC, 0, 0))
	for _, ask := range []func(){
		func() { app.Select(context.Background(), "Pick", []string{"a", "b"}) },
		func() { app.Confirm(context.Background(), "Sure?", "really") },
		func() { app.Input(context.Background(), "Name") },
	} {
		go ask()
		waitModal(t, app)
		typeText(app, "zz") // a filter that matches nothing
		app.Flush()
		app.HandleEvent(key(tcell.KeyEscape, 0, 0))
		for app.modalOpen() {
			time.Sleep(time.Millisecond)
		}
	}
	app.Flush()
}

func (a *App) modalOpen() bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.modal != nil
}

// coloursIn returns the colour SGR sequences in out, each once, and whether any is one th
// has no role for.
func coloursIn(out string, th *theme.Theme) (seen map[string]bool, foreign []string) {
	mine := map[string]bool{}
	for _, sgr := range th.Colours() {
		mine[sgr] = true
	}
	seen = map[string]bool{}
	for _, sgr := range colourSGR.FindAllString(out, -1) {
		seen[sgr] = true
		if !mine[sgr] {
			foreign = append(foreign, sgr)
		}
	}
	return seen, foreign
}

// Every colour on screen comes from the theme: drawn in the light theme, the frames hold no
// colour the light theme does not name (so none of the dark one's, which shares none), and
// every role shows up somewhere.
func TestEveryColourComesFromTheTheme(t *testing.T) {
	for _, th := range []*theme.Theme{theme.Light(), theme.Dark()} {
		t.Run(th.Name, func(t *testing.T) {
			out := &lockedBuffer{}
			clock := &fixedClock{t: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}
			app := NewApp(out, 80, 200, Callbacks{}, Options{ManualFrames: true, Now: clock.now, Cwd: t.TempDir(), Theme: th.Name})
			everything(t, app, clock)
			app.Close()
			seen, foreign := coloursIn(out.b.String(), th)
			if len(foreign) > 0 {
				t.Errorf("colours not from the %s theme: %q", th.Name, foreign)
			}
			var missing []string
			for role, sgr := range th.Colours() {
				if !seen[sgr] {
					missing = append(missing, role)
				}
			}
			sort.Strings(missing)
			if len(missing) > 0 {
				t.Errorf("roles never drawn: %v", missing)
			}
		})
	}
}

// SetTheme redraws what is still live (a streaming reply with cached markdown, the editor,
// the footer) in the new theme: the frames after it hold only its colours.
func TestSetThemeRedrawsTheLiveRegion(t *testing.T) {
	out := &lockedBuffer{}
	app := NewApp(out, 60, 40, Callbacks{}, Options{ManualFrames: true, Cwd: t.TempDir(), Theme: "dark"})
	app.SetFooter(FooterInfo{Cwd: "/p", Model: "m", Thinking: "high"})
	app.StartAssistant()
	text := "# Head\n\n```go\nfunc f() { return 1 }\n```\n\n- item `x`\n\nstreaming words"
	app.UpdateAssistant(assistant(text))
	app.ToolStart("t", "bash", toolCallArgs("command", "sleep 1"))
	app.Flush()
	if _, foreign := coloursIn(out.b.String(), theme.Dark()); len(foreign) > 0 {
		t.Fatalf("dark frames hold %q", foreign)
	}
	out.b.Reset()
	app.SetTheme(theme.Light())
	app.UpdateAssistant(assistant(text + " more")) // the incremental layout goes on in the new theme
	app.Flush()
	seen, foreign := coloursIn(out.b.String(), theme.Light())
	if len(foreign) > 0 {
		t.Errorf("after SetTheme the frames hold %q", foreign)
	}
	l := theme.Light()
	for _, want := range []string{l.Heading, l.SyntaxKeyword, l.Code, l.CodeFence, l.ThinkingHigh, l.Muted, l.Warning} {
		if !seen[want] {
			t.Errorf("after SetTheme %q is not drawn", want)
		}
	}
}

// A theme file named in the settings is used; a broken one leaves the built-in theme, with a
// warning that names the file and the key.
func TestThemeFromSettings(t *testing.T) {
	home := t.TempDir()
	dir := filepath.Join(home, "themes")
	os.MkdirAll(dir, 0o755)
	os.WriteFile(filepath.Join(dir, "mine.toml"), []byte("extends = \"light\"\naccent = \"#123456\"\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "bad.toml"), []byte("accent = \"blue\"\n"), 0o644)
	for _, tt := range []struct{ setting, accent, warning string }{
		{"mine", "\x1b[38;2;18;52;86m", ""},
		{"bad", theme.Dark().Accent, `bad.toml: accent = "blue"`},
		{"nope", theme.Dark().Accent, `theme "nope": no nope.toml in ` + dir},
	} {
		term := newVT(240, 24)
		app := NewApp(term, 240, 24, Callbacks{}, Options{ManualFrames: true, Theme: tt.setting, PiHome: home,
			darkBackground: func() bool { return true }})
		app.AddUserMessage("hi")
		app.Flush()
		if got := app.theme.Accent; got != tt.accent {
			t.Errorf("%s: accent %q, want %q", tt.setting, got, tt.accent)
		}
		screen := strings.Join(plain(term.all()), "\n")
		if tt.warning != "" && !strings.Contains(screen, tt.warning) {
			t.Errorf("%s: no warning %q on screen:\n%s", tt.setting, tt.warning, screen)
		}
	}
	app := NewApp(newVT(80, 24), 80, 24, Callbacks{}, Options{ManualFrames: true, PiHome: home})
	if got := strings.Join(app.Themes(), " "); got != "auto dark light bad mine" {
		t.Errorf("Themes() = %q", got)
	}
	if err := app.UseTheme("mine"); err != nil || app.ThemeSetting() != "mine" || app.theme.Name != "mine" {
		t.Errorf("UseTheme(mine): %v, setting %q, theme %q", err, app.ThemeSetting(), app.theme.Name)
	}
	if err := app.UseTheme("bad"); err == nil || app.ThemeSetting() != "mine" {
		t.Errorf("UseTheme(bad): %v, setting %q", err, app.ThemeSetting())
	}
	pkg := t.TempDir() // a package's themes/ (Options.ThemeDirs) come after $PI_HOME/themes
	os.WriteFile(filepath.Join(pkg, "shared.toml"), []byte("extends = \"dark\"\naccent = \"#654321\"\n"), 0o644)
	app = NewApp(newVT(80, 24), 80, 24, Callbacks{}, Options{ManualFrames: true, PiHome: home, Theme: "shared", ThemeDirs: []string{pkg}})
	if got := strings.Join(app.Themes(), " "); got != "auto dark light bad mine shared" || app.theme.Name != "shared" {
		t.Errorf("with a package's themes: Themes() = %q, theme %q", got, app.theme.Name)
	}
	app.SetThemeDirs(nil) // a reload whose scripts add no folder
	if got := strings.Join(app.Themes(), " "); got != "auto dark light bad mine" {
		t.Errorf("after SetThemeDirs(nil): Themes() = %q", got)
	}
}

// The background probe: the terminal's OSC 11 answer decides "auto", keys typed around it are
// handed on, a DA1 answer alone ends the wait, and without an answer COLORFGBG decides.
func TestBackgroundProbe(t *testing.T) {
	p := newBgProbe(func() bool { return true })
	keys := p.see([]byte("ab\x1b]11;rgb:ffff/ffff/ffff\x1b\\\x1b[?62;22cc"))
	start := time.Now()
	p.wait(10 * time.Second) // a wait that missed the answer lasts all of it
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("the wait did not end at the answer: %v", d)
	}
	if string(keys) != "ab\x1b]11;rgb:ffff/ffff/ffff\x1b\\c" || p.darkBackground() {
		t.Errorf("keys %q, dark %v", keys, p.darkBackground())
	}
	p = newBgProbe(func() bool { return false })
	p.see([]byte("\x1b[?1;2c"))
	p.wait(time.Second)
	if p.darkBackground() {
		t.Error("with no OSC 11 answer the fallback must decide")
	}
	p = newBgProbe(func() bool { return true })
	start = time.Now()
	p.wait(20 * time.Millisecond)
	if time.Since(start) < 20*time.Millisecond || !p.darkBackground() {
		t.Error("no answer: the wait must time out and the fallback decide")
	}
	app := NewApp(newVT(40, 10), 40, 10, Callbacks{}, Options{ManualFrames: true, darkBackground: func() bool { return false }})
	if app.theme.Name != "light" {
		t.Errorf("auto on a light background gave %s", app.theme.Name)
	}
}

// No colour is written as a literal anywhere in the UI's code: they all live in package theme.
func TestNoColourLiteralsOutsideTheTheme(t *testing.T) {
	files, _ := filepath.Glob("*.go")
	literal := regexp.MustCompile(`\\x1b\[(?:[0-9;]*;)?(?:3[0-8]|4[0-8]|9[0-7]|10[0-7])[;m]`)
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if m := literal.FindString(string(src)); m != "" {
			t.Errorf("%s writes the colour %s itself", f, m)
		}
	}
}
