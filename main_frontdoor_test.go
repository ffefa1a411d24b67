//go:build unix

package main

// main_frontdoor_test.go holds the black-box acceptance tests of pi's "front door": every input,
// whether it comes from the terminal UI, RPC mode, print mode (-p) or JSON mode, must take the
// same way in — a script command runs; otherwise the input hooks (user `input` hooks, then the
// bundled skill and prompt-template expansion) rewrite it; then it is sent as a prompt, or
// while the agent works queued as a steer or a follow-up.
//
// The tests drive only the real binary (buildPi) with the faux provider, and read back what
// each run wrote to its session file, so they stay valid however the root package is
// rearranged inside.
//
// Several subtests failed on the code before the front-door redesign: they were its
// acceptance list. Each names the defect it guards against where it is defined
// (fdRow.failsToday, and the comments on TestFrontDoorBashRace,
// TestFrontDoorTUIEscapeAbortsCompact and TestFrontDoorRPCAbortStopsEverything), and a
// failure message starts with "regression of the front door (<that defect>)".

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

// The project every front-door run works in.
const (
	fdSkill = "---\nname: x\ndescription: Answers in one word.\n---\nAnswer in exactly one word.\n"

	fdTemplate = "---\ndescription: greets someone\n---\nHello $1, how are you?\n"

	// fdInitLua is the project's script (loaded with --trust): a user input hook, a command
	// with an effect outside the conversation, and one that sends a user message.
	fdInitLua = `
pi.on("input", function(ev)
  local rest = ev.text:match("^shout (.*)$")
  if rest then return { text = rest:upper() .. "!" } end
end)
pi.register_command{name = "note", description = "writes note.txt", run = function(args)
  assert(pi.write_file("note.txt", args))
end}
pi.register_command{name = "hello", description = "says hello as the user", run = function(args)
  assert(pi.send_user_message("hello " .. args))
end}
`
	// fdConfig makes steering deliver every queued steer in one turn, so that a follow-up
	// wrongly queued as a steer shows in the transcript (with one-at-a-time steering the two
	// would give the same transcript).
	fdConfig = "steering_mode = \"all\"\n"

	// fdPNG is a 1×1 PNG for the image rows.
	fdPNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg=="
)

// fdSlow is the busy rows' first reply: about four seconds at 4 characters per 25 ms, so the
// run still streams when the steer and the follow-up arrive.
var fdSlow = "SLOW-START " + strings.Repeat("streaming slowly ", 38) + "SLOW-END"

// fdSkillText is /skill:x <args> as the bundled skills script expands it.
func fdSkillText(args string) string {
	return "<skill name=\"x\" location=\"<dir>/.pi/skills/x/SKILL.md\">\nPaths in this skill are relative to " +
		"<dir>/.pi/skills/x.\n\nAnswer in exactly one word.\n</skill>\n\n" + args
}

// fdProject is one run's directory: the project files, PI_HOME (also HOME, so nothing of the
// user's leaks in), the session directory and the faux script.
type fdProject struct {
	dir, home, sessions, script string
}

func newFDProject(t *testing.T, script string) *fdProject {
	t.Helper()
	dir := t.TempDir()
	p := &fdProject{dir: dir, home: filepath.Join(dir, ".pihome"), sessions: filepath.Join(dir, "sessions"),
		script: filepath.Join(dir, "script.json")}
	for name, content := range map[string]string{
		".pi/skills/x/SKILL.md": fdSkill,
		".pi/prompts/greet.md":  fdTemplate,
		".pi/init.lua":          fdInitLua,
		".pihome/pi.toml":       fdConfig,
		"script.json":           script,
	} {
		path := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return p
}

func (p *fdProject) env() []string {
	return append(os.Environ(), "PI_HOME="+p.home, "HOME="+p.home)
}

func (p *fdProject) args(extra ...string) []string {
	return append([]string{"--faux-script", p.script, "--session-dir", p.sessions, "--trust"}, extra...)
}

// fdScript is a faux script; a few spare replies at the end make an unexpected extra model
// call show in the transcript instead of failing the run.
func fdScript(delayMs, runes int, replies ...string) string {
	type block struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	type reply struct {
		Content []block `json:"content"`
	}
	var rs []reply
	for _, r := range append(replies, "Unscripted reply.", "Unscripted reply.", "Unscripted reply.") {
		rs = append(rs, reply{[]block{{"text", r}}})
	}
	b, _ := json.Marshal(map[string]any{"chunkDelayMs": delayMs, "chunkRunes": runes, "replies": rs})
	return string(b)
}

// fdBranch reads the session file in dir and returns the entries on its current branch: the
// chain from the last entry back to the root, oldest first. A line still being written is
// ignored.
func fdBranch(dir string) ([]map[string]any, error) {
	files, _ := filepath.Glob(filepath.Join(dir, "*.jsonl"))
	if len(files) != 1 {
		return nil, fmt.Errorf("%d session files in %s, want 1", len(files), dir)
	}
	data, err := os.ReadFile(files[0])
	if err != nil {
		return nil, err
	}
	byID := map[string]map[string]any{}
	var last map[string]any
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 1<<20), 1<<26)
	for sc.Scan() {
		var e map[string]any
		if json.Unmarshal(sc.Bytes(), &e) != nil || e["type"] == "session" {
			continue
		}
		id, _ := e["id"].(string)
		byID[id] = e
		last = e
	}
	var branch []map[string]any
	for e := last; e != nil; {
		branch = append(branch, e)
		parent, _ := e["parentId"].(string)
		e = byID[parent]
		if len(branch) > len(byID) {
			return nil, fmt.Errorf("the entries of %s form a cycle", files[0])
		}
	}
	slices.Reverse(branch)
	return branch, nil
}

