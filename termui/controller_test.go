package termui

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/gdamore/tcell/v2"

	"pi/provider"
	"pi/session"
)

var (
	up, down, enter, esc = []tcell.Key{tcell.KeyUp}, []tcell.Key{tcell.KeyDown}, []tcell.Key{tcell.KeyEnter}, []tcell.Key{tcell.KeyEscape}
	downEnter            = []tcell.Key{tcell.KeyDown, tcell.KeyEnter}
	upEnter              = []tcell.Key{tcell.KeyUp, tcell.KeyEnter}
)

func strp(s string) *string { return &s }

// tree is a session of two exchanges, on the second reply.
func tree(f *fake) {
	root := "e1"
	f.entries = []session.TreeEntry{
		{ID: "e1", Type: "message", Role: "user", Preview: "first ask"},
		{ID: "e2", ParentID: &root, Type: "message", Role: "assistant", Preview: "first answer"},
	}
	f.leaf = "e2"
}

func twoModels(f *fake) {
	f.models = []provider.Model{{Provider: "faux", ID: "a"}, {Provider: "faux", ID: "b", ContextWindow: 32000}}
	f.state.Model = f.models[0]
}

// commandCase is a slash command run with its dialogs answered or cancelled: the session
// calls it makes, in order, the ones it must not make, and what the screen says.
type commandCase struct {
	name, cmd, args string
	setup           func(*fake)
	steps           []step
	calls, never    []string
	shows           string
}

func runCommands(t *testing.T, cases []commandCase) {
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			f := &fake{notes: Notes{SettingsFile: filepath.Join(t.TempDir(), "pi.toml")}} // /debug writes beside it
			if tc.setup != nil {
				tc.setup(f)
			}
			r := newRig(t, f)
			r.play(t, tc.steps, func() { r.c.Command(tc.cmd, tc.args) })
			checkCalls(t, f.recorded(), tc.calls, tc.never)
			if tc.shows != "" {
				r.shows(t, tc.shows)
			}
			if f.held != 0 {
				t.Errorf("%d holds not released", f.held)
			}
		})
	}
}

// /model and /scoped-models.
func TestModelCommands(t *testing.T) {
	runCommands(t, []commandCase{
		{"model picked", "model", "", twoModels, []step{{wait: "Select a model", keys: downEnter}},
			[]string{"Models", "State", "SetModel faux/b", "Refresh"}, nil, "model: faux/b"},
		{"model picker shows traits", "model", "", twoModels, []step{{wait: "faux/b  (32k context)", keys: esc}}, []string{"Models"}, []string{"SetModel"}, ""},
		{"model picker cancelled", "model", "", twoModels, []step{{wait: "Select a model", keys: esc}}, nil, []string{"SetModel"}, ""},
		{"model kept", "model", "", twoModels, []step{{wait: "Select a model", keys: enter}}, nil, []string{"SetModel"}, ""},
		// The model in use, asked for as "qwen3", is the server's qwen3:latest: the picker opens on it.
		{"untagged model kept", "model", "", func(f *fake) {
			f.models = []provider.Model{{Provider: "ollama", API: "ollama", ID: "llama3:latest"}, {Provider: "ollama", API: "ollama", ID: "qwen3:latest"}}
			f.state.Model = provider.Model{Provider: "ollama", API: "ollama", ID: "qwen3"}
		}, []step{{wait: "Select a model", keys: enter}}, nil, []string{"SetModel"}, ""},
		{"no models", "model", "", nil, nil, []string{"Models"}, []string{"SetModel"}, "there is no model to pick"},
		{"scope set", "scoped-models", "ollama/*, openai/gpt-4o ,", func(f *fake) { twoModels(f); f.scoped = true }, nil,
			[]string{"SetScope [ollama/* openai/gpt-4o]", "ScopedModels"}, nil, "ctrl+p cycles through the scope: faux/a, faux/b"},
		{"scope cleared", "scoped-models", "all", nil, nil, []string{"SetScope []", "ScopedModels"}, nil, "every available model"},
		{"scope shown", "scoped-models", "", nil, nil, []string{"ScopedModels"}, []string{"SetScope"}, "ctrl+p cycles through every available model"},
		{"scope refused", "scoped-models", "x", func(f *fake) { f.failing = map[string]error{"SetScope": errBoom} }, nil,
			[]string{"SetScope [x]"}, []string{"ScopedModels"}, errBoom.Error()},
	})
}

