package remote

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"pi/provider"
	"pi/rpcwire"
	"pi/server"
	"pi/session"
	"pi/termui"
	"pi/tui"
)

// session.go is termui.Session over pi serve: each operation one protocol command, or one of
// pi's RPC commands through pi_rpc.

var _ termui.Session = (*view)(nil)

// Notes: an attached session's commands reach the server; /trust is its decision, the
// session's settings are not this machine's to save, and leaving detaches.
func (v *view) Notes(context.Context) termui.Notes {
	cwd := cmp.Or(v.sessionCwd(), "the session's folder")
	return termui.Notes{
		Descriptions: map[string]string{
			"settings": "change the session's settings and this screen's (saved)",
			"new":      "start a new session in pi serve and attach to it",
			"resume":   "attach to another session of pi serve",
			"export":   "write the session as HTML",
			"reload":   "load the session's Lua scripts again, on the server",
			"trust":    "whose decision it is whether this project's .pi/init.lua runs",
		},
		Exit: "detach", ExitDescription: "leave the session running in pi serve",
		NoResume: "pi serve has no other session",
		Project:  cwd,
		Trust: "Whether " + cwd + "/.pi/init.lua runs is pi serve's decision, not this terminal's. " +
			"To change it, run `pi trust " + cwd + "` (or `pi untrust`) on the server's machine, then /reload here.",
		SettingsFile: filepath.Join(v.piHome, "pi.toml"),
	}
}

// Send is Enter (v1's prompt or steer), Alt+Enter (follow_up) and a /name of the scripts (a
// steering prompt). Text with pictures goes as pi's prompt, which carries them; v1's carries
// text only.
func (v *view) Send(ctx context.Context, in termui.Input) error {
	how := map[termui.How]string{termui.SendSteer: "steer", termui.SendCommand: "steer"}[in.How]
	switch {
	case in.How == termui.SendFollowUp:
		_, err := v.rpc(rpcwire.Command{Type: "follow_up", Message: in.Text, Images: in.Images}, nil)
		return err
	case in.How == termui.SendCommand || len(in.Images) > 0 && v.c.HasPi():
		moved, err := v.rpc(rpcwire.Command{Type: "prompt", Message: in.Text, Images: in.Images, StreamingBehavior: how}, nil)
		if moved != nil { // a script's command switched sessions
			v.ui.Notify(tui.LevelInfo, "now in session "+moved.ID)
			v.show(moved)
		}
		return err
	}
	if len(in.Images) > 0 {
		v.ui.Notify(tui.LevelWarning, "this pi serve takes no pictures: the text goes alone")
	}
	if how == "steer" {
		return v.c.Steer(ctx, v.session(), in.Text)
	}
	return v.c.Prompt(ctx, v.session(), in.Text)
}

func (v *view) Abort() { go v.c.Abort(v.ctx, v.session()) }
func (v *view) Quit()  { v.cancel() }

func (v *view) RunShortcut(_ context.Context, key string) error {
	_, err := v.rpc(rpcwire.Command{Type: "run_shortcut", Key: key}, nil)
	return err
}

// State is pi's get_state; a server without pi's commands gives what its snapshot says.
func (v *view) State(context.Context) (rpcwire.State, error) {
	var st rpcwire.State
	if !v.c.HasPi() {
		if s := v.current(); s != nil {
			st.Model = v.model(s.Model.Provider, s.Model.ID)
			st.ThinkingLevel = s.ThinkingLevel
		}
		return st, nil
	}
	_, err := v.rpc(rpcwire.Command{Type: "get_state"}, &st)
	return st, err
}

// Models are the server's, from its snapshots.
func (v *view) Models(context.Context) ([]provider.Model, error) {
	v.mu.Lock()
	defer v.mu.Unlock()
	out := make([]provider.Model, len(v.models))
	for i, m := range v.models {
		out[i] = modelOf(m)
	}
	return out, nil
}

