package tui

import (
	"bytes"
	"context"
	"encoding/base64"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"time"

	"pi/internal/atfile"
	"pi/provider"
	"pi/tui/theme"
)

// frameInterval caps the frame rate at 60 per second; tickInterval is how often the spinner
// and the clocks move while the agent works.
const (
	frameInterval = time.Second / 60
	tickInterval  = 100 * time.Millisecond
)

// Callbacks connect the App to the controller. Each is called on the input goroutine with no
// App lock held, so it may call back into the App. Nil callbacks are skipped.
type Callbacks struct {
	OnSubmit   func(text string)                // Enter while idle
	OnSteer    func(text string)                // Enter while the agent works
	OnFollowUp func(text string)                // Alt+Enter, a "/line" too
	OnAbort    func()                           // Escape while working: abort and clear queues
	OnCommand  func(name, args string)          // "/name args"
	OnBash     func(cmd string, keep bool)      // "!cmd" (keep: add output to context), "!!cmd"
	OnQuit     func()                           // Ctrl+C twice, Ctrl+D on an empty editor
	OnKey      func(name string) (handled bool) // Ctrl+L "model", Ctrl+P "cycle-model", Shift+Tab "thinking"
	OnShortcut func(key string)                 // a script's shortcut, by the key it registered
}

// Options configure an App.
type Options struct {
	Cwd      string    // root for @file completion
	Commands []Command // slash commands for completion
	// ShowThinking opens thinking blocks from the start (pi's hideThinkingBlock = false);
	// Ctrl+T toggles them either way.
	ShowThinking bool
	// Keys maps keys to actions; nil is pi's default keys.
	Keys *Keymap
	// ManualFrames disables the frame timer: frames are drawn only by Flush. Tests and
	// benchmarks use it to get deterministic output.
	ManualFrames bool
	Now          func() time.Time // clock, for tests
	// Clipboard reads the clipboard's image for Ctrl+V (images.Clipboard); nil: no image paste.
	Clipboard func(context.Context) ([]byte, error)
	// HideImages shows a one-line placeholder for pictures even where the terminal could
	// show them ([images] show = false).
	HideImages bool
	// Graphics is the terminal's picture protocol (GraphicsKitty, GraphicsITerm2) or "";
	// Run sets it from the environment (DetectGraphics).
	Graphics string
	// Theme is the [ui] theme setting: "auto" (or ""), "dark", "light", the name of a theme
	// file in $PI_HOME/themes or Cwd's .pi/themes, or a path ending in .toml (see package
	// theme). A theme that cannot be read leaves the built-in one for the background, with a
	// warning on screen.
	Theme  string
	PiHome string
	// ToolLabel gives a tool's label (pi's label), which its call rows show instead of its
	// name; nil or "": the name.
	ToolLabel func(name string) string
	// ThemeDirs are more folders of theme files, after $PI_HOME/themes and .pi/themes:
	// packages' themes/ and the scripts' resources_discover paths.
	ThemeDirs []string
	// darkBackground tells what the terminal's background is, for Theme "auto"; Run asks the
	// terminal, otherwise it is COLORFGBG's word or dark.
	darkBackground func() bool
}

// liveEntry is a transcript entry in the live region and how many of its lines (counting the
// blank line above it) have spilled into scrollback.
type liveEntry struct {
	e    entry
	sep  bool // a blank line separates it from what is above
	skip int
}