// /new, /clone, /fork and /resume: each switch is reported and shown.
func TestSessionSwitchCommands(t *testing.T) {
	runCommands(t, []commandCase{
		{"new", "new", "", func(f *fake) { f.notes.ExitDescription = "left s1 in pi serve" }, nil,
			[]string{"NewSession", "ShowSession", "Commands"}, nil, "new session: s-new (left s1 in pi serve)"},
		{"new fails", "new", "", func(f *fake) { f.failing = map[string]error{"NewSession": errBoom} }, nil, nil, []string{"ShowSession"}, errBoom.Error()},
		{"clone", "clone", "", nil, nil, []string{"Clone", "ShowSession"}, nil, "cloned session: s-clone"},
		{"fork", "fork", "", func(f *fake) {
			f.forks = []session.ForkPoint{{EntryID: "u1", Text: "first"}, {EntryID: "u2", Text: "second\nask"}}
		},
			[]step{{wait: "second ask", keys: downEnter}}, []string{"ForkPoints", "Fork u2", "ShowSession"}, nil, "forked into a new session: s-fork"},
		{"fork cancelled", "fork", "", func(f *fake) { f.forks = []session.ForkPoint{{EntryID: "u1", Text: "first"}} },
			[]step{{wait: "Fork from which message?", keys: esc}}, nil, []string{"Fork "}, ""},
		{"nothing to fork", "fork", "", nil, nil, []string{"ForkPoints"}, []string{"Fork "}, "nothing to fork from yet"},
		{"resume", "resume", "", func(f *fake) {
			f.resumable = []Resumable{{Ref: "/s/a.jsonl", ID: "a", FirstPrompt: "<context>\nDate\n</context>\nfix the parser", Counted: true, Messages: 3},
				{Ref: "b", ID: "b", Name: "named", Cwd: "/elsewhere"}}
		}, []step{{wait: "named · /elsewhere", keys: downEnter}}, []string{"Resumable", "Resume b", "ShowSession"}, nil, "resumed session: b"},
		{"resume shows the first words", "resume", "", func(f *fake) {
			f.resumable = []Resumable{{Ref: "a", ID: "a", FirstPrompt: "<context>\nDate\n</context>\nfix the parser", Counted: true, Messages: 3}}
		}, []step{{wait: "fix the parser · 3 messages", keys: esc}}, nil, []string{"Resume "}, ""},
		{"nothing to resume", "resume", "", func(f *fake) { f.notes.NoResume = "pi serve has no other session" }, nil,
			nil, []string{"Resume "}, "pi serve has no other session"},
	})
}

// /tree and /label, their pickers and questions answered and cancelled.
func TestTreeCommands(t *testing.T) {
	runCommands(t, []commandCase{
		{"tree with a summary", "tree", "", func(f *fake) { tree(f); f.leaves = true; f.editorText = "first ask" },
			[]step{{wait: "Continue from which point?", keys: upEnter}, {wait: "Summarise the branch you are leaving?", keys: downEnter}},
			[]string{"Tree", "LeavesConversation e1", "NavigateTree e1 true ", "ShowSession"}, nil, "moved in the session tree; the conversation now reads:"},
		{"tree with a focus", "tree", "", func(f *fake) { tree(f); f.leaves = true },
			[]step{{wait: "Continue from which point?", keys: upEnter}, {wait: "Summarise the branch", keys: []tcell.Key{tcell.KeyDown, tcell.KeyDown, tcell.KeyEnter}},
				{wait: "What should the summary focus on?", typed: "the API"}},
			[]string{"NavigateTree e1 true the API"}, nil, "moved in the session tree"},
		{"tree, nothing left behind", "tree", "", tree, []step{{wait: "Continue from which point?", keys: upEnter}},
			[]string{"LeavesConversation e1", "NavigateTree e1 false "}, nil, "moved in the session tree"},
		{"tree summary question cancelled", "tree", "", func(f *fake) { tree(f); f.leaves = true },
			[]step{{wait: "Continue from which point?", keys: upEnter}, {wait: "Summarise the branch", keys: esc}}, nil, []string{"NavigateTree"}, ""},
		{"tree focus cancelled", "tree", "", func(f *fake) { tree(f); f.leaves = true },
			[]step{{wait: "Continue from which point?", keys: upEnter}, {wait: "Summarise the branch", keys: []tcell.Key{tcell.KeyDown, tcell.KeyDown, tcell.KeyEnter}},
				{wait: "What should the summary focus on?", keys: esc}}, nil, []string{"NavigateTree"}, ""},
		{"tree already there", "tree", "", tree, []step{{wait: "Continue from which point?", keys: enter}}, nil, []string{"NavigateTree"}, "already there"},
		{"tree picker cancelled", "tree", "", tree, []step{{wait: "Continue from which point?", keys: esc}}, nil, []string{"LeavesConversation"}, ""},
		{"tree empty", "tree", "", nil, nil, []string{"Tree"}, nil, "the session is empty: nothing to pick yet"},
		{"tree move fails", "tree", "", func(f *fake) { tree(f); f.failing = map[string]error{"NavigateTree": errBoom} },
			[]step{{wait: "Continue from which point?", keys: upEnter}}, nil, []string{"ShowSession"}, errBoom.Error()},
		{"label", "label", "", tree, []step{{wait: "Label which entry?", keys: upEnter}, {wait: "Label (empty to clear)", typed: "start"}},
			[]string{"Tree", "SetLabel e1 start"}, nil, "labelled"},
		{"label cancelled", "label", "", tree, []step{{wait: "Label which entry?", keys: enter}, {wait: "Label (empty to clear)", keys: esc}},
			nil, []string{"SetLabel"}, ""},
	})
}