func modelOf(m server.ModelMetadata) provider.Model {
	return provider.Model{Provider: m.Provider, ID: m.ID, Name: m.Name, API: m.API, Reasoning: m.Reasoning, Input: m.Input,
		ContextWindow: m.ContextWindow, MaxTokens: m.MaxTokens, Cost: provider.ModelCost{Input: m.Cost.Input,
			Output: m.Cost.Output, CacheRead: m.Cost.CacheRead, CacheWrite: m.Cost.CacheWrite}}
}

// model is the server's model p/id, or just its name when the server does not list it.
func (v *view) model(p, id string) provider.Model {
	models, _ := v.Models(v.ctx)
	for _, m := range models {
		if m.Provider == p && m.ID == id {
			return m
		}
	}
	return provider.Model{Provider: p, ID: id}
}

// SetModel is v1's set_model.
func (v *view) SetModel(ctx context.Context, p, id string) (provider.Model, error) {
	return v.model(p, id), v.c.SetModel(ctx, v.session(), server.ModelRef{Provider: p, ID: id})
}

func (v *view) CycleModel(_ context.Context, step int) (*provider.Model, error) {
	var data rpcwire.CycleModel
	if _, err := v.rpc(rpcwire.Command{Type: "cycle_model", Step: step}, &data); err != nil || data.Model.ID == "" {
		return nil, err
	}
	return &data.Model, nil
}

func (v *view) CycleThinking(context.Context) (string, bool, error) {
	var data rpcwire.CycleThinking
	_, err := v.rpc(rpcwire.Command{Type: "cycle_thinking_level"}, &data)
	return data.Level, err == nil && data.Level != "", err
}

func (v *view) SetThinking(_ context.Context, level string) error {
	_, err := v.rpc(rpcwire.Command{Type: "set_thinking_level", Level: level}, nil)
	return err
}

func (v *view) SetQueueMode(_ context.Context, which, mode string) error {
	name := "set_steering_mode"
	if which == "followUp" {
		name = "set_follow_up_mode"
	}
	_, err := v.rpc(rpcwire.Command{Type: name, Mode: mode}, nil)
	return err
}

func (v *view) SetAutoCompaction(_ context.Context, on bool) error {
	_, err := v.rpc(rpcwire.Command{Type: "set_auto_compaction", Enabled: &on}, nil)
	return err
}

// SetScope is scoped_models with patterns; ["all"] clears the scope.
func (v *view) SetScope(_ context.Context, patterns []string) error {
	if len(patterns) == 0 {
		patterns = []string{"all"}
	}
	_, err := v.rpc(rpcwire.Command{Type: "scoped_models", Patterns: patterns}, nil)
	return err
}

func (v *view) ScopedModels(context.Context) ([]provider.Model, bool, error) {
	var data rpcwire.ScopedModels
	_, err := v.rpc(rpcwire.Command{Type: "scoped_models"}, &data)
	return data.Models, data.Scoped, err
}

func (v *view) Compact(_ context.Context, instructions string) (int, int, error) {
	var data rpcwire.Compact
	_, err := v.rpc(rpcwire.Command{Type: "compact", CustomInstructions: instructions}, &data)
	return data.TokensBefore, data.TokensAfter, err
}

// NewSession creates a session in pi serve, working where this one does, and moves there.
func (v *view) NewSession(ctx context.Context) (termui.Switch, error) {
	snap, err := v.c.Create(ctx, v.sessionCwd())
	if err != nil {
		return termui.Switch{}, err
	}
	return v.switchTo(snap), nil
}

// Clone is pi's clone: the session moves to the copy.
func (v *view) Clone(context.Context) (termui.Switch, error) {
	_, err := v.rpc(rpcwire.Command{Type: "clone"}, nil)
	return termui.Switch{ID: v.session()}, err
}

func (v *view) ForkPoints(context.Context) ([]session.ForkPoint, error) {
	var data rpcwire.ForkMessages
	_, err := v.rpc(rpcwire.Command{Type: "get_fork_messages"}, &data)
	return data.Messages, err
}

