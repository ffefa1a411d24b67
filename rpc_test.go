package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"pi/internal/pitest"
	"pi/live"
	"pi/provider"
	"pi/provider/faux"
)

// rpcLine is one decoded stdout line.
type rpcLine map[string]any

func (l rpcLine) data() map[string]any { d, _ := l["data"].(map[string]any); return d }

// rpcClient speaks the protocol to pi, as an editor plug-in would. Every line pi writes is
// kept in history, so a test can look for an event that arrived before the response it
// waited for.
type rpcClient struct {
	t       *testing.T
	in      io.WriteCloser
	lines   chan rpcLine
	history []rpcLine
	nextID  int
}

func newRPCClient(t *testing.T, in io.WriteCloser, out io.Reader) *rpcClient {
	c := &rpcClient{t: t, in: in, lines: make(chan rpcLine, 1<<14)}
	go func() {
		defer close(c.lines)
		br := bufio.NewReader(out)
		for {
			line, err := br.ReadBytes('\n')
			if len(line) > 0 {
				var v rpcLine
				if json.Unmarshal(line, &v) != nil || !bytes.HasSuffix(line, []byte("\n")) {
					v = rpcLine{"type": "<not a JSON line>", "raw": string(line)}
				}
				c.lines <- v
			}
			if err != nil {
				return
			}
		}
	}()
	return c
}

// mark is where the next await may start looking.
func (c *rpcClient) mark() int { return len(c.history) }

// await returns the first line from index from on that matches.
func (c *rpcClient) await(from int, what string, match func(rpcLine) bool) rpcLine {
	c.t.Helper()
	for i := from; i < len(c.history); i++ {
		if match(c.history[i]) {
			return c.history[i]
		}
	}
	timeout := time.After(30 * time.Second)
	for {
		select {
		case l, ok := <-c.lines:
			if !ok {
				c.t.Fatalf("pi's output ended while waiting for %s", what)
			}
			c.history = append(c.history, l)
			if l["type"] == "<not a JSON line>" {
				c.t.Fatalf("stdout carried a line that is not JSON: %q", l["raw"])
			}
			if match(l) {
				return l
			}
		case <-timeout:
			c.t.Fatalf("timed out waiting for %s; seen %v", what, c.types(0))
		}
	}
}

func (c *rpcClient) awaitEvent(from int, typ string) rpcLine {
	c.t.Helper()
	return c.await(from, typ, func(l rpcLine) bool { return l["type"] == typ })
}

func (c *rpcClient) sendRaw(line string) {
	c.t.Helper()
	if _, err := io.WriteString(c.in, line); err != nil {
		c.t.Fatalf("writing to pi: %v", err)
	}
}

// call sends a command with a fresh id and returns its response.
func (c *rpcClient) call(cmd map[string]any) rpcLine {
	c.t.Helper()
	c.nextID++
	id := fmt.Sprintf("req-%d", c.nextID)
	cmd["id"] = id
	b, _ := json.Marshal(cmd)
	from := c.mark()
	c.sendRaw(string(b) + "\n")
	return c.await(from, "the response to "+string(b), func(l rpcLine) bool { return l["type"] == "response" && l["id"] == id })
}

func (c *rpcClient) mustCall(cmd map[string]any) rpcLine {
	c.t.Helper()
	r := c.call(cmd)
	if r["success"] != true || r["command"] != cmd["type"] {
		c.t.Fatalf("%v failed: %v", cmd, r)
	}
	return r
}

// prompt sends a prompt and waits for the end of the run.
func (c *rpcClient) prompt(text string) {
	c.t.Helper()
	from := c.mark()
	c.mustCall(map[string]any{"type": "prompt", "message": text})
	c.awaitEvent(from, "agent_end")
}

func (c *rpcClient) types(from int) []string {
	var out []string
	for _, l := range c.history[from:] {
		out = append(out, fmt.Sprint(l["type"]))
	}
	return out
}

func (c *rpcClient) state() map[string]any {
	c.t.Helper()
	return c.mustCall(map[string]any{"type": "get_state"}).data()
}

func (c *rpcClient) messages() []map[string]any {
	c.t.Helper()
	var out []map[string]any
	for _, m := range c.mustCall(map[string]any{"type": "get_messages"}).data()["messages"].([]any) {
		out = append(out, m.(map[string]any))
	}
	return out
}

func (c *rpcClient) lastText() any {
	c.t.Helper()
	return c.mustCall(map[string]any{"type": "get_last_assistant_text"}).data()["text"]
}

// drain reads pi's output to its end.
func (c *rpcClient) drain() {
	for l := range c.lines {
		c.history = append(c.history, l)
	}
}