// The commands that are one call with a notice, /trust, the ways out, and a script's command.
func TestOtherCommands(t *testing.T) {
	runCommands(t, []commandCase{
		{"compact", "compact", "keep the API", nil, nil, []string{"Compact keep the API", "Refresh"}, nil, "compacted: 1200 → 300 tokens"},
		{"compact fails", "compact", "", func(f *fake) { f.failing = map[string]error{"Compact": errBoom} }, nil, nil, []string{"Refresh"}, errBoom.Error()},
		{"name", "name", "refactor", nil, nil, []string{"Rename refactor", "Refresh"}, nil, ""},
		{"name refused", "name", "", func(f *fake) { f.failing = map[string]error{"Rename": errBoom} }, nil, []string{"Rename "}, nil, errBoom.Error()},
		{"session", "session", "", nil, nil, []string{"Counts"}, nil, "this branch: 4 messages (2 user, 2 assistant, 0 tool calls)"},
		{"session, the file the branch", "session", "", func(f *fake) {
			f.file = &session.Stats{SessionID: "s1", SessionFile: "/s.jsonl", TotalMessages: 4, UserMessages: 2, AssistantMessages: 2,
				Tokens: session.StatsTokens{Input: 120, Output: 30}, Cost: 0.5}
		}, nil, []string{"Counts"}, nil, "the whole file (every branch, as /export counts it) is this branch"},
		{"session, a file of several branches", "session", "", func(f *fake) { f.file = &session.Stats{TotalMessages: 9, UserMessages: 4} }, nil,
			[]string{"Counts"}, nil, "the whole file, every branch (as /export counts it): 9 messages (4 user"},
		{"export", "export", " out.html ", nil, nil, []string{"Export out.html"}, nil, "exported to /out/out.html"},
		{"export fails", "export", "x.jsonl", func(f *fake) { f.failing = map[string]error{"Export": errBoom} }, nil, nil, nil, errBoom.Error()},
		{"copy", "copy", "", func(f *fake) { f.reply = strp("the reply") }, nil, []string{"LastReply"}, nil, "copied the last reply"},
		{"copy before a reply", "copy", "", nil, nil, []string{"LastReply"}, nil, "no reply to copy yet"},
		{"reload", "reload", "", nil, nil, []string{"Reload", "Commands"}, nil, "scripts reloaded"},
		{"trust decided elsewhere", "trust", "on", func(f *fake) { f.notes.Trust = "pi serve's decision" }, nil, nil, []string{"SetTrust"}, "pi serve's decision"},
		{"trust on", "trust", "on", nil, nil, []string{"SetTrust true", "Commands"}, nil, "trust is true now"},
		{"trust off", "trust", "no", nil, nil, []string{"SetTrust false"}, nil, "trust is false now"},
		{"trust asked", "trust", "", func(f *fake) { f.trusted = true }, []step{{wait: "(trusted now: true)", keys: downEnter}},
			[]string{"Trust", "SetTrust false"}, nil, "trust is false now"},
		{"trust question cancelled", "trust", "", nil, []step{{wait: "trusted now", keys: esc}}, nil, []string{"SetTrust"}, ""},
		{"trust garbled", "trust", "maybe", nil, nil, nil, []string{"SetTrust"}, "/trust takes on or off"},
		{"hotkeys", "hotkeys", "", nil, nil, nil, nil, "ctrl+l"},
		{"import", "import", " /x/cc.jsonl ", nil, nil, []string{"Import /x/cc.jsonl", "ShowSession"}, nil, "2 lines of /x/cc.jsonl could not be read"},
		{"import without a file", "import", "", nil, nil, nil, []string{"Import"}, "/import takes a session file"},
		{"import fails", "import", "x.jsonl", func(f *fake) { f.failing = map[string]error{"Import": errBoom} }, nil, nil, []string{"ShowSession"}, errBoom.Error()},
		{"debug", "debug", "", nil, nil, []string{"DebugReport"}, nil, "it holds the whole conversation"},
		{"debug where it cannot write", "debug", "", func(f *fake) { f.notes.SettingsFile = "/proc/no/such/pi.toml" }, nil, []string{"DebugReport"}, nil, "/debug: "},
		{"debug fails", "debug", "", func(f *fake) { f.failing = map[string]error{"DebugReport": errBoom} }, nil, nil, nil, errBoom.Error()},
		{"changelog", "changelog", "", nil, nil, nil, nil, "What changed in pi"},
		{"quit", "quit", "", nil, nil, []string{"Quit"}, nil, ""},
		{"exit", "exit", "", nil, nil, []string{"Quit"}, nil, ""},
		{"detach where it leaves", "detach", "", func(f *fake) { f.notes.Exit = "detach" }, nil, []string{"Quit"}, nil, ""},
		{"detach elsewhere is a prompt", "detach", "", nil, nil, []string{"Send /detach 3"}, []string{"Quit"}, ""},
		{"a script's command", "deploy", "now", nil, nil, []string{"Send /deploy now 3"}, nil, ""},
	})
}