func (v *view) Fork(_ context.Context, entryID string) (string, termui.Switch, error) {
	var data rpcwire.Fork
	_, err := v.rpc(rpcwire.Command{Type: "fork", EntryID: entryID}, &data)
	return data.Text, termui.Switch{ID: v.session()}, err
}

// Resumable are pi serve's other sessions and the session files of this one's folder (pi
// serve opens any session file it can find by id).
func (v *view) Resumable(ctx context.Context) ([]termui.Resumable, error) {
	list, err := v.c.List(ctx)
	if err != nil {
		return nil, err
	}
	cwd := v.sessionCwd()
	return resumeChoices(ctx, list, cwd, v.session(), session.Dir(v.piHome, cwd)), nil
}

// SearchSessions searches the session files of this folder that refs names by id: the served
// sessions pi serve keeps there, and the folder's others. pi serve's protocol has no search,
// so a served session kept elsewhere (in a database) is found by its row only.
func (v *view) SearchSessions(ctx context.Context, query string, refs []string, found func(ref, line string) bool) error {
	files, err := filepath.Glob(filepath.Join(session.Dir(v.piHome, v.sessionCwd()), "*.jsonl"))
	if err != nil {
		return fmt.Errorf("search this folder's sessions: %w", err)
	}
	for _, f := range files {
		_, id, _ := strings.Cut(strings.TrimSuffix(filepath.Base(f), ".jsonl"), "_") // pi's <time>_<id>.jsonl
		if !slices.Contains(refs, id) {
			continue
		}
		more := true
		err := session.SearchFile(ctx, f, query, func(h session.Hit) error {
			more = found(id, h.Line)
			return session.ErrStopSearch
		})
		if err != nil || !more {
			return err
		}
	}
	return nil
}

func (v *view) Resume(ctx context.Context, r termui.Resumable) (termui.Switch, error) {
	snap, err := v.c.Attach(ctx, r.Ref)
	if err != nil {
		return termui.Switch{}, err
	}
	return v.switchTo(snap), nil
}

func (v *view) Tree(context.Context) ([]session.TreeEntry, string, error) {
	var data rpcwire.Tree
	_, err := v.rpc(rpcwire.Command{Type: "get_tree"}, &data)
	leaf := ""
	if data.LeafID != nil {
		leaf = *data.LeafID
	}
	return data.Entries, leaf, err
}

func (v *view) LeavesConversation(_ context.Context, targetID string) (bool, error) {
	var data rpcwire.Leaves
	_, err := v.rpc(rpcwire.Command{Type: "leaves_conversation", TargetID: targetID}, &data)
	return data.Leaves, err
}

func (v *view) NavigateTree(_ context.Context, targetID string, summarize bool, focus string) (string, error) {
	var data rpcwire.NavigateTree
	_, err := v.rpc(rpcwire.Command{Type: "navigate_tree", TargetID: targetID, Summarize: summarize, CustomInstructions: focus}, &data)
	return data.EditorText, err
}

func (v *view) SetLabel(_ context.Context, entryID, label string) error {
	_, err := v.rpc(rpcwire.Command{Type: "set_label", EntryID: entryID, Label: label}, nil)
	return err
}

func (v *view) Rename(_ context.Context, name string) error {
	_, err := v.rpc(rpcwire.Command{Type: "set_session_name", Name: name}, nil)
	return err
}

// Counts are the served session's get_session_stats: what is in context; its file is not
// counted here.
func (v *view) Counts(context.Context) (termui.Counts, error) {
	var data rpcwire.SessionStats
	_, err := v.rpc(rpcwire.Command{Type: "get_session_stats"}, &data)
	return termui.Counts{Branch: data, BranchIs: "in context"}, err
}

// Export writes the session as HTML on the server's machine.
func (v *view) Export(_ context.Context, path string) (string, error) {
	var data rpcwire.ExportHTML
	_, err := v.rpc(rpcwire.Command{Type: "export_html", OutputPath: path}, &data)
	return data.Path, err
}