func messageRoles(msgs []map[string]any) []string {
	var out []string
	for _, m := range msgs {
		out = append(out, fmt.Sprint(m["role"]))
	}
	return out
}

// userAndAssistantTexts lists "role: text" for the conversation, the context block left out.
func userAndAssistantTexts(msgs []map[string]any) []string {
	var out []string
	for _, m := range msgs {
		var text string
		switch c := m["content"].(type) {
		case string:
			text = c
		case []any:
			for _, b := range c {
				if t, _ := b.(map[string]any)["text"].(string); !strings.HasPrefix(t, "<context>") {
					text += t
				}
			}
		}
		out = append(out, fmt.Sprintf("%s: %s", m["role"], text))
	}
	return out
}

// startPiRPC runs `pi --mode rpc` against a faux script in dir. stop closes stdin and returns
// the exit code and stderr.
func startPiRPC(t *testing.T, bin, dir, script string, args ...string) (c *rpcClient, stop func() (int, string)) {
	t.Helper()
	abs, err := filepath.Abs(filepath.Join("testdata", "faux", script))
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, append([]string{"--mode", "rpc", "--faux-script", abs}, args...)...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "PI_HOME="+filepath.Join(dir, ".pihome"))
	stdin, _ := cmd.StdinPipe()
	stdout, _ := cmd.StdoutPipe()
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	c = newRPCClient(t, stdin, stdout)
	var once sync.Once
	code := -1
	stop = func() (int, string) {
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
			code = cmd.ProcessState.ExitCode()
		})
		return code, stderr.String()
	}
	t.Cleanup(func() { stop() })
	return c, stop
}

func TestRPCBinary(t *testing.T) {
	bin := buildPi(t)
	t.Run("prompt with a tool turn, state, messages, framing and errors", func(t *testing.T) {
		dir := t.TempDir()
		os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("buy milk\n"), 0o644)
		c, stop := startPiRPC(t, bin, dir, "rpc_tool.json")
		rpcToolTurn(t, c)
		rpcFramingAndErrors(t, c)
		if code, stderr := stop(); code != 0 {
			t.Fatalf("exit code %d, stderr %s", code, stderr)
		}
	})
	t.Run("steer, follow-up and abort while streaming", func(t *testing.T) {
		c, stop := startPiRPC(t, bin, t.TempDir(), "rpc_queue.json")
		rpcSteerAndFollowUp(t, c)
		rpcAbort(t, c)
		if code, stderr := stop(); code != 0 {
			t.Fatalf("exit code %d, stderr %s", code, stderr)
		}
	})
	t.Run("a script's pi.confirm answered by the client", func(t *testing.T) {
		dir := t.TempDir()
		os.MkdirAll(filepath.Join(dir, ".pi"), 0o755)
		os.WriteFile(filepath.Join(dir, ".pi", "init.lua"), []byte(askScript), 0o644)
		c, stop := startPiRPC(t, bin, dir, "hello.json", "--trust")
		rpcScriptConfirm(t, c)
		if code, stderr := stop(); code != 0 {
			t.Fatalf("exit code %d, stderr %s", code, stderr)
		}
	})
	t.Run("compact, bash, fork, clone, new and switch session, thinking", func(t *testing.T) {
		c, stop := startPiRPC(t, bin, t.TempDir(), "rpc_session.json")
		rpcCompactAndBash(t, c)
		rpcSessions(t, c)
		if code, stderr := stop(); code != 0 {
			t.Fatalf("exit code %d, stderr %s", code, stderr)
		}
	})
}

// askScript is a project script whose command asks the user before it answers.
const askScript = `
pi.register_command{name = "ask", description = "asks before it answers", run = function(args)
  if pi.confirm("Proceed?", "with " .. args) then
    pi.notify("answer: yes", "info")
  else
    pi.notify("answer: no", "warning")
  end
end}
`

func rpcScriptConfirm(t *testing.T, c *rpcClient) {
	cmds := c.mustCall(map[string]any{"type": "get_commands"}).data()["commands"].([]any)
	if !slices.ContainsFunc(cmds, func(x any) bool {
		m := x.(map[string]any)
		return m["name"] == "ask" && m["description"] == "asks before it answers" && m["source"] == "extension"
	}) {
		t.Fatalf("get_commands lacks the script's command: %v", cmds)
	}
	cases := []struct{ answer, want string }{
		{`"confirmed":true`, "answer: yes"},
		{`"confirmed":false`, "answer: no"},
		{`"cancelled":true`, "answer: no"},
	}
	for _, tc := range cases {
		from := c.mark()
		c.mustCall(map[string]any{"type": "prompt", "message": "/ask the plan"})
		req := c.await(from, "the confirm request", func(l rpcLine) bool { return l["type"] == "extension_ui_request" && l["method"] == "confirm" })
		if req["title"] != "Proceed?" || req["message"] != "with the plan" {
			t.Fatalf("request %v", req)
		}
		c.sendRaw(fmt.Sprintf(`{"type":"extension_ui_response","id":%q,%s}`+"\n", req["id"], tc.answer))
		n := c.await(from, "the notice", func(l rpcLine) bool { return l["method"] == "notify" })
		if n["message"] != tc.want {
			t.Fatalf("answered %s, the script said %v", tc.answer, n)
		}
	}
	if msgs := c.messages(); len(msgs) != 0 {
		t.Fatalf("a script command reached the model: %v", msgs)
	}
}