// fdMessages is the messages on the session's current branch.
func fdMessages(dir string) ([]map[string]any, error) {
	branch, err := fdBranch(dir)
	var msgs []map[string]any
	for _, e := range branch {
		if m, ok := e["message"].(map[string]any); ok && e["type"] == "message" {
			msgs = append(msgs, m)
		}
	}
	return msgs, err
}

func fdAssistants(dir string) int {
	msgs, _ := fdMessages(dir)
	n := 0
	for _, m := range msgs {
		if m["role"] == "assistant" {
			n++
		}
	}
	return n
}

// fdText is a message's text as the model saw it: the context block that opens a conversation
// left out, an image as "[image <mime>]", the project directory as <dir>.
func fdText(m map[string]any, projectDir string) string {
	var parts []string
	switch c := m["content"].(type) {
	case string:
		parts = append(parts, c)
	case []any:
		for _, b := range c {
			blk, _ := b.(map[string]any)
			switch blk["type"] {
			case "text":
				if t, _ := blk["text"].(string); !strings.HasPrefix(t, "<context>") {
					parts = append(parts, t)
				}
			case "image":
				parts = append(parts, fmt.Sprintf("[image %v]", blk["mimeType"]))
			}
		}
	}
	sep := "\n"
	if m["role"] == "assistant" {
		sep = ""
	}
	text := strings.Join(parts, sep)
	if real, err := filepath.EvalSymlinks(projectDir); err == nil && real != projectDir {
		text = strings.ReplaceAll(text, real, "<dir>")
	}
	return strings.ReplaceAll(text, projectDir, "<dir>")
}

// fdTranscript is "role: text" for the user and assistant messages of the current branch.
func fdTranscript(p *fdProject) ([]string, error) {
	msgs, err := fdMessages(p.sessions)
	var out []string
	for _, m := range msgs {
		if r := m["role"]; r == "user" || r == "assistant" {
			text := fdText(m, p.dir)
			if text == fdSlow {
				text = "<slow reply>" // keeps failure messages readable
			}
			out = append(out, fmt.Sprintf("%s: %s", r, text))
		}
	}
	return out, err
}

// fdDiff shows got against want line by line.
func fdDiff(got, want []string) string {
	var b strings.Builder
	for i := range max(len(got), len(want)) {
		g, w := "(none)", "(none)"
		if i < len(got) {
			g = fmt.Sprintf("%q", got[i])
		}
		if i < len(want) {
			w = fmt.Sprintf("%q", want[i])
		}
		if g == w {
			fmt.Fprintf(&b, "\n      %d: %s", i, g)
		} else {
			fmt.Fprintf(&b, "\n    - %d: %s (want)\n    + %d: %s (got)", i, w, i, g)
		}
	}
	return b.String()
}

// fdWaitUntil polls cond every 50 ms until it holds or d has passed.
func fdWaitUntil(d time.Duration, cond func() bool) bool {
	for end := time.Now().Add(d); ; time.Sleep(50 * time.Millisecond) {
		if cond() {
			return true
		}
		if time.Now().After(end) {
			return false
		}
	}
}

// fdAwait is rpcClient.await with a deadline of its own that reports instead of failing, so a
// test can assert that something arrives quickly.
func fdAwait(c *rpcClient, from int, d time.Duration, match func(rpcLine) bool) (rpcLine, bool) {
	for i := from; i < len(c.history); i++ {
		if match(c.history[i]) {
			return c.history[i], true
		}
	}
	timeout := time.After(d)
	for {
		select {
		case l, ok := <-c.lines:
			if !ok {
				return nil, false
			}
			c.history = append(c.history, l)
			if match(l) {
				return l, true
			}
		case <-timeout:
			return nil, false
		}
	}
}

func fdResponse(id string) func(rpcLine) bool {
	return func(l rpcLine) bool { return l["type"] == "response" && l["id"] == id }
}

func fdEvent(typ string) func(rpcLine) bool {
	return func(l rpcLine) bool { return l["type"] == typ }
}

// startFDRPC runs `pi --mode rpc` in p. stop closes stdin, waits for the exit and returns
// stderr.
func startFDRPC(t *testing.T, bin string, p *fdProject, extra ...string) (c *rpcClient, stop func() string) {
	t.Helper()
	cmd := exec.Command(bin, p.args(append([]string{"--mode", "rpc"}, extra...)...)...)
	cmd.Dir, cmd.Env = p.dir, p.env()
	stdin, _ := cmd.StdinPipe()
	stdout, _ := cmd.StdoutPipe()
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	c = newRPCClient(t, stdin, stdout)
	var once sync.Once
	stop = func() string {
		once.Do(func() {
			stdin.Close()
			done := make(chan struct{})
			go func() { c.drain(); close(done) }()
			select {
			case <-done:
			case <-time.After(30 * time.Second):
				cmd.Process.Kill()
				t.Errorf("pi did not exit after its stdin closed")
				<-done
			}
			cmd.Wait()
		})
		return stderr.String()
	}
	t.Cleanup(func() { stop() })
	return c, stop
}

// fdRPCIdle polls get_state until the agent is neither streaming nor compacting.
func fdRPCIdle(c *rpcClient, d time.Duration) bool {
	return fdWaitUntil(d, func() bool {
		st := c.state()
		return st["isStreaming"] == false && st["isCompacting"] == false
	})
}

// fdRPCSend sends a command line without waiting for its response.
func fdRPCSend(c *rpcClient, cmd map[string]any) {
	c.t.Helper()
	b, err := json.Marshal(cmd)
	if err != nil {
		c.t.Fatal(err)
	}
	c.sendRaw(string(b) + "\n")
}

// fdTmux drives the real binary's terminal UI in a tmux session, as tui/tmux_test.go does,
// on a tmux server of its own (its socket in a temporary directory), so that nothing is left
// behind and no other tmux is touched.
type fdTmux struct {
	t          *testing.T
	sock, name string
}

