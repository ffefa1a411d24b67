package termui

import (
	"context"
	"strings"
	"sync/atomic"
	"time"

	"pi/provider"
	"pi/tools"
	"pi/tui"
)

// Controller runs the terminal UI's commands and keys on one screen over one Session.
type Controller struct {
	ctx   context.Context
	sess  Session
	keys  *tui.Keymap
	async func(func())
	ui    *tui.App // set by Start, before any callback runs
	bangs atomic.Int64
}

// New is a controller for sess; keys are the screen's (for /hotkeys) and async runs a command
// off the input goroutine (nil: a plain goroutine), since commands may ask questions.
func New(ctx context.Context, sess Session, keys *tui.Keymap, async func(func())) *Controller {
	if async == nil {
		async = func(fn func()) { go fn() }
	}
	if keys == nil {
		keys = tui.DefaultKeymap()
	}
	return &Controller{ctx: ctx, sess: sess, keys: keys, async: async}
}

// Start takes the screen and lists the scripts' commands once they have loaded.
func (c *Controller) Start(ui *tui.App) {
	c.Use(ui)
	c.async(c.LoadCommands)
}

// Use takes the screen, before any of its callbacks runs.
func (c *Controller) Use(ui *tui.App) { c.ui = ui }

// builtin is a slash command the controller runs itself.
type builtin struct {
	tui.Command
	run func(c *Controller, args string)
}

func builtins() []builtin {
	return []builtin{
		{tui.Command{Name: "model", Description: "pick the model"}, func(c *Controller, _ string) { c.PickModel() }},
		{tui.Command{Name: "settings", Description: "change and save the common settings"}, (*Controller).settings},
		{tui.Command{Name: "scoped-models", Description: "the models Ctrl+P cycles through", ArgHint: "[patterns]"}, (*Controller).scopedModels},
		{tui.Command{Name: "compact", Description: "summarise the conversation to free context", ArgHint: "[instructions]"}, (*Controller).compact},
		{tui.Command{Name: "new", Description: "start a new session"}, (*Controller).newSession},
		{tui.Command{Name: "clone", Description: "copy this session and go on in the copy"}, (*Controller).clone},
		{tui.Command{Name: "tree", Description: "continue from another point of this session"}, func(c *Controller, _ string) { c.Tree() }},
		{tui.Command{Name: "label", Description: "label an entry of the session tree"}, (*Controller).label},
		{tui.Command{Name: "fork", Description: "start a new session from an earlier message"}, (*Controller).fork},
		{tui.Command{Name: "resume", Description: "switch to another session of this directory"}, (*Controller).resume},
		{tui.Command{Name: "name", Description: "name this session", ArgHint: "<name>"}, (*Controller).name},
		{tui.Command{Name: "session", Description: "file, message counts, tokens and cost"}, (*Controller).sessionInfo},
		{tui.Command{Name: "export", Description: "write the session as HTML (or .jsonl)", ArgHint: "[file]"}, (*Controller).export},
		{tui.Command{Name: "copy", Description: "copy the last reply to the clipboard"}, (*Controller).copyLast},
		{tui.Command{Name: "reload", Description: "load the Lua scripts again"}, (*Controller).reload},
		{tui.Command{Name: "trust", Description: "let this project's .pi/init.lua run, or not", ArgHint: "[on|off]"}, (*Controller).trust},
		{tui.Command{Name: "import", Description: "open a pi or Claude Code session file as a new session", ArgHint: "<file.jsonl>"}, (*Controller).importSession},
		{tui.Command{Name: "debug", Description: "write what a bug report needs (the screen, the conversation) to a file"}, (*Controller).debug},
		{tui.Command{Name: "changelog", Description: "what changed in this version"}, (*Controller).changelog},
		{tui.Command{Name: "hotkeys", Description: "show the keys"}, func(c *Controller, _ string) { c.ui.Notify(tui.LevelInfo, c.keys.Help()+c.ui.ShortcutHelp()) }},
		{tui.Command{Name: "quit", Description: "leave pi"}, func(c *Controller, _ string) { c.sess.Quit() }},
	}
}

// Builtins are the controller's commands as the completion popup offers them, worded for
// this session; the scripts' join them once loaded (LoadCommands).
func (c *Controller) Builtins() []tui.Command {
	notes := c.sess.Notes(c.ctx)
	var out []tui.Command
	for _, b := range builtins() {
		cmd := b.Command
		if cmd.Name == "quit" && notes.Exit != "" {
			cmd.Name, cmd.Description = notes.Exit, notes.ExitDescription
		}
		if d, ok := notes.Descriptions[cmd.Name]; ok {
			cmd.Description = d
		}
		out = append(out, cmd)
	}
	return out
}