func rpcToolTurn(t *testing.T, c *rpcClient) {
	from := c.mark()
	c.prompt("what do the notes say?")
	want := []string{"agent_start", "turn_start", "message_start", "message_update", "tool_execution_start",
		"tool_execution_end", "turn_end", "turn_start", "message_update", "agent_end"}
	if !pitest.InOrder(c.types(from), want) {
		t.Fatalf("events %v lack %v in order", c.types(from), want)
	}
	st := c.state()
	model, _ := st["model"].(map[string]any)
	if st["isStreaming"] != false || st["messageCount"] != 4.0 || model["id"] != "faux-1" || st["sessionId"] == "" ||
		st["thinkingLevel"] != "off" || st["steeringMode"] != "one-at-a-time" {
		t.Fatalf("get_state = %v", st)
	}
	msgs := c.messages()
	if got := messageRoles(msgs); !slices.Equal(got, []string{"user", "assistant", "toolResult", "assistant"}) {
		t.Fatalf("roles %v", got)
	}
	if !strings.Contains(fmt.Sprint(msgs[2]["content"]), "buy milk") {
		t.Fatalf("tool result %v", msgs[2])
	}
	if got := c.lastText(); got != "The notes say: buy milk." {
		t.Fatalf("last assistant text %v", got)
	}
	stats := c.mustCall(map[string]any{"type": "get_session_stats"}).data()
	for k, v := range map[string]float64{"userMessages": 1, "assistantMessages": 2, "toolCalls": 1, "toolResults": 1, "totalMessages": 4} {
		if stats[k] != v {
			t.Errorf("stats %s = %v, want %v", k, stats[k], v)
		}
	}
}

func rpcFramingAndErrors(t *testing.T, c *rpcClient) {
	cases := []struct {
		name, line  string
		wantCommand string
		wantID      any
		wantError   string
	}{
		{"malformed JSON", `{"type": "get_state"` + "\n", "parse", nil, "cannot parse"},
		{"not an object", `[1, 2]` + "\n", "parse", nil, "cannot parse"},
		{"no type", `{"id": "t1"}` + "\n", "parse", "t1", "type"},
		{"unknown command", `{"id": "u1", "type": "dance"}` + "\n", "dance", "u1", `unknown command "dance"`},
		{"wrong field type", `{"id": "w1", "type": "bash", "command": 7}` + "\n", "bash", "w1", "command bash"},
		{"missing field", `{"id": "m1", "type": "set_model"}` + "\n", "set_model", "m1", "provider"},
	}
	for _, tc := range cases {
		from := c.mark()
		c.sendRaw(tc.line)
		r := c.await(from, tc.name, func(l rpcLine) bool { return l["type"] == "response" })
		if r["command"] != tc.wantCommand || r["id"] != tc.wantID || r["success"] != false ||
			!strings.Contains(fmt.Sprint(r["error"]), tc.wantError) {
			t.Errorf("%s: response %v", tc.name, r)
		}
	}
	// CRLF line end, and U+2028 inside a string is part of the line, not a line end.
	from := c.mark()
	c.sendRaw("{\"id\":\"n1\",\"type\":\"set_session_name\",\"name\":\"line\u2028separated\"}\r\n")
	if r := c.await(from, "set_session_name", func(l rpcLine) bool { return l["id"] == "n1" }); r["success"] != true {
		t.Fatalf("set_session_name over CRLF: %v", r)
	}
	if st := c.state(); st["sessionName"] != "line\u2028separated" {
		t.Fatalf("session name %q", st["sessionName"])
	}
}