func (m *fdTmux) run(args ...string) string {
	m.t.Helper()
	out, err := exec.Command("tmux", append([]string{"-S", m.sock}, args...)...).CombinedOutput()
	if err != nil {
		m.t.Fatalf("tmux %s: %v: %s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

// screen is the pane with its scrollback; visible is what is on screen now.
func (m *fdTmux) screen() string  { return m.run("capture-pane", "-p", "-t", m.name, "-S", "-2000") }
func (m *fdTmux) visible() string { return m.run("capture-pane", "-p", "-t", m.name) }

// typeText types s literally; keys sends key names (Enter, M-Enter, Escape, C-c).
func (m *fdTmux) typeText(s string) { m.run("send-keys", "-t", m.name, "-l", s) }
func (m *fdTmux) keys(k ...string)  { m.run(append([]string{"send-keys", "-t", m.name}, k...)...) }

func (m *fdTmux) sees(want string, d time.Duration) bool {
	return fdWaitUntil(d, func() bool { return strings.Contains(m.screen(), want) })
}

// working reports whether the status line shows the working indicator.
func (m *fdTmux) working() bool { return strings.Contains(m.visible(), "esc to interrupt") }

// quit leaves pi with Ctrl+C twice and waits for the process to end.
func (m *fdTmux) quit() {
	m.t.Helper()
	m.keys("C-c", "C-c")
	if !m.sees("PI-EXITED", 3*time.Second) {
		m.keys("C-d") // a slow machine may take the two presses for two separate first ones
	}
	if !m.sees("PI-EXITED", 10*time.Second) {
		m.t.Fatalf("pi did not quit; pane:\n%s", m.screen())
	}
}

func fdShellQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

// startFDTmux starts the terminal UI in p with prompts on its command line and waits for the
// editor to be drawn. It skips when tmux is missing.
func startFDTmux(t *testing.T, bin string, p *fdProject, prompts ...string) *fdTmux {
	t.Helper()
	if _, err := exec.LookPath("tmux"); err != nil {
		t.Skip("terminal UI cell: tmux is not installed")
	}
	var cmdline []string
	for _, a := range append(append([]string{bin}, p.args()...), prompts...) {
		cmdline = append(cmdline, fdShellQuote(a))
	}
	script := fmt.Sprintf("cd %s || exit 1\nexport PI_HOME=%s HOME=%s\n%s\necho PI-EXITED\nsleep 60\n",
		fdShellQuote(p.dir), fdShellQuote(p.home), fdShellQuote(p.home), strings.Join(cmdline, " "))
	run := filepath.Join(p.dir, "run.sh")
	if err := os.WriteFile(run, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	sockDir, err := os.MkdirTemp("", "pi-fd-tmux-") // short: a socket path has a length limit
	if err != nil {
		t.Fatal(err)
	}
	m := &fdTmux{t: t, sock: filepath.Join(sockDir, "s"), name: "pi"}
	t.Cleanup(func() {
		exec.Command("tmux", "-S", m.sock, "kill-server").Run() // this test's own server only
		os.RemoveAll(sockDir)
	})
	m.run("new-session", "-d", "-s", m.name, "-x", "100", "-y", "30", "bash", "--norc", "--noprofile", run)
	for end := time.Now().Add(10 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		screen := m.screen()
		if strings.Contains(screen, "────") {
			return m
		}
		if strings.Contains(screen, "PI-EXITED") || time.Now().After(end) {
			t.Fatalf("the terminal UI did not start; pane:\n%s", screen)
		}
	}
}

// ── 1. The same inputs through the four front ends ────────────────────────────────────────

type fdInput struct {
	text    string
	image   bool // the message carries fdPNG (RPC only: nothing else can attach an image)
	noReply bool // a script command with no message of its own: no model call follows it
}

func fdSay(text string) fdInput { return fdInput{text: text} }

type fdBusy struct {
	steer, followUp []fdInput
	// rpcQueueCommands sends them with RPC's steer and follow_up commands; otherwise as
	// prompt with streamingBehavior, which is also what the TUI's Enter is in pi.
	rpcQueueCommands bool
}

type fdRow struct {
	name string
	// prompts are sent one after another, each once the previous one is answered: on the
	// command line in print and JSON mode, as RPC prompts, typed into the TUI's editor.
	prompts []fdInput
	// cmdline: the TUI gets the prompts on its command line as well (and RPC has no such thing).
	cmdline bool
	// busy: prompts[0] gets the slow reply; while it streams, these are queued.
	busy    *fdBusy
	replies []string
	want    []string          // the transcript every front end must produce
	files   map[string]string // what the project must hold afterwards (script commands' effects)
	na      map[string]string // front end → why it cannot express this row
	// failsToday lists the cells that fail on the code before the front-door redesign, with
	// the defect: they are the redesign's acceptance and must pass after it.
	failsToday map[string]string
}

var fdFrontEnds = []string{"print", "json", "rpc", "tui"}

const (
	fdNANoImages   = "no way to attach the image alone: @file adds a <file> line to the text, and the TUI pastes from the clipboard (images_test.go and tui/paste_tmux_test.go cover both)"
	fdNANotBusy    = "print and JSON mode take no input while a prompt runs"
	fdNANoCmdline  = "RPC mode takes its prompts on stdin, not on the command line"
	fdFailsSendMsg = "pi.send_user_message on an idle agent only queues a follow-up that nothing runs " +
		"(lua/pi.d.lua documents \"now when idle\")"
	fdFailsCmdline = "command-line prompts 2..n are queued as raw follow-ups (interactive.go sendPrompts): " +
		"no script command, no input hooks, no skill or template"
)

func fdRows() []fdRow {
	return []fdRow{
		{name: "plain text", prompts: []fdInput{fdSay("What is two plus two?")}, replies: []string{"Four."},
			want: []string{"user: What is two plus two?", "assistant: Four."}},
		{name: "skill", prompts: []fdInput{fdSay("/skill:x what is pi?")}, replies: []string{"Agent."},
			want: []string{"user: " + fdSkillText("what is pi?"), "assistant: Agent."}},
		{name: "prompt template", prompts: []fdInput{fdSay("/greet Ada")}, replies: []string{"Fine, thanks."},
			want: []string{"user: Hello Ada, how are you?", "assistant: Fine, thanks."}},
		{name: "user input hook", prompts: []fdInput{fdSay("shout this is loud")}, replies: []string{"Heard."},
			want: []string{"user: THIS IS LOUD!", "assistant: Heard."}},
		{name: "script command", prompts: []fdInput{{text: "/note buy milk", noReply: true}, fdSay("What did I note?")},
			replies: []string{"You noted it."}, files: map[string]string{"note.txt": "buy milk"},
			want: []string{"user: What did I note?", "assistant: You noted it."}},
		{name: "script command sending a user message", prompts: []fdInput{fdSay("/hello world")},
			replies: []string{"Hello back."}, want: []string{"user: hello world", "assistant: Hello back."},
			failsToday: map[string]string{"print": fdFailsSendMsg, "json": fdFailsSendMsg, "rpc": fdFailsSendMsg, "tui": fdFailsSendMsg}},
		{name: "text with an image", prompts: []fdInput{{text: "What is in this picture?", image: true}},
			replies: []string{"A dot."}, want: []string{"user: What is in this picture?\n[image image/png]", "assistant: A dot."},
			na: map[string]string{"print": fdNANoImages, "json": fdNANoImages, "tui": fdNANoImages}},
		{name: "template with an image", prompts: []fdInput{{text: "/greet Ada", image: true}},
			replies: []string{"Fine, thanks."}, want: []string{"user: Hello Ada, how are you?\n[image image/png]", "assistant: Fine, thanks."},
			na: map[string]string{"print": fdNANoImages, "json": fdNANoImages, "tui": fdNANoImages},
			failsToday: map[string]string{"rpc": "an RPC prompt with images goes to the agent as it is, past the " +
				"input hooks (rpc.go startRun)"}},
		{name: "busy: steer and follow-up", prompts: []fdInput{fdSay("Start.")},
			busy:    &fdBusy{steer: []fdInput{fdSay("change course")}, followUp: []fdInput{fdSay("and then this")}, rpcQueueCommands: true},
			replies: []string{fdSlow, "Steered.", "Followed up."},
			want: []string{"user: Start.", "assistant: <slow reply>", "user: change course", "assistant: Steered.",
				"user: and then this", "assistant: Followed up."},
			na: map[string]string{"print": fdNANotBusy, "json": fdNANotBusy}},
		{name: "busy: steer a template, follow up with a skill", prompts: []fdInput{fdSay("Start.")},
			busy:    &fdBusy{steer: []fdInput{fdSay("/greet Bo")}, followUp: []fdInput{fdSay("/skill:x later")}},
			replies: []string{fdSlow, "Steered.", "Followed up."},
			want: []string{"user: Start.", "assistant: <slow reply>", "user: Hello Bo, how are you?", "assistant: Steered.",
				"user: " + fdSkillText("later"), "assistant: Followed up."},
			na: map[string]string{"print": fdNANotBusy, "json": fdNANotBusy},
			failsToday: map[string]string{"tui": "Alt+Enter on a /line is taken as a command and queued as a steer " +
				"(tui/input.go tests for \"/\" before the follow-up key; interactive.go command → send(text, \"\"))"}},
		{name: "busy: a script command runs at once", prompts: []fdInput{fdSay("Start.")},
			busy:    &fdBusy{steer: []fdInput{{text: "/note noted while busy", noReply: true}}},
			replies: []string{fdSlow}, files: map[string]string{"note.txt": "noted while busy"},
			want: []string{"user: Start.", "assistant: <slow reply>"},
			na:   map[string]string{"print": fdNANotBusy, "json": fdNANotBusy}},
		{name: "busy: steer a template with an image", prompts: []fdInput{fdSay("Start.")},
			busy:    &fdBusy{steer: []fdInput{{text: "/greet Bo", image: true}}},
			replies: []string{fdSlow, "Steered."},
			want: []string{"user: Start.", "assistant: <slow reply>", "user: Hello Bo, how are you?\n[image image/png]",
				"assistant: Steered."},
			na: map[string]string{"print": fdNANotBusy, "json": fdNANotBusy, "tui": fdNANoImages},
			failsToday: map[string]string{"rpc": "a steer with images is queued as it is, past the input hooks " +
				"(rpc.go enqueue)"}},
		{name: "second command-line prompt is a template", cmdline: true, prompts: []fdInput{fdSay("Hi."), fdSay("/greet Ada")},
			replies: []string{"Reply one.", "Reply two."},
			want:    []string{"user: Hi.", "assistant: Reply one.", "user: Hello Ada, how are you?", "assistant: Reply two."},
			na:      map[string]string{"rpc": fdNANoCmdline}, failsToday: map[string]string{"tui": fdFailsCmdline}},
		{name: "second command-line prompt is a script command", cmdline: true,
			prompts: []fdInput{fdSay("Hi."), {text: "/note from the command line", noReply: true}},
			replies: []string{"Reply one."}, files: map[string]string{"note.txt": "from the command line"},
			want: []string{"user: Hi.", "assistant: Reply one."},
			na:   map[string]string{"rpc": fdNANoCmdline}, failsToday: map[string]string{"tui": fdFailsCmdline}},
	}
}

// TestFrontDoorTranscripts sends the same inputs through print mode, JSON mode, RPC mode and
// the terminal UI, and checks that each wrote the same transcript (user messages as the model
// saw them, and the replies) to its session file, and had the same effects.
//
// Failed before the front-door redesign (fdRow.failsToday says why):
//   - script command sending a user message: every front end;
//   - template with an image, busy: steer a template with an image: RPC;
//   - busy: steer a template, follow up with a skill: TUI;
//   - second command-line prompt is a template / a script command: TUI.
func TestFrontDoorTranscripts(t *testing.T) {
	bin := buildPi(t)
	for _, row := range fdRows() {
		t.Run(row.name, func(t *testing.T) {
			for _, fe := range fdFrontEnds {
				t.Run(fe, func(t *testing.T) {
					if reason, ok := row.na[fe]; ok {
						t.Skip("n/a: " + reason)
					}
					t.Parallel()
					fdCell(t, bin, row, fe)
				})
			}
		})
	}
}

func fdCell(t *testing.T, bin string, row fdRow, fe string) {
	delay, runes := 0, 0
	if row.busy != nil {
		delay, runes = 25, 4
	}
	p := newFDProject(t, fdScript(delay, runes, row.replies...))
	var diag string
	switch fe {
	case "print", "json":
		diag = fdRunBatch(t, bin, p, row, fe)
	case "rpc":
		diag = fdRunRPC(t, bin, p, row)
	case "tui":
		diag = fdRunTUI(t, bin, p, row)
	}
	prefix := ""
	if why, ok := row.failsToday[fe]; ok {
		prefix = "regression of the front door (" + why + "): "
	}
	got, err := fdTranscript(p)
	if err != nil || !slices.Equal(got, row.want) {
		if err != nil {
			diag = fmt.Sprintf("\nreading the session: %v%s", err, diag)
		}
		t.Errorf("%s%s transcript differs:%s%s", prefix, fe, fdDiff(got, row.want), diag)
	}
	for name, want := range row.files {
		data, err := os.ReadFile(filepath.Join(p.dir, name))
		if err != nil || string(data) != want {
			t.Errorf("%s%s: %s holds %q (%v), want %q%s", prefix, fe, name, data, err, want, diag)
		}
	}
}

// fdRunBatch is print or JSON mode: every prompt on the command line.
func fdRunBatch(t *testing.T, bin string, p *fdProject, row fdRow, fe string) string {
	var args []string
	if fe == "print" {
		args = p.args("-p")
	} else {
		args = p.args("--mode", "json")
	}
	for _, in := range row.prompts {
		args = append(args, in.text)
	}
	cmd := exec.Command(bin, args...)
	cmd.Dir, cmd.Env = p.dir, p.env()
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	done := make(chan error, 1)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			t.Logf("%s mode: %v", fe, err)
		}
	case <-time.After(30 * time.Second):
		cmd.Process.Kill()
		<-done
		t.Errorf("%s mode did not finish within 30s", fe)
	}
	out := stdout.String()
	if len(out) > 2000 {
		out = out[:2000] + "…"
	}
	return fmt.Sprintf("\nstdout:\n%s\nstderr:\n%s", out, stderr.String())
}

// fdRunRPC sends the prompts one by one (and the queued messages of a busy row).
func fdRunRPC(t *testing.T, bin string, p *fdProject, row fdRow) string {
	c, stop := startFDRPC(t, bin, p)
	var problems []string
	send := func(in fdInput, behavior string) {
		cmd := map[string]any{"type": "prompt", "message": in.text}
		switch {
		case behavior != "" && row.busy.rpcQueueCommands && behavior == "steer":
			cmd["type"] = "steer"
		case behavior != "" && row.busy.rpcQueueCommands:
			cmd["type"] = "follow_up"
		case behavior != "":
			cmd["streamingBehavior"] = behavior
		}
		if in.image {
			cmd["images"] = []map[string]any{{"type": "image", "data": fdPNG, "mimeType": "image/png"}}
		}
		if r := c.call(cmd); r["success"] != true {
			problems = append(problems, fmt.Sprintf("%v answered %v", cmd["message"], r))
		}
	}
	wantReplies := 0
	if row.busy != nil {
		from := c.mark()
		send(row.prompts[0], "")
		if _, ok := fdAwait(c, from, 10*time.Second, fdEvent("message_update")); !ok {
			t.Fatalf("the slow reply never started streaming; seen %v", c.types(from))
		}
		for _, in := range row.busy.steer {
			send(in, "steer")
		}
		for _, in := range row.busy.followUp {
			send(in, "followUp")
		}
		wantReplies = fdReplyCount(row)
		if !fdWaitUntil(10*time.Second, func() bool { return fdAssistants(p.sessions) >= wantReplies }) || !fdRPCIdle(c, 10*time.Second) {
			problems = append(problems, fmt.Sprintf("%d of %d replies after 10s", fdAssistants(p.sessions), wantReplies))
		}
	} else {
		for _, in := range row.prompts {
			send(in, "")
			if !in.noReply {
				wantReplies++
			}
			if !fdWaitUntil(10*time.Second, func() bool { return fdAssistants(p.sessions) >= wantReplies }) || !fdRPCIdle(c, 10*time.Second) {
				problems = append(problems, fmt.Sprintf("after %q: %d of %d replies after 10s", in.text, fdAssistants(p.sessions), wantReplies))
			}
		}
	}
	fdWaitFiles(p, row)
	stderr := stop()
	return fmt.Sprintf("%s\nstderr:\n%s", fdProblems(problems), stderr)
}

func fdProblems(p []string) string {
	if len(p) == 0 {
		return ""
	}
	return "\nwhile driving it: " + strings.Join(p, "; ")
}

// fdWaitFiles gives script commands, which run in the background, time to have their effect.
func fdWaitFiles(p *fdProject, row fdRow) {
	for name, want := range row.files {
		fdWaitUntil(10*time.Second, func() bool {
			data, err := os.ReadFile(filepath.Join(p.dir, name))
			return err == nil && string(data) == want
		})
	}
}

// fdReplyCount is how many replies the row's transcript holds.
func fdReplyCount(row fdRow) int {
	n := 0
	for _, w := range row.want {
		if strings.HasPrefix(w, "assistant: ") {
			n++
		}
	}
	return n
}

// fdRunTUI types the prompts into the terminal UI (or, for a command-line row, passes them
// on its command line) and quits once they are answered.
func fdRunTUI(t *testing.T, bin string, p *fdProject, row fdRow) string {
	var problems []string
	var m *fdTmux
	if row.cmdline {
		var args []string
		for _, in := range row.prompts {
			args = append(args, in.text)
		}
		m = startFDTmux(t, bin, p, args...)
	} else {
		m = startFDTmux(t, bin, p)
	}
	settled := func(n int) bool {
		return fdWaitUntil(10*time.Second, func() bool { return fdAssistants(p.sessions) >= n && !m.working() })
	}
	switch {
	case row.cmdline:
		if n := fdReplyCount(row); !settled(n) {
			problems = append(problems, fmt.Sprintf("%d of %d replies after 10s", fdAssistants(p.sessions), n))
		}
	case row.busy != nil:
		m.typeText(row.prompts[0].text)
		m.keys("Enter")
		if !m.sees("SLOW-START", 10*time.Second) {
			t.Fatalf("the slow reply never showed; pane:\n%s", m.screen())
		}
		for _, in := range row.busy.steer {
			m.typeText(in.text)
			m.keys("Enter")
		}
		for _, in := range row.busy.followUp {
			m.typeText(in.text)
			m.keys("M-Enter")
		}
		if n := fdReplyCount(row); !settled(n) {
			problems = append(problems, fmt.Sprintf("%d of %d replies after 10s", fdAssistants(p.sessions), n))
		}
	default:
		n := 0
		for _, in := range row.prompts {
			m.typeText(in.text)
			m.keys("Enter")
			if !in.noReply {
				n++
			}
			if !settled(n) {
				problems = append(problems, fmt.Sprintf("after %q: %d of %d replies after 10s", in.text, fdAssistants(p.sessions), n))
			}
		}
	}
	fdWaitFiles(p, row)
	screen := m.screen()
	m.quit()
	return fmt.Sprintf("%s\npane:\n%s", fdProblems(problems), screen)
}

// ── 2. RPC prompt racing bash ─────────────────────────────────────────────────────────────

// TestFrontDoorBashRace sends an RPC prompt and a bash command back to back, 200 times, so
// that they race, and checks that the agent's context (get_messages) holds every user message
// and every shell run that the session file holds on its current branch, in the same order.
//
// The window of the race is the time the server takes to copy the transcript, so the session
// is started from a file with 10,000 earlier exchanges: that makes the window about a
// millisecond wide. Even rounds write both commands at once; odd rounds send the bash first
// and the prompt after a gap that grows from 0 to 4.9 ms, which moves the start of the run
// across the end of the shell command (about 2 ms).
//
// Failed before the front-door redesign: flushBash (appops.go) replaces the agent's
// messages with a copy taken before a prompt that starts at the same moment appended its user
// message, so that message is in the session file but gone from the context (or the two hold
// the shell run and the prompt in different orders).
func TestFrontDoorBashRace(t *testing.T) {
	const rounds, earlier = 200, 10000
	bin := buildPi(t)
	replies := make([]string, rounds)
	for i := range replies {
		replies[i] = fmt.Sprintf("Reply %d.", i)
	}
	p := newFDProject(t, fdScript(0, 0, replies...))
	c, stop := startFDRPC(t, bin, p, "--session", fdPreload(t, p, earlier))
	start := time.Now()
	for i := range rounds {
		prompt, _ := json.Marshal(map[string]any{"id": fmt.Sprintf("p%d", i), "type": "prompt", "message": fmt.Sprintf("prompt %d", i)})
		bash, _ := json.Marshal(map[string]any{"id": fmt.Sprintf("b%d", i), "type": "bash", "command": fmt.Sprintf("echo %d", i)})
		from := c.mark()
		if i%2 == 0 {
			c.sendRaw(string(prompt) + "\n" + string(bash) + "\n") // one write: both are read at once
		} else {
			c.sendRaw(string(bash) + "\n")
			time.Sleep(time.Duration(i%50) * 100 * time.Microsecond)
			c.sendRaw(string(prompt) + "\n")
		}
		for _, id := range []string{fmt.Sprintf("p%d", i), fmt.Sprintf("b%d", i)} {
			r, ok := fdAwait(c, from, 10*time.Second, fdResponse(id))
			if !ok || r["success"] != true {
				t.Fatalf("round %d: the response to %s: %v (ok %v)", i, id, r, ok)
			}
		}
		if _, ok := fdAwait(c, from, 10*time.Second, fdEvent("agent_end")); !ok {
			t.Fatalf("round %d: no agent_end; seen %v", i, c.types(from))
		}
		if !fdRPCIdle(c, 10*time.Second) {
			t.Fatalf("round %d: still busy 10s after agent_end", i)
		}
	}
	t.Logf("%d rounds in %v", rounds, time.Since(start))
	inContext := fdUserAndBash(c.messages(), p.dir)
	stop()
	file, err := fdMessages(p.sessions)
	if err != nil {
		t.Fatal(err)
	}
	recorded := fdUserAndBash(file, p.dir)
	if len(recorded) != earlier+2*rounds {
		t.Errorf("the session file holds %d user messages and shell runs, want %d", len(recorded), earlier+2*rounds)
	}
	if !slices.Equal(inContext, recorded) {
		i := 0
		for i < len(inContext) && i < len(recorded) && inContext[i] == recorded[i] {
			i++
		}
		t.Fatalf("regression of the front door (flushBash races a starting prompt): "+
			"the agent's context (%d user messages and shell runs) and the session file (%d) part at %d:\ncontext: %q\n   file: %q",
			len(inContext), len(recorded), i, fdWindow(inContext, i), fdWindow(recorded, i))
	}
}

// fdPreload writes a session of n earlier exchanges into p's session directory and returns its
// path.
func fdPreload(t *testing.T, p *fdProject, n int) string {
	t.Helper()
	if err := os.MkdirAll(p.sessions, 0o755); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(p.sessions, "2026-01-01T00-00-00-000Z_0199a8f0-0000-7000-8000-000000000000.jsonl")
	var b bytes.Buffer
	ts := "2026-01-01T00:00:00.000Z"
	ms := int64(1767225600000)
	line := func(v map[string]any) {
		data, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		b.Write(data)
		b.WriteByte('\n')
	}
	line(map[string]any{"type": "session", "version": 3, "id": "0199a8f0-0000-7000-8000-000000000000", "timestamp": ts, "cwd": p.dir})
	parent := "00000000"
	line(map[string]any{"type": "model_change", "id": parent, "parentId": nil, "timestamp": ts, "provider": "faux", "modelId": "faux-1"})
	for i := range n {
		for j, msg := range []map[string]any{
			{"role": "user", "content": fmt.Sprintf("earlier %d", i), "timestamp": ms},
			{"role": "assistant", "content": []map[string]any{{"type": "text", "text": "ok"}}, "api": "faux", "provider": "faux",
				"model": "faux-1", "stopReason": "stop", "timestamp": ms,
				"usage": map[string]any{"input": 1, "output": 1, "cacheRead": 0, "cacheWrite": 0, "totalTokens": 2,
					"cost": map[string]any{"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "total": 0}}},
		} {
			id := fmt.Sprintf("%08x", 2*i+j+1)
			line(map[string]any{"type": "message", "id": id, "parentId": parent, "timestamp": ts, "message": msg})
			parent = id
		}
	}
	if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// fdUserAndBash lists the user messages ("user: text") and shell runs ("bash: command").
func fdUserAndBash(msgs []map[string]any, dir string) []string {
	var out []string
	for _, m := range msgs {
		switch m["role"] {
		case "user":
			out = append(out, "user: "+fdText(m, dir))
		case "bashExecution":
			out = append(out, fmt.Sprintf("bash: %v", m["command"]))
		}
	}
	return out
}

func fdWindow(s []string, i int) []string { return s[max(0, i-2):min(len(s), i+3)] }

// ── 3. Escape aborts a manual /compact in the terminal UI ─────────────────────────────────

// fdLong16 takes 20 s to stream at 16 characters per 50 ms: the summary replies.
var fdLong16 = "LONG-SUMMARY " + strings.Repeat("a summary that takes its time ", 213)

// TestFrontDoorTUIEscapeAbortsCompact makes the compaction's summary reply slow, runs /compact
// in the terminal UI, presses Escape while it shows "Compacting", and checks that the UI is
// idle again within a few seconds, that a new prompt is answered, and that no compaction was
// written to the session.
//
// Failed before the front-door redesign: Escape aborts only the agent's run and a
// shell command (interactive.go OnAbort); the compaction goes on until the summary is done.
func TestFrontDoorTUIEscapeAbortsCompact(t *testing.T) {
	if _, err := exec.LookPath("tmux"); err != nil {
		t.Skip("tmux is not installed")
	}
	bin := buildPi(t)
	// A manual compaction of two exchanges makes two concurrent summary calls (the history,
	// and the start of the turn the cut splits): both get a slow reply.
	p := newFDProject(t, fdScript(50, 16, "Answer one.", "Answer two.", fdLong16, fdLong16, "After the abort.", "After the abort."))
	m := startFDTmux(t, bin, p)
	settled := func(n int) bool {
		return fdWaitUntil(10*time.Second, func() bool { return fdAssistants(p.sessions) >= n && !m.working() })
	}
	for i, q := range []string{"question one", "question two"} {
		m.typeText(q)
		m.keys("Enter")
		if !settled(i + 1) {
			t.Fatalf("%q was not answered; pane:\n%s", q, m.screen())
		}
	}
	m.typeText("/compact ") // the trailing space keeps the completion popup from taking the Enter
	m.keys("Enter")
	if !fdWaitUntil(10*time.Second, func() bool { return strings.Contains(m.visible(), "Compacting") }) {
		t.Fatalf("never saw the Compacting status; pane:\n%s", m.screen())
	}
	m.keys("Escape")
	escaped := time.Now()
	if !fdWaitUntil(3*time.Second, func() bool {
		v := m.visible()
		return !strings.Contains(v, "Compacting") && !strings.Contains(v, "esc to interrupt")
	}) {
		t.Fatalf("regression of the front door (Escape does not abort /compact): "+
			"the UI still works on the compaction %v after Escape; pane:\n%s", time.Since(escaped).Round(time.Millisecond), m.visible())
	}
	m.typeText("still there?")
	m.keys("Enter")
	if !fdWaitUntil(15*time.Second, func() bool {
		msgs, _ := fdMessages(p.sessions)
		n := len(msgs)
		return n >= 2 && msgs[n-1]["role"] == "assistant" && fdText(msgs[n-2], p.dir) == "still there?"
	}) || !settled(3) {
		t.Fatalf("the prompt after the aborted compaction was not answered; pane:\n%s", m.screen())
	}
	m.quit()
	branch, err := fdBranch(p.sessions)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range branch {
		if e["type"] == "compaction" {
			t.Fatalf("the aborted compaction was written to the session: %v", e)
		}
	}
}

// ── 4. RPC abort stops everything in flight ───────────────────────────────────────────────

// fdLong4 takes 25 s to stream at 4 characters per 50 ms: the reply abort interrupts.
var fdLong4 = "LONG-REPLY " + strings.Repeat("words ", 340)

// TestFrontDoorRPCAbortStopsEverything checks that RPC abort ends, within a few seconds, a
// streaming run together with a running bash command, and (second scenario) a compaction
// waiting for a slow summary: agent_end arrives, bash answers cancelled, compact answers with
// an error, and get_state says neither streaming nor compacting.
//
// Failed before the front-door redesign: "run and bash" — abort stops the run but
// not the bash command (rpc.go cmdAbort; only abort_bash reaches it), which answers only when
// sleep 30 is done.
func TestFrontDoorRPCAbortStopsEverything(t *testing.T) {
	bin := buildPi(t)
	t.Run("run and bash", func(t *testing.T) { fdAbortRunAndBash(t, bin) })
	t.Run("compaction", func(t *testing.T) { fdAbortCompaction(t, bin) })
}

// fdAbortFast is how soon after abort everything must have stopped.
const fdAbortFast = 3 * time.Second

func fdAbortRunAndBash(t *testing.T, bin string) {
	const fast = fdAbortFast
	p := newFDProject(t, fdScript(50, 4, fdLong4))
	c, stop := startFDRPC(t, bin, p)
	from := c.mark()
	c.mustCall(map[string]any{"type": "prompt", "message": "talk for a while"})
	if _, ok := fdAwait(c, from, 10*time.Second, fdEvent("message_update")); !ok {
		t.Fatal("the reply never started streaming")
	}
	fdRPCSend(c, map[string]any{"id": "bash-1", "type": "bash", "command": "touch bash.started; sleep 30"})
	if !fdWaitUntil(10*time.Second, func() bool { _, err := os.Stat(filepath.Join(p.dir, "bash.started")); return err == nil }) {
		t.Fatal("the bash command never started")
	}
	fdRPCSend(c, map[string]any{"id": "abort-1", "type": "abort"})
	aborted := time.Now()
	deadline := func() time.Duration { return max(time.Until(aborted.Add(fast)), 0) }
	if r, ok := fdAwait(c, from, deadline(), fdResponse("abort-1")); !ok || r["success"] != true {
		t.Errorf("abort did not answer within %v: %v", fast, r)
	}
	if _, ok := fdAwait(c, from, deadline(), fdEvent("agent_end")); !ok {
		t.Errorf("no agent_end within %v of abort", fast)
	}
	r, ok := fdAwait(c, from, deadline(), fdResponse("bash-1"))
	switch {
	case !ok:
		t.Errorf("regression of the front door (abort does not stop a bash command): "+
			"bash did not answer within %v of abort", fast)
	case r["success"] == true && r.data()["cancelled"] != true:
		t.Errorf("bash answered %v after abort, want it cancelled", r)
	}
	if st := c.state(); st["isStreaming"] != false || st["isCompacting"] != false {
		t.Errorf("get_state after abort: %v", st)
	}
	var reply map[string]any // the interrupted one; a cancelled shell run may follow it
	for _, m := range c.messages() {
		if m["role"] == "assistant" {
			reply = m
		}
	}
	if reply["stopReason"] != "aborted" {
		t.Errorf("the reply after abort: %v", reply)
	}
	stop()
}

func fdAbortCompaction(t *testing.T, bin string) {
	const fast = fdAbortFast
	p := newFDProject(t, fdScript(50, 16, "Answer one.", "Answer two.", fdLong16, fdLong16))
	c, stop := startFDRPC(t, bin, p)
	for _, q := range []string{"question one", "question two"} {
		from := c.mark()
		c.mustCall(map[string]any{"type": "prompt", "message": q})
		if _, ok := fdAwait(c, from, 10*time.Second, fdEvent("agent_end")); !ok || !fdRPCIdle(c, 10*time.Second) {
			t.Fatalf("%q was not answered", q)
		}
	}
	from := c.mark()
	fdRPCSend(c, map[string]any{"id": "compact-1", "type": "compact"})
	if _, ok := fdAwait(c, from, 10*time.Second, fdEvent("compaction_start")); !ok {
		t.Fatalf("no compaction_start; seen %v", c.types(from))
	}
	fdRPCSend(c, map[string]any{"id": "abort-1", "type": "abort"})
	aborted := time.Now()
	deadline := func() time.Duration { return max(time.Until(aborted.Add(fast)), 0) }
	if r, ok := fdAwait(c, from, deadline(), fdResponse("abort-1")); !ok || r["success"] != true {
		t.Errorf("abort did not answer within %v: %v", fast, r)
	}
	r, ok := fdAwait(c, from, deadline(), fdResponse("compact-1"))
	switch {
	case !ok:
		t.Errorf("compact did not answer within %v of abort", fast)
	case r["success"] != false:
		t.Errorf("compact answered %v after abort, want an error", r)
	}
	if end, ok := fdAwait(c, from, deadline(), fdEvent("compaction_end")); !ok || end["aborted"] != true {
		t.Errorf("compaction_end within %v of abort: %v (arrived %v)", fast, end, ok)
	}
	if st := c.state(); st["isStreaming"] != false || st["isCompacting"] != false {
		t.Errorf("get_state after abort: %v", st)
	}
	stop()
	branch, err := fdBranch(p.sessions)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range branch {
		if e["type"] == "compaction" {
			t.Errorf("the aborted compaction was written to the session: %v", e)
		}
	}
}