// App is the interactive screen: transcript, live region, editor, footer. Its methods are
// safe for concurrent use: agent events and key presses arrive on different goroutines.
type App struct {
	mu     sync.Mutex
	r      *Renderer
	cb     Callbacks
	opts   Options
	now    func() time.Time
	closed bool

	live      []*liveEntry
	anyOutput bool // something is above the live region: the next entry gets a blank line
	commit    []string
	// frameLines and counts are the last frame's live lines and lines per live entry; their
	// arrays are used again by the next frame
	frameLines []string
	counts     []int
	cur        *assistantView
	tools      map[string]*toolView
	retry      *retryView

	theme        *theme.Theme
	themeSetting string   // the setting theme came from
	themeDirs    []string // where theme files are looked up
	editor       *Editor
	complete     completer
	modal        *modal // an open question replaces the editor
	steer        []string
	follow       []string
	footer       FooterInfo
	ext          extSlots // scripts' statuses and widgets (extui.go)
	// scripts' shortcuts (shortcuts.go), and their keys by canonical name
	shortcuts    []Shortcut
	shortcutKeys map[string]string
	// the footer's lines as last drawn, for footerDrawn at footerWidth
	footerLines []string
	footerDrawn FooterInfo
	footerWidth int
	// the status line as last drawn, and what it showed
	statusLines []string
	statusFor   statusKey

	working      bool
	workSince    time.Time
	status       string
	expandTools  bool
	showThinking bool
	// the newest boxes gone to the scrollback folded, which Ctrl+O and Ctrl+T print again
	foldedTool     entry // a tool box, or a message with an attached file's text folded away
	foldedThinking *assistantView
	lastCtrlC      time.Time
	lastEscape     time.Time // an idle Escape on an empty editor; a second one soon opens the tree
	pasting        *strings.Builder
	pics           pictures // images attached in the editor (paste.go)

	// Frames: the renderer writes into out, which is written to term with mu released
	// (writing is set meanwhile, and writeDone signalled after); dirty says that something
	// changed since the last frame was drawn.
	term      io.Writer
	out       bytes.Buffer
	writing   bool
	writeDone sync.Cond
	dirty     bool
	lastFrame time.Time
	timer     *time.Timer
	tick      *time.Timer // the spinner's frame while working (ticking)
	ticking   bool
	err       error
}

// NewApp returns an App drawing on w, a terminal of width×height cells.
func NewApp(w io.Writer, width, height int, cb Callbacks, opts Options) *App {
	now := opts.Now
	if now == nil {
		now = time.Now
	}
	if opts.Keys == nil {
		opts.Keys = DefaultKeymap()
	}
	a := &App{cb: cb, opts: opts, now: now, term: w,
		tools: map[string]*toolView{}, editor: NewEditor(), showThinking: opts.ShowThinking}
	a.r = NewRenderer(&a.out, width, height)
	a.writeDone.L = &a.mu
	a.complete.cwd = opts.Cwd
	if a.opts.darkBackground == nil {
		a.opts.darkBackground = envBackground
	}
	a.themeDirs = append(theme.Dirs(opts.PiHome, opts.Cwd), opts.ThemeDirs...)
	th, err := theme.Resolve(opts.Theme, a.themeDirs, a.opts.darkBackground())
	a.theme, a.themeSetting = th, opts.Theme
	a.editor.BorderStyle = th.Border
	if err != nil {
		a.add(&noticeView{th, LevelWarning, err.Error() + "; using the " + th.Name + " theme"})
	}
	return a
}

// envBackground is what COLORFGBG says of the background, dark when it says nothing.
func envBackground() bool {
	dark, ok := theme.FromColorFGBG(os.Getenv("COLORFGBG"))
	return dark || !ok
}

// SetTheme draws the live region, the editor and the footer in th from the next frame on;
// what is in the scrollback stays as it was drawn.
func (a *App) SetTheme(th *theme.Theme) {
	a.mu.Lock()
	defer a.unlock()
	a.theme = th
	for _, le := range a.live {
		if t, ok := le.e.(themed); ok {
			t.setTheme(th)
		}
	}
	a.editor.BorderStyle = th.ThinkingBorder(a.footer.Thinking)
	a.footerLines, a.statusLines = nil, nil
	a.requestRender()
}

// UseTheme switches to the theme a [ui] theme setting names (see Options.Theme).
func (a *App) UseTheme(setting string) error {
	th, err := theme.Resolve(setting, a.dirsOfThemes(), a.opts.darkBackground())
	if err != nil {
		return err
	}
	a.SetTheme(th)
	a.mu.Lock()
	a.themeSetting = setting
	a.mu.Unlock()
	return nil
}

// ThemeSetting is the setting of the theme in use ("auto" when none was given).
func (a *App) ThemeSetting() string {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.themeSetting == "" {
		return "auto"
	}
	return a.themeSetting
}

// SetThemeDirs replaces the folders of theme files beyond $PI_HOME/themes and .pi/themes
// (Options.ThemeDirs), after the scripts reloaded.
func (a *App) SetThemeDirs(dirs []string) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.themeDirs = append(theme.Dirs(a.opts.PiHome, a.opts.Cwd), dirs...)
}

// Themes lists the theme settings to choose from: auto, dark, light and the theme files found.
func (a *App) Themes() []string { return theme.Names(a.dirsOfThemes()) }

func (a *App) dirsOfThemes() []string {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.themeDirs
}