func (v *view) LastReply(context.Context) (string, bool, error) {
	var data rpcwire.LastAssistantText
	_, err := v.rpc(rpcwire.Command{Type: "get_last_assistant_text"}, &data)
	if err != nil || data.Text == nil {
		return "", false, err
	}
	return *data.Text, true, nil
}

// Reload loads the session's scripts again on the server; the screen's themes stay this
// machine's.
func (v *view) Reload(context.Context) ([]string, error) {
	_, err := v.rpc(rpcwire.Command{Type: "reload"}, nil)
	return nil, err
}

// Trust is pi serve's decision (Notes say so); this terminal neither knows nor sets it.
func (v *view) Trust(context.Context) (bool, bool, error) { return false, false, nil }

func (v *view) SetTrust(context.Context, bool) (string, error) {
	return "", errors.New(v.Notes(v.ctx).Trust)
}

// Bash runs the command in the session's folder on the server's machine.
func (v *view) Bash(_ context.Context, command string, exclude bool, _ func(string)) (session.BashResult, error) {
	var data rpcwire.Bash
	_, err := v.rpc(rpcwire.Command{Type: "bash", Command: command, ExcludeFromContext: exclude}, &data)
	return data, err
}

// Commands are the session's scripts' commands and skills.
func (v *view) Commands(context.Context) ([]termui.Command, error) {
	var data rpcwire.Commands
	if _, err := v.rpc(rpcwire.Command{Type: "get_commands"}, &data); err != nil {
		return nil, err
	}
	out := make([]termui.Command, 0, len(data.Commands))
	for _, c := range data.Commands {
		if c.Name != "" {
			out = append(out, termui.Command{Name: c.Name, Description: c.Description})
		}
	}
	return out, nil
}

// Shortcuts are the session's scripts' keys, bound on this screen with this machine's keymap
// (a key one of its actions has stays the action's, as locally); pressing one runs the
// script on the server.
func (v *view) Shortcuts(context.Context) ([]tui.Shortcut, error) {
	var data rpcwire.Shortcuts
	if _, err := v.rpc(rpcwire.Command{Type: "get_shortcuts"}, &data); err != nil {
		return nil, err // an older pi serve: no shortcuts
	}
	var out []tui.Shortcut
	for _, s := range data.Shortcuts {
		if s.Key != "" {
			out = append(out, tui.Shortcut{Key: s.Key, Description: s.Description})
		}
	}
	return out, nil
}

// Hold shows the screen working, so that Escape reaches the server (as abort) and a run's end
// does not show it idle meanwhile.
func (v *view) Hold() func() {
	v.bashing.Add(1)
	v.showWorking()
	var once sync.Once
	return func() {
		once.Do(func() {
			v.bashing.Add(-1)
			v.showWorking()
		})
	}
}

// ShowSession draws the session's latest snapshot: its conversation, queue and footer.
func (v *view) ShowSession(context.Context) {
	if s := v.current(); s != nil {
		v.show(s)
	}
}

// Refresh has nothing to do: the server's snapshots keep the footer.
// Refresh draws the footer from the session's latest snapshot (each of pi's commands brings
// one, a rename's too).
func (v *view) Refresh(context.Context) {
	v.mu.Lock()
	if v.snap != nil {
		v.foot = v.footerOfLocked(v.snap)
	}
	foot := v.foot
	v.mu.Unlock()
	v.ui.SetFooter(foot)
}

// Import opens a session file of the server's machine as a new served session (pi's own
// import_session), which this screen then shows.
func (v *view) Import(_ context.Context, path string) (termui.Switch, int, error) {
	var data rpcwire.Import
	_, err := v.rpc(rpcwire.Command{Type: "import_session", SessionPath: path}, &data)
	return termui.Switch{ID: v.session()}, data.Skipped, err
}

// DebugReport is the served session's report (debug_report), after this screen's side.
func (v *view) DebugReport(context.Context) (string, error) {
	var data rpcwire.DebugReport
	_, err := v.rpc(rpcwire.Command{Type: "debug_report"}, &data)
	return "## pi attach\n\nsession " + v.session() + "\n\n" + data.Report, err
}