func rpcSteerAndFollowUp(t *testing.T, c *rpcClient) {
	from := c.mark()
	c.mustCall(map[string]any{"type": "prompt", "message": "start"})
	c.awaitEvent(from, "message_update")
	if r := c.call(map[string]any{"type": "prompt", "message": "interrupting"}); r["success"] != false ||
		!strings.Contains(fmt.Sprint(r["error"]), "streamingBehavior") {
		t.Fatalf("a prompt while streaming without streamingBehavior: %v", r)
	}
	c.mustCall(map[string]any{"type": "steer", "message": "change course"})
	c.mustCall(map[string]any{"type": "prompt", "message": "and then this", "streamingBehavior": "followUp"})
	c.await(from, "queue_update with both queued", func(l rpcLine) bool {
		return l["type"] == "queue_update" && fmt.Sprint(l["steering"]) == "[change course]" && fmt.Sprint(l["followUp"]) == "[and then this]"
	})
	if st := c.state(); st["isStreaming"] != true || st["pendingMessageCount"] != 2.0 {
		t.Fatalf("state while streaming: %v", st)
	}
	c.awaitEvent(from, "agent_end")
	got := userAndAssistantTexts(c.messages())
	want := []string{"user: start", "assistant: " + got[1][len("assistant: "):], "user: change course",
		"assistant: Steered.", "user: and then this", "assistant: Followed up."}
	if !slices.Equal(got, want) {
		t.Fatalf("conversation\n%q\nwant\n%q", got, want)
	}
	c.await(from, "the emptied queue", func(l rpcLine) bool {
		return l["type"] == "queue_update" && fmt.Sprint(l["steering"]) == "[]" && fmt.Sprint(l["followUp"]) == "[]"
	})
}

func rpcAbort(t *testing.T, c *rpcClient) {
	from := c.mark()
	c.mustCall(map[string]any{"type": "prompt", "message": "go on for a while"})
	c.awaitEvent(from, "message_update")
	c.mustCall(map[string]any{"type": "abort"})
	c.awaitEvent(from, "agent_end")
	msgs := c.messages()
	if last := msgs[len(msgs)-1]; last["stopReason"] != "aborted" {
		t.Fatalf("last message after abort: %v", last)
	}
	if st := c.state(); st["isStreaming"] != false {
		t.Fatalf("still streaming after abort: %v", st)
	}
}

// rpcCompactAndBash runs on rpc_session.json, whose third and fourth replies are the
// compaction's two model calls: the summary of the first exchange and the summary of the
// start of the turn that the cut splits.
func rpcCompactAndBash(t *testing.T, c *rpcClient) {
	c.prompt("question one")
	c.prompt("question two")
	from := c.mark()
	res := c.mustCall(map[string]any{"type": "compact", "customInstructions": "keep the questions"}).data()
	if !strings.Contains(fmt.Sprint(res["summary"]), "two questions") || res["firstKeptEntryId"] == "" {
		t.Fatalf("compact result %v", res)
	}
	c.awaitEvent(from, "compaction_start")
	if end := c.awaitEvent(from, "compaction_end"); end["reason"] != "manual" || end["aborted"] != false {
		t.Fatalf("compaction_end %v", end)
	}
	if got := messageRoles(c.messages()); got[0] != "compactionSummary" {
		t.Fatalf("after compaction the transcript starts with %v", got)
	}

	bash := c.mustCall(map[string]any{"type": "bash", "command": "echo rpc-bash-output"}).data()
	if bash["output"] != "rpc-bash-output\n" || bash["exitCode"] != 0.0 || bash["cancelled"] != false || bash["truncated"] != false {
		t.Fatalf("bash result %v", bash)
	}
	c.prompt("what did the shell print?")
	msgs := c.messages()
	n := len(msgs)
	if got := messageRoles(msgs[n-3:]); !slices.Equal(got, []string{"bashExecution", "user", "assistant"}) {
		t.Fatalf("the shell command is not in the context before the prompt: %v", messageRoles(msgs))
	}
	file, _ := c.state()["sessionFile"].(string)
	data, err := os.ReadFile(file)
	if err != nil || !bytes.Contains(data, []byte(`"role":"bashExecution"`)) || !bytes.Contains(data, []byte(`"type":"compaction"`)) {
		t.Fatalf("session file %s (%v) lacks the bash execution or the compaction", file, err)
	}
}