// checkCalls says whether calls has want in order, and none that starts with one of never.
func checkCalls(t *testing.T, calls, want, never []string) {
	t.Helper()
	i := 0
	for _, c := range calls {
		if i < len(want) && c == want[i] {
			i++
		}
		for _, n := range never {
			if strings.HasPrefix(c, n) {
				t.Errorf("called %q: %q", c, calls)
			}
		}
	}
	if i < len(want) {
		t.Errorf("calls %q lack %q (in order)", calls, want[i:])
	}
}

// /settings applies a row's value on the session, and saves it to pi.toml only where the
// session's settings are saved.
func TestSettings(t *testing.T) {
	for _, saved := range []bool{true, false} {
		f := &fake{notes: Notes{SettingsSaved: saved, SettingsFile: filepath.Join(t.TempDir(), "pi.toml")}}
		twoModels(f)
		f.state.SteeringMode = "one-at-a-time"
		r := newRig(t, f)
		r.play(t, []step{{wait: "Settings (saved to", keys: []tcell.Key{tcell.KeyDown, tcell.KeyDown, tcell.KeyEnter}}, {wait: "all", keys: downEnter}},
			func() { r.c.Command("settings", "") })
		checkCalls(t, f.recorded(), []string{"State", "SetQueueMode steer all", "State", "Refresh"}, nil)
		data, err := os.ReadFile(f.notes.SettingsFile)
		if saved {
			r.shows(t, "steering mode: all (saved to")
			if err != nil || !strings.Contains(string(data), `steering_mode = "all"`) {
				t.Errorf("pi.toml: %q %v", data, err)
			}
		} else {
			r.shows(t, "steering mode: all (for this session)")
			if err == nil {
				t.Errorf("the session's setting was saved: %q", data)
			}
		}
	}
}

// Each settings row shows the session's value and sets its own setting, then shows the
// value the session has now.
func TestSettingsRows(t *testing.T) {
	cases := []struct {
		label, current, value, call string
	}{
		{"model", "faux/a", "faux/b", "SetModel faux/b"},
		{"thinking level", "off", "minimal", "SetThinking minimal"},
		{"steering mode", "one-at-a-time", "all", "SetQueueMode steer all"},
		{"follow-up mode", "all", "one-at-a-time", "SetQueueMode followUp one-at-a-time"},
		{"auto-compaction", "on", "off", "SetAutoCompaction false"},
	}
	f := &fake{}
	twoModels(f)
	f.state.SteeringMode, f.state.FollowUpMode, f.state.AutoCompactionEnabled = "one-at-a-time", "all", true
	r := newRig(t, f)
	st := f.state
	rows := r.c.sessionSettings(&st)
	for i, tc := range cases {
		row := rows[i]
		if row.Label != tc.label || row.Current() != tc.current {
			t.Errorf("row %d: %s = %q, want %s = %q", i, row.Label, row.Current(), tc.label, tc.current)
		}
		if !slices.Contains(row.Values(context.Background()), tc.value) {
			t.Errorf("%s offers %q, not %q", row.Label, row.Values(context.Background()), tc.value)
		}
		if i == 1 {
			f.state.ThinkingLevel = "minimal" // what the session says after the change
		}
		if err := row.Apply(context.Background(), tc.value); err != nil {
			t.Fatal(err)
		}
		checkCalls(t, f.recorded(), []string{tc.call, "State"}, nil)
	}
	if got := rows[1].Current(); got != "minimal" {
		t.Errorf("after the change the thinking row shows %q", got)
	}
	f.failing = map[string]error{"SetThinking": errBoom}
	if err := rows[1].Apply(context.Background(), "high"); err != errBoom {
		t.Errorf("a refused change: %v", err)
	}
}