// Command runs the controller's command name; any other /name goes to the session as typed,
// where script commands, prompt templates and skills pick it up.
func (c *Controller) Command(name, args string) {
	if !c.builtin(name, args) {
		c.report(c.sess.Send(c.ctx, Input{Text: strings.TrimSpace("/" + name + " " + args), How: SendCommand}))
	}
}

// builtin runs the controller's own command name, if it is one.
func (c *Controller) builtin(name, args string) bool {
	if name == "exit" || name == c.sess.Notes(c.ctx).Exit {
		name = "quit"
	}
	for _, b := range builtins() {
		if b.Name == name {
			b.run(c, args)
			return true
		}
	}
	return false
}

// LoadCommands offers the scripts' commands and binds their shortcut keys, once the scripts
// have loaded; a session that lists none keeps the controller's own.
func (c *Controller) LoadCommands() {
	scripts, err := c.sess.Commands(c.ctx)
	if err != nil {
		return
	}
	all := c.Builtins()
	for _, s := range scripts {
		all = append(all, c.completion(s))
	}
	c.ui.SetCommands(all)
	if scs, err := c.sess.Shortcuts(c.ctx); err == nil {
		c.ui.SetShortcuts(scs)
	}
}

// completion offers a script command; its argument completion gets a short deadline, since
// the popup asks for it on the input goroutine.
func (c *Controller) completion(s Command) tui.Command {
	tc := tui.Command{Name: s.Name, Description: s.Description, ArgHint: s.ArgHint}
	if s.Complete != nil {
		tc.Complete = func(arg string) []string {
			ctx, cancel := context.WithTimeout(c.ctx, 150*time.Millisecond)
			defer cancel()
			return s.Complete(ctx, arg)
		}
	}
	return tc
}

// Callbacks are the screen's callbacks: what the user types and presses, run on the session.
func (c *Controller) Callbacks() tui.Callbacks {
	send := func(how How) func(string) {
		return func(text string) {
			imgs := c.ui.TakeImages()
			c.async(func() { c.send(text, imgs, how) })
		}
	}
	return tui.Callbacks{
		OnSubmit:   send(SendPrompt),
		OnSteer:    send(SendSteer),
		OnFollowUp: send(SendFollowUp),
		OnAbort:    c.sess.Abort,
		OnCommand:  func(name, args string) { c.async(func() { c.Command(name, args) }) },
		OnBash:     func(cmd string, keep bool) { c.async(func() { c.Bash(cmd, keep) }) },
		OnShortcut: func(key string) { c.async(func() { c.report(c.sess.RunShortcut(c.ctx, key)) }) },
		OnQuit:     c.sess.Quit,
		OnKey:      c.key,
	}
}

// key runs the controller's keys; false for a key that is not one of them.
func (c *Controller) key(name string) bool {
	run := map[string]func(){
		"thinking":         c.CycleThinking,
		"model":            c.PickModel,
		"cycle-model":      func() { c.CycleModel(1) },
		"cycle-model-back": func() { c.CycleModel(-1) },
		"tree":             c.Tree,
	}[name]
	if run != nil {
		c.async(run)
	}
	return run != nil
}

// send delivers a line; a follow-up that names one of the controller's commands runs it.
func (c *Controller) send(text string, imgs []provider.Block, how How) {
	if how == SendFollowUp && strings.HasPrefix(text, "/") {
		name, args, _ := strings.Cut(strings.TrimPrefix(text, "/"), " ")
		if c.builtin(name, strings.TrimSpace(args)) {
			return
		}
	}
	text, files := c.attachFiles(text)
	c.report(c.sess.Send(c.ctx, Input{Text: text, Images: append(imgs, files...), How: how}))
}

// attachFiles puts the files a typed line's @words name in front of it, as the command line
// attaches its @file arguments, read where the editor completes them (the session's folder,
// here and under pi attach); each @word left as typed gets a warning saying why. Pictures the
// editor has attached already; the message shows what was attached.
func (c *Controller) attachFiles(text string) (string, []provider.Block) {
	t := tools.AttachTyped(c.ctx, text, c.ui.Cwd(), false)
	for _, err := range t.Problems {
		c.ui.Notify(tui.LevelWarning, err.Error())
	}
	return t.Text, t.Images
}

// report shows an error, unless the screen is closing.
func (c *Controller) report(err error) {
	if err != nil && c.ctx.Err() == nil {
		c.ui.Notify(tui.LevelError, err.Error())
	}
}