func rpcSessions(t *testing.T, c *rpcClient) {
	first, _ := c.state()["sessionFile"].(string)
	forks := c.mustCall(map[string]any{"type": "get_fork_messages"}).data()["messages"].([]any)
	var entryID any
	for _, f := range forks {
		if m := f.(map[string]any); m["text"] == "what did the shell print?" {
			entryID = m["entryId"]
		}
	}
	fork := c.mustCall(map[string]any{"type": "fork", "entryId": entryID}).data()
	if fork["text"] != "what did the shell print?" || fork["cancelled"] != false {
		t.Fatalf("fork %v (fork messages %v)", fork, forks)
	}
	if c.lastText() != "Answer two." {
		t.Fatal("the fork does not end before the chosen message")
	}
	c.prompt("question three")
	forked, _ := c.state()["sessionFile"].(string)
	header, _ := os.ReadFile(forked)
	if forked == first || !bytes.Contains(header, []byte(`"parentSession":`+jsonString(first))) {
		t.Fatalf("forked session %s does not name %s as its parent", forked, first)
	}
	before := c.state()["messageCount"]
	c.mustCall(map[string]any{"type": "clone"})
	if st := c.state(); st["sessionFile"] == forked || st["messageCount"] != before {
		t.Fatalf("clone: %v", st)
	}
	id := c.state()["sessionId"]
	if r := c.mustCall(map[string]any{"type": "new_session"}); r.data()["cancelled"] != false {
		t.Fatalf("new_session %v", r)
	}
	if st := c.state(); st["sessionId"] == id || st["messageCount"] != 0.0 || c.lastText() != nil {
		t.Fatalf("new session: %v", st)
	}
	c.prompt("question four")
	c.mustCall(map[string]any{"type": "switch_session", "sessionPath": first})
	if got := c.lastText(); got != "The shell printed rpc-bash-output." {
		files, _ := filepath.Glob(filepath.Join(filepath.Dir(first), "*"))
		for _, f := range files {
			b, _ := os.ReadFile(f)
			t.Logf("%s:\n%s", f, b)
		}
		t.Fatalf("after switching back to %s the last answer is %v", first, got)
	}
	c.mustCall(map[string]any{"type": "set_thinking_level", "level": "high"})
	if st := c.state(); st["thinkingLevel"] != "off" {
		t.Fatalf("the scripted model has no reasoning, yet thinking is %v", st["thinkingLevel"])
	}
	if r := c.mustCall(map[string]any{"type": "cycle_thinking_level"}); r["data"] != nil {
		t.Fatalf("cycle_thinking_level on a model without reasoning: %v", r)
	}
}

func jsonString(s string) string { b, _ := json.Marshal(s); return string(b) }

// startInProcess serves the protocol on pipes, so a test can reach the server's own methods.
func startInProcess(t *testing.T, ctx context.Context, a *live.Session) (*rpcClient, *rpcServer, func() int) {
	t.Helper()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	s := newRPCServer(a, outW, io.Discard)
	done := make(chan int, 1)
	go func() {
		code := s.serve(ctx, inR)
		outW.Close()
		done <- code
	}()
	c := newRPCClient(t, inW, outR)
	var once sync.Once
	code := -1
	return c, s, func() int {
		once.Do(func() {
			inW.Close()
			c.drain()
			code = <-done
		})
		return code
	}
}

func TestRPCExtensionUI(t *testing.T) {
	a := newOpsApp(t, pitest.FauxModel(false))
	c, s, stop := startInProcess(t, context.Background(), a)
	defer stop()
	ctx := context.Background()
	cases := []struct {
		name   string
		ask    func() (any, error)
		method string
		answer string // the client's extension_ui_response without type and id; "" sends none
		want   any
	}{
		{"confirm yes", func() (any, error) { return s.Confirm(ctx, "Delete?", "It cannot be undone.") },
			"confirm", `"confirmed":true`, true},
		{"confirm dismissed", func() (any, error) { return s.Confirm(ctx, "Delete?", "Sure?") },
			"confirm", `"cancelled":true`, false},
		{"select", func() (any, error) {
			v, ok, err := s.Select(ctx, "Pick", []string{"a", "b"})
			return fmt.Sprintf("%s %v", v, ok), err
		},
			"select", `"value":"b"`, "b true"},
		{"input", func() (any, error) {
			v, ok, err := s.Input(ctx, "Name?", "anon")
			return fmt.Sprintf("%s %v", v, ok), err
		},
			"input", `"value":"Ada"`, "Ada true"},
		{"editor cancelled", func() (any, error) {
			v, ok, err := s.Editor(ctx, "Edit", "draft")
			return fmt.Sprintf("%s %v", v, ok), err
		},
			"editor", `"cancelled":true`, " false"},
		{"timeout", func() (any, error) {
			r, err := s.Ask(ctx, "confirm", map[string]any{"title": "Quick?", "message": "", "timeout": 50})
			return r["cancelled"], err
		}, "confirm", "", true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c.t = t
			from := c.mark()
			got := make(chan any, 1)
			go func() {
				v, err := tc.ask()
				if err != nil {
					v = err
				}
				got <- v
			}()
			req := c.await(from, "an extension_ui_request", func(l rpcLine) bool { return l["type"] == "extension_ui_request" })
			if req["method"] != tc.method || req["id"] == "" {
				t.Fatalf("request %v", req)
			}
			if tc.answer != "" {
				c.sendRaw(fmt.Sprintf(`{"type":"extension_ui_response","id":%q,%s}`+"\n", req["id"], tc.answer))
			}
			select {
			case v := <-got:
				if v != tc.want {
					t.Fatalf("got %v, want %v", v, tc.want)
				}
			case <-time.After(10 * time.Second):
				t.Fatal("the request was never answered")
			}
		})
	}
	c.t = t
	from := c.mark()
	s.Notify("saved", "info")
	s.SetStatus("lint", "3 warnings")
	s.ExtensionError("/p/.pi/init.lua", "tool_call", "boom")
	n := c.await(from, "notify", func(l rpcLine) bool { return l["method"] == "notify" })
	st := c.await(from, "setStatus", func(l rpcLine) bool { return l["method"] == "setStatus" })
	e := c.awaitEvent(from, "extension_error")
	if n["message"] != "saved" || n["notifyType"] != "info" || st["statusKey"] != "lint" || st["statusText"] != "3 warnings" ||
		e["event"] != "tool_call" || e["error"] != "boom" || e["extensionPath"] != "/p/.pi/init.lua" {
		t.Fatalf("notices %v %v %v", n, st, e)
	}
	// The session still answers commands after all that.
	if st := c.state(); st["isStreaming"] != false {
		t.Fatalf("state %v", st)
	}
	// A question still open when the client goes away is cancelled, not left hanging.
	open := make(chan bool, 1)
	go func() { yes, _ := s.Confirm(ctx, "Still there?", ""); open <- yes }()
	c.await(c.mark(), "the last request", func(l rpcLine) bool { return l["title"] == "Still there?" })
	if code := stop(); code != 0 {
		t.Fatalf("exit code %d", code)
	}
	select {
	case yes := <-open:
		if yes {
			t.Fatal("an unanswered confirm said yes")
		}
	case <-time.After(10 * time.Second):
		t.Fatal("an open request outlived the session")
	}
}