// add appends an entry to the live region.
func (a *App) add(e entry) {
	a.live = append(a.live, &liveEntry{e: e, sep: a.anyOutput || len(a.live) > 0})
	a.requestRender()
}

// Cwd is the folder @file completion lists and typed @words are relative to.
func (a *App) Cwd() string {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.opts.Cwd
}

// AddUserMessage shows a message the user sent (or one delivered from the queues).
func (a *App) AddUserMessage(text string) {
	a.mu.Lock()
	defer a.unlock()
	a.add(newUserView(a.theme, text, &a.expandTools))
}

// StartAssistant begins a streamed reply.
func (a *App) StartAssistant() {
	a.mu.Lock()
	defer a.unlock()
	a.cur = newAssistantView(a.theme, &a.showThinking)
	a.add(a.cur)
}

// UpdateAssistant shows the reply so far; m is cloned, so the caller may keep changing it.
func (a *App) UpdateAssistant(m *provider.Message) {
	a.mu.Lock()
	defer a.unlock()
	if a.cur == nil {
		a.cur = newAssistantView(a.theme, &a.showThinking)
		a.add(a.cur)
	}
	a.cur.set(m)
	a.requestRender()
}

// EndAssistant shows the final reply and lets it go to scrollback.
func (a *App) EndAssistant(m *provider.Message) {
	a.mu.Lock()
	defer a.unlock()
	if a.cur == nil {
		a.cur = newAssistantView(a.theme, &a.showThinking)
		a.add(a.cur)
	}
	if m != nil {
		a.cur.set(m)
	}
	a.cur.done = true
	a.cur = nil
	a.requestRender()
}

// ToolStart shows a tool call that began executing.
func (a *App) ToolStart(id, name string, args map[string]any) {
	a.mu.Lock()
	defer a.unlock()
	t := a.toolView(id, name, args, a.now())
	a.tools[id] = t
	a.add(t)
}

// toolView is the box of a call that started at started.
func (a *App) toolView(id, name string, args map[string]any, started time.Time) *toolView {
	t := &toolView{th: a.theme, id: id, name: name, args: args, started: started, expanded: &a.expandTools, now: a.now}
	if a.opts.ToolLabel != nil {
		t.label = a.opts.ToolLabel(name)
	}
	return t
}

// ToolUpdate shows partial output of a running tool.
func (a *App) ToolUpdate(id string, partial []provider.Block) {
	a.mu.Lock()
	defer a.unlock()
	if t := a.tools[id]; t != nil {
		t.setOutput(partial)
		a.requestRender()
	}
}

// ToolEnd shows a tool's result; details are the tool's details (an edit's diff is shown).
func (a *App) ToolEnd(id string, content []provider.Block, details any, isError bool) {
	a.mu.Lock()
	defer a.unlock()
	t := a.tools[id]
	if t == nil {
		return
	}
	t.setOutput(content)
	t.setDetails(details)
	t.state, t.ended = toolDone, a.now()
	if isError {
		t.state = toolFailed
	}
	delete(a.tools, id)
	a.addPreviews(content)
	a.requestRender()
}

// Notify shows a notice (from Lua's pi.notify, a command, an error) in the transcript.
func (a *App) Notify(level, text string) {
	a.mu.Lock()
	defer a.unlock()
	a.add(&noticeView{th: a.theme, level: level, text: text})
}

// RetryStart shows a countdown to an automatic retry after a provider error.
func (a *App) RetryStart(attempt, maxAttempts int, delay time.Duration, errMsg string) {
	a.mu.Lock()
	defer a.unlock()
	a.endRetry()
	a.retry = &retryView{th: a.theme, attempt: attempt, maxAttempts: maxAttempts, until: a.now().Add(delay), err: errMsg, now: a.now}
	a.add(a.retry)
}

// RetryEnd closes the countdown.
func (a *App) RetryEnd() {
	a.mu.Lock()
	defer a.unlock()
	a.endRetry()
	a.requestRender()
}

func (a *App) endRetry() {
	if a.retry != nil {
		a.retry.done = true
		a.retry = nil
	}
}

// SetWorking switches the working indicator ("Working… (esc to interrupt)").
func (a *App) SetWorking(on bool) {
	a.mu.Lock()
	defer a.unlock()
	if on && !a.working {
		a.workSince = a.now()
		a.startTicker()
	}
	if !on {
		a.stopTicker()
		a.endRetry()
		if a.cur != nil {
			a.cur.done, a.cur = true, nil
		}
		for id, t := range a.tools {
			t.state, t.ended = toolFailed, a.now()
			delete(a.tools, id)
		}
	}
	a.working = on
	a.requestRender()
}