func TestRPCThinkingOnAReasoningModel(t *testing.T) {
	a := newOpsApp(t, pitest.FauxModel(true))
	c, _, stop := startInProcess(t, context.Background(), a)
	defer stop()
	c.mustCall(map[string]any{"type": "set_thinking_level", "level": "high"})
	if st := c.state(); st["thinkingLevel"] != "high" {
		t.Fatalf("thinking %v", st["thinkingLevel"])
	}
	for _, want := range []string{"max", "off", "minimal"} { // max, the model's highest, is always in the cycle
		if got := c.mustCall(map[string]any{"type": "cycle_thinking_level"}).data()["level"]; got != want {
			t.Fatalf("cycled to %v, want %s", got, want)
		}
	}
	levels := c.mustCall(map[string]any{"type": "get_available_thinking_levels"}).data()["levels"]
	if fmt.Sprint(levels) != "[off minimal low medium high xhigh max]" {
		t.Fatalf("levels %v", levels)
	}
	if r := c.call(map[string]any{"type": "set_thinking_level", "level": "lots"}); r["success"] != false {
		t.Fatalf("an unknown level was accepted: %v", r)
	}
}

func TestRPCBashReachesTheNextRequest(t *testing.T) {
	var mu sync.Mutex
	var sent []provider.Message
	a := newOpsApp(t, pitest.FauxModel(false), faux.Reply(func(req *provider.Request) provider.Message {
		mu.Lock()
		sent = req.Messages
		mu.Unlock()
		return faux.Text("seen")
	}))
	c, _, stop := startInProcess(t, context.Background(), a)
	defer stop()
	c.mustCall(map[string]any{"type": "bash", "command": "echo hidden-detail", "excludeFromContext": true})
	c.mustCall(map[string]any{"type": "bash", "command": "printf 'visible-detail'; exit 2"})
	c.prompt("what happened?")
	mu.Lock()
	defer mu.Unlock()
	var all strings.Builder
	for i := range sent {
		all.WriteString(sent[i].TextContent())
	}
	if !strings.Contains(all.String(), "visible-detail") || !strings.Contains(all.String(), "status 2") ||
		strings.Contains(all.String(), "hidden-detail") {
		t.Fatalf("the model was sent:\n%s", all.String())
	}
}