// SetStatus replaces the status text (the working message, or a hint while idle).
func (a *App) SetStatus(text string) {
	a.mu.Lock()
	defer a.unlock()
	a.status = text
	a.requestRender()
}

// ShowThinking opens (or collapses) thinking blocks, as Ctrl+T does.
func (a *App) ShowThinking(on bool) {
	a.mu.Lock()
	defer a.unlock()
	a.showThinking = on
	a.requestRender()
}

// ThinkingShown says whether thinking blocks are open.
func (a *App) ThinkingShown() bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.showThinking
}

// SetQueue shows the steering and follow-up messages waiting for delivery. Escape puts them
// back in the editor as typed: a file an @word of the text names goes back to being that word
// (atfile.Unexpand), whichever side sent the text.
func (a *App) SetQueue(steer, follow []string) {
	a.mu.Lock()
	defer a.unlock()
	typed := func(texts []string) []string {
		out := make([]string, len(texts))
		for i, s := range texts {
			out[i] = atfile.Unexpand(s)
		}
		return out
	}
	a.steer, a.follow = typed(steer), typed(follow)
	a.requestRender()
}

// SetFooter replaces the footer; the editor border takes the colour of the thinking level,
// as in pi.
func (a *App) SetFooter(f FooterInfo) {
	a.mu.Lock()
	defer a.unlock()
	a.footer = f
	a.editor.BorderStyle = a.theme.ThinkingBorder(f.Thinking)
	a.requestRender()
}

// SetCommands replaces the slash commands offered for completion.
func (a *App) SetCommands(cmds []Command) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.opts.Commands = cmds
}

// SetHistory seeds the prompt history (oldest first), e.g. from the session being resumed.
func (a *App) SetHistory(entries []string) {
	a.mu.Lock()
	defer a.mu.Unlock()
	for _, e := range entries {
		a.editor.AddHistory(e)
	}
}

// History returns the prompt history, oldest first.
func (a *App) History() []string {
	a.mu.Lock()
	defer a.mu.Unlock()
	return append([]string(nil), a.editor.history...)
}

// SetEditorText replaces the editor's text.
func (a *App) SetEditorText(s string) {
	a.mu.Lock()
	defer a.unlock()
	a.editor.SetText(s)
	a.requestRender()
}

// externalEditor is the editor Ctrl+G hands to $EDITOR: an open pi.editor's, else the main one.
func (a *App) externalEditor() *Editor {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.modal != nil && a.modal.kind == "editor" {
		return a.modal.input
	}
	return a.editor
}

// setEditorTextOf replaces what e holds (Ctrl+G's result).
func (a *App) setEditorTextOf(e *Editor, s string) {
	a.mu.Lock()
	defer a.unlock()
	e.SetText(s)
	a.requestRender()
}

// Resize re-lays out the live region for a new terminal size; scrollback is left alone.
func (a *App) Resize(width, height int) {
	a.mu.Lock()
	defer a.unlock()
	a.r.Resize(width, height)
	a.requestRender()
}

// SetClipboard puts text on the terminal's clipboard with OSC 52, which works over ssh and in
// tmux (with set-clipboard on); terminals that do not support it ignore it.
func (a *App) SetClipboard(text string) error {
	a.mu.Lock()
	defer a.mu.Unlock()
	seq := "\x1b]52;c;" + base64.StdEncoding.EncodeToString([]byte(text)) + "\a"
	a.waitWrite() // never inside a frame
	if _, err := a.term.Write([]byte(seq)); err != nil {
		return fmt.Errorf("copy %d bytes to the clipboard: %w", len(text), err)
	}
	return nil
}

// Stats returns what the renderer has written.
func (a *App) Stats() RenderStats {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.r.Stats()
}

// Err returns the first error writing to the terminal.
func (a *App) Err() error {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.err
}

// ScreenLines are the lines of the last frame drawn (what of the transcript is still live,
// the editor, the status and the footer), without their colours: /debug writes them.
func (a *App) ScreenLines() []string {
	a.mu.Lock()
	defer a.mu.Unlock()
	out := make([]string, len(a.frameLines))
	for i, l := range a.frameLines {
		out[i] = sanitize(l)
	}
	return out
}