// TestRPCEndOfInputFinishesWhatIsInFlight closes stdin right after a command that takes a
// while: the prompt's run, the bash command and the compaction run to their end and their
// responses and events are written before pi stops, as a prompt's run does in pi.
func TestRPCEndOfInputFinishesWhatIsInFlight(t *testing.T) {
	slowly := func(text string) *faux.Provider {
		p := faux.New(faux.Text(text), faux.Text(text), faux.Text("The summary."), faux.Text("The summary."))
		p.ChunkDelay, p.ChunkRunes = 10*time.Millisecond, 4
		return p
	}
	cases := []struct {
		name    string
		prepare func(c *rpcClient) // what goes on before the command under test
		command map[string]any
		check   func(t *testing.T, c *rpcClient, a *live.Session)
	}{
		{"prompt", nil, map[string]any{"type": "prompt", "message": "talk"}, func(t *testing.T, c *rpcClient, a *live.Session) {
			c.awaitEvent(0, "agent_end")
			if last := provider.LastAssistant(a.Agent().MessagesView()); last.StopReason == provider.StopAborted || last.TextContent() != strings.Repeat("slow words ", 20) {
				t.Fatalf("the reply after the end of input: %q (%v)", last.TextContent(), last.StopReason)
			}
		}},
		{"bash", nil, map[string]any{"type": "bash", "command": "sleep 0.3; echo finished-after-eof"}, func(t *testing.T, c *rpcClient, _ *live.Session) {
			r := c.await(0, "the bash response", func(l rpcLine) bool { return l["command"] == "bash" })
			if r["success"] != true || r.data()["output"] != "finished-after-eof\n" || r.data()["cancelled"] != false {
				t.Fatalf("bash response after the end of input: %v", r)
			}
		}},
		{"compact", func(c *rpcClient) { c.prompt("talk"); c.prompt("more") }, map[string]any{"type": "compact"}, func(t *testing.T, c *rpcClient, _ *live.Session) {
			r := c.await(0, "the compact response", func(l rpcLine) bool { return l["command"] == "compact" })
			if r["success"] != true || r.data()["summary"] == nil {
				t.Fatalf("compact response after the end of input: %v", r)
			}
			if end := c.awaitEvent(0, "compaction_end"); end["aborted"] != false {
				t.Fatalf("compaction_end %v", end)
			}
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			a := newOpsApp(t, pitest.FauxModel(false))
			a.Agent().SetProvider(slowly(strings.Repeat("slow words ", 20)), pitest.FauxModel(false))
			c, _, stop := startInProcess(t, context.Background(), a)
			if tc.prepare != nil {
				tc.prepare(c)
			}
			b, _ := json.Marshal(tc.command)
			c.sendRaw(string(b) + "\n")
			if code := stop(); code != 0 {
				t.Fatalf("exit code %d", code)
			}
			tc.check(t, c, a)
			if a.Busy() {
				t.Fatal("work goes on after pi's RPC session ended")
			}
		})
	}
}

// TestRPCSignalAbortsTheRun: a termination signal (ctx) stops the run in flight, at once.
func TestRPCSignalAbortsTheRun(t *testing.T) {
	p := faux.New(faux.Text(strings.Repeat("slow words ", 200)))
	p.ChunkDelay, p.ChunkRunes = 20*time.Millisecond, 2
	a := newOpsApp(t, pitest.FauxModel(false))
	a.Agent().SetProvider(p, pitest.FauxModel(false))
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	c, _, stop := startInProcess(t, ctx, a)
	from := c.mark()
	c.mustCall(map[string]any{"type": "prompt", "message": "talk"})
	c.awaitEvent(from, "message_update")
	cancel()
	start := time.Now()
	if code := stop(); code != 0 || time.Since(start) > 5*time.Second {
		t.Fatalf("exit code %d after %v", code, time.Since(start))
	}
	if a.Agent().IsRunning() {
		t.Fatal("the run goes on after the session ended")
	}
	msgs := a.Agent().State().Messages
	if last := msgs[len(msgs)-1]; last.StopReason != provider.StopAborted {
		t.Fatalf("last message %v", last.StopReason)
	}
}

// TestRPCPromptIsAnsweredBeforeItsRunsEvents: the response to a prompt comes before the
// run's agent_start, every time, as docs/rpc.md's worked example shows.
func TestRPCPromptIsAnsweredBeforeItsRunsEvents(t *testing.T) {
	const rounds = 20
	steps := make([]faux.Step, rounds)
	for i := range steps {
		steps[i] = faux.Text("quick")
	}
	a := newOpsApp(t, pitest.FauxModel(false), steps...)
	c, _, stop := startInProcess(t, context.Background(), a)
	defer stop()
	for round := range rounds {
		from := c.mark()
		c.prompt(fmt.Sprintf("round %d", round))
		if got := c.types(from); len(got) < 2 || got[0] != "response" || got[1] != "agent_start" {
			t.Fatalf("round %d: pi sent %v", round, got)
		}
	}
}

// TestRPCCommandsWhileStreaming sends the commands a client may send at any time while a reply
// streams; under -race it checks that none of them races the run.
func TestRPCCommandsWhileStreaming(t *testing.T) {
	p := faux.New(faux.Text(strings.Repeat("slow words ", 100)))
	p.ChunkDelay, p.ChunkRunes = 5*time.Millisecond, 4
	a := newOpsApp(t, pitest.FauxModel(true))
	a.Agent().SetProvider(p, pitest.FauxModel(true))
	c, _, stop := startInProcess(t, context.Background(), a)
	defer stop()
	from := c.mark()
	c.mustCall(map[string]any{"type": "prompt", "message": "talk"})
	c.awaitEvent(from, "message_update")
	for _, cmd := range []map[string]any{
		{"type": "set_auto_compaction", "enabled": false},
		{"type": "set_auto_retry", "enabled": false},
		{"type": "set_steering_mode", "mode": "all"},
		{"type": "set_follow_up_mode", "mode": "all"},
		{"type": "set_thinking_level", "level": "low"},
		{"type": "cycle_thinking_level"},
		{"type": "get_state"},
		{"type": "get_messages"},
		{"type": "get_session_stats"},
		{"type": "get_fork_messages"},
		{"type": "get_last_assistant_text"},
		{"type": "set_session_name", "name": "busy"},
		{"type": "export_html", "outputPath": filepath.Join(t.TempDir(), "busy.html")},
		{"type": "abort_retry"},
	} {
		c.mustCall(cmd)
	}
	c.mustCall(map[string]any{"type": "abort"})
	if st := c.state(); st["isStreaming"] != false || st["autoCompactionEnabled"] != false ||
		st["steeringMode"] != "all" || st["thinkingLevel"] != "medium" {
		t.Fatalf("state after the run: %v", st)
	}
}

// TestRPCBashBackToBack sends two bash commands without waiting: the first runs, the second
// is refused, ten times out of ten.
func TestRPCBashBackToBack(t *testing.T) {
	a := newOpsApp(t, pitest.FauxModel(false))
	c, _, stop := startInProcess(t, context.Background(), a)
	defer stop()
	for round := range 10 {
		from := c.mark()
		first, second := fmt.Sprintf("first-%d", round), fmt.Sprintf("second-%d", round)
		c.sendRaw(`{"type":"bash","id":"` + first + `","command":"sleep 0.05; echo one"}` + "\n" +
			`{"type":"bash","id":"` + second + `","command":"echo two"}` + "\n")
		r1 := c.await(from, first, func(l rpcLine) bool { return l["id"] == first })
		r2 := c.await(from, second, func(l rpcLine) bool { return l["id"] == second })
		if r1["success"] != true || r1.data()["output"] != "one\n" || r2["success"] != false {
			t.Fatalf("round %d: first %v, second %v", round, r1, r2)
		}
	}
}

// TestRPCBoundsWhatItHoldsAndEchoes: an over-long command line is dropped with an error and
// the session goes on; a response echoes at most a bounded id and command name.
func TestRPCBoundsWhatItHoldsAndEchoes(t *testing.T) {
	a := newOpsApp(t, pitest.FauxModel(false))
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	s := newRPCServer(a, outW, io.Discard)
	s.maxLine = 4096
	done := make(chan struct{})
	go func() { s.serve(context.Background(), inR); outW.Close(); close(done) }()
	c := newRPCClient(t, inW, outR)
	defer func() { inW.Close(); c.drain(); <-done }()

	from := c.mark()
	c.sendRaw(`{"type":"get_state","pad":"` + strings.Repeat("x", 10000) + `"}` + "\n")
	if r := c.await(from, "the dropped line's error", func(l rpcLine) bool { return l["command"] == "parse" }); !strings.Contains(fmt.Sprint(r["error"]), "longer than 4096 bytes") {
		t.Fatalf("over-long line: %v", r)
	}
	if r := c.call(map[string]any{"type": "get_state"}); r["success"] != true {
		t.Fatalf("after a dropped line get_state fails: %v", r)
	}
	long := strings.Repeat("y", 3000)
	r := c.call(map[string]any{"type": long})
	if cmd := fmt.Sprint(r["command"]); len(cmd) > maxEchoedName+len("…") || len(fmt.Sprint(r["error"])) > 200 {
		t.Fatalf("unknown command echoed %d bytes of name, %d of error", len(cmd), len(fmt.Sprint(r["error"])))
	}
	from = c.mark()
	c.sendRaw(`{"type":"get_state","id":"` + strings.Repeat("i", 2000) + `"}` + "\n")
	r = c.await(from, "the long id's response", func(l rpcLine) bool { return l["type"] == "response" })
	if r["id"] != nil || !strings.Contains(fmt.Sprint(r["error"]), "ids of up to") {
		t.Fatalf("a 2000-byte id: %v", r)
	}
}
