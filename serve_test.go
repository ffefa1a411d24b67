package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"pi/internal/testwait"
	"pi/server"
)

// piClientDir is where CI installs upstream's published client (.ci/run).
func piClientDir(t *testing.T) string {
	t.Helper()
	dir := os.Getenv("PI_CLIENT_DIR")
	if dir == "" {
		home, _ := os.UserHomeDir()
		dir = filepath.Join(home, ".cache", "pi-ci", "npm-pi-client")
	}
	if _, err := exec.LookPath("node"); err != nil {
		t.Skip("node is not installed; .ci/run installs it with @earendil-works/pi-client@0.84.4")
	}
	if _, err := os.Stat(filepath.Join(dir, "node_modules", "@earendil-works", "pi-client", "package.json")); err != nil {
		t.Skipf("@earendil-works/pi-client is not installed in %s (npm install @earendil-works/pi-client@0.84.4 there, or set PI_CLIENT_DIR)", dir)
	}
	return dir
}

// startServe runs `pi serve` on a socket of its own and stops it (by its PID) at the end.
func startServe(t *testing.T, bin, dir string, args ...string) string {
	t.Helper()
	sock, _ := startServeProc(t, bin, dir, args...)
	return sock
}

// startServeProc is startServe that also hands back the process.
// dialServed connects to the pi serve on sock, closed at the test's end, with a context that
// bounds the test's requests.
func dialServed(t *testing.T, sock string) (*server.Client, context.Context) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	t.Cleanup(cancel)
	c, err := server.Dial(ctx, sock)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c, ctx
}

func startServeProc(t *testing.T, bin, dir string, args ...string) (string, *exec.Cmd) {
	t.Helper()
	sock := filepath.Join(dir, "run", "pi.sock")
	cmd := exec.Command(bin, append([]string{"serve", "--socket", sock, "--no-extensions"}, args...)...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "PI_HOME="+filepath.Join(dir, ".pihome"))
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cmd.Process.Signal(os.Interrupt)
		done := make(chan error, 1)
		go func() { done <- cmd.Wait() }()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			cmd.Process.Kill()
			t.Errorf("pi serve did not stop on SIGINT; stderr:\n%s", stderr.String())
		}
	})
	for i := 0; i < 200; i++ {
		if serving(sock) {
			return sock, cmd
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatalf("pi serve did not create %s; stderr:\n%s", sock, stderr.String())
	return "", nil
}

// serving tells whether something answers on the unix socket at path (a stale socket file
// left by a killed server does not).
func serving(path string) bool {
	c, err := net.Dial("unix", path)
	if err == nil {
		c.Close()
	}
	return err == nil
}

// Upstream's published client, unchanged, drives our daemon: hello, list, create, prompt,
// steer and abort while a reply streams, a second client, detach, and a session re-opened
// from its file. The client checks every message against its own schemas.
func TestUpstreamClientDrivesPiServe(t *testing.T) {
	clientDir := piClientDir(t)
	bin := buildPi(t)
	dir := shortTempDir(t)
	script, _ := filepath.Abs("testdata/server/script.json")
	sock := startServe(t, bin, dir, "--faux-script", script)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	e2e, _ := filepath.Abs("testdata/server/e2e.mjs")
	cmd := exec.CommandContext(ctx, "node", e2e, clientDir, sock)
	cmd.Dir = dir
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("the upstream client failed: %v\n%s", err, stderrOf(err))
	}
	var got struct {
		Events, Progress                       map[string]int
		Listed                                 int
		FirstReply, SharedTexts, ReopenedTexts []string
		Tool                                   []string
		QueuedSteerCount                       int
		AbortedReply                           string
		Revision, ReopenedRevision             int
		ListedAfter                            bool
	}
	if err := json.Unmarshal(out, &got); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	first := []string{"user:hello?", "tool:hi from a tool\n", "assistant:Hello from the scripted model."}
	checks := []struct {
		name string
		ok   bool
	}{
		{"every event type arrived", got.Events["server_snapshot"] > 0 && got.Events["session_snapshot"] > 0},
		{"every progress type arrived", got.Progress["item_started"] > 0 && got.Progress["assistant_delta"] > 10 &&
			got.Progress["item_updated"] > 0 && got.Progress["item_finished"] > 0},
		{"the first reply", reflect.DeepEqual(got.FirstReply, first)},
		{"the tool call", reflect.DeepEqual(got.Tool, []string{"bash:complete:hi from a tool"})},
		{"the steer was queued", got.QueuedSteerCount == 1},
		{"the long reply was aborted", got.AbortedReply == "aborted"},
		{"a second client sees the transcript", reflect.DeepEqual(got.SharedTexts, first[:2])},
		{"re-opened from the file", reflect.DeepEqual(got.ReopenedTexts, first[:2])},
		{"revisions go on after a re-open", got.ReopenedRevision > got.Revision},
		{"the session is listed", got.ListedAfter},
	}
	for _, c := range checks {
		if !c.ok {
			t.Errorf("%s: %s", c.name, out)
		}
	}
}

func stderrOf(err error) string {
	if ee, ok := err.(*exec.ExitError); ok {
		return string(ee.Stderr)
	}
	return ""
}

// shortTempDir keeps socket paths under the 107 bytes a unix socket address holds.
func shortTempDir(t *testing.T) string {
	t.Helper()
	dir, err := os.MkdirTemp("", "pisv")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	return dir
}

// The daemon holds a session's lock: `pi -c` on the same session refuses clearly, and `pi
// serve --status` and `--stop` work on the socket.
func TestServeHoldsTheSessionLock(t *testing.T) {
	bin := buildPi(t)
	dir := shortTempDir(t)
	script, _ := filepath.Abs("testdata/server/short.json")
	sock := startServe(t, bin, dir, "--faux-script", script)
	c, ctx := dialServed(t, sock)
	res, err := c.Request(ctx, map[string]any{"command": "create"})
	if err != nil {
		t.Fatal(err)
	}
	id := res["session"].(map[string]any)["id"].(string)
	if _, err := c.Request(ctx, map[string]any{"command": "prompt", "sessionId": id, "text": "hello?"}); err != nil {
		t.Fatal(err)
	}
	r := runPi(t, bin, dir, "--faux-script", script, "--no-extensions", "-c", "-p", "again")
	if r.code == 0 || !strings.Contains(r.stderr, "in use by another pi process") {
		t.Errorf("pi -c on a served session: code %d, stderr %q", r.code, r.stderr)
	}
	if r := runPi(t, bin, dir, "-p", "--connect", sock, "hello?"); r.code != 0 || r.stdout != "Hello from the scripted model.\n" {
		t.Errorf("pi -p --connect: code %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
	}
	if r := runPi(t, bin, dir, "-p", "--connect", sock, "--session", id, "more?"); r.code != 0 || r.stdout != "A second reply.\n" {
		t.Errorf("pi -p --connect --session: code %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
	}
	status := exec.Command(bin, "serve", "--socket", sock, "--status")
	out, err := status.CombinedOutput()
	if err != nil || !strings.Contains(string(out), id) || !strings.Contains(string(out), "1 client(s)") {
		t.Errorf("pi serve --status: %v\n%s", err, out)
	}
	if out, err := exec.Command(bin, "serve", "--socket", sock, "--stop").CombinedOutput(); err != nil {
		t.Errorf("pi serve --stop: %v\n%s", err, out)
	}
	if _, err := os.Stat(sock); !os.IsNotExist(err) {
		t.Errorf("the socket is still there after --stop: %v", err)
	}
}

// `pi --mode rpc --connect` bridges pi's RPC protocol to a served session: a prompt's events
// come back as agent events, get_messages reads the transcript, a command protocol v1 cannot
// carry is refused by name.
func TestRPCBridgeToPiServe(t *testing.T) {
	bin := buildPi(t)
	dir := shortTempDir(t)
	script, _ := filepath.Abs("testdata/server/short.json")
	sock := startServe(t, bin, dir, "--faux-script", script)
	cmd := exec.Command(bin, "--mode", "rpc", "--connect", sock)
	cmd.Dir = dir
	stdin, _ := cmd.StdinPipe()
	stdout, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	stdin.Write([]byte(`{"type":"prompt","id":"p","message":"hi"}` + "\n"))
	dec := json.NewDecoder(stdout)
	var types []string
	for {
		var m map[string]any
		if err := dec.Decode(&m); err != nil {
			t.Fatalf("reading the bridge after %v: %v", types, err)
		}
		types = append(types, m["type"].(string))
		if m["type"] == "agent_end" {
			break
		}
	}
	for _, want := range []string{"agent_start", "response", "message_start", "message_update", "message_end"} {
		if !slices.Contains(types, want) {
			t.Errorf("no %s among %v", want, types)
		}
	}
	stdin.Write([]byte(`{"type":"get_messages","id":"m"}` + "\n" + `{"type":"compact","id":"c"}` + "\n"))
	answers := map[string]map[string]any{}
	for len(answers) < 2 {
		var m map[string]any
		if err := dec.Decode(&m); err != nil {
			t.Fatal(err)
		}
		if id, _ := m["id"].(string); m["type"] == "response" {
			answers[id] = m
		}
	}
	msgs, _ := answers["m"]["data"].(map[string]any)["messages"].([]any)
	if len(msgs) != 2 || msgs[1].(map[string]any)["role"] != "assistant" {
		t.Errorf("get_messages: %v", answers["m"])
	}
	if answers["c"]["success"] != true { // through pi_rpc
		t.Errorf("compact: %v", answers["c"])
	}
	stdin.Close()
	if err := cmd.Wait(); err != nil {
		t.Errorf("the bridge at the end of its input: %v", err)
	}
}

// `pi attach` in tmux: start a run, detach with Ctrl+D, re-attach from a second window, see
// the run go on there and steer it.
func TestAttachDetachReattachInTmux(t *testing.T) {
	long := strings.Repeat("alpha ", 150) + "MIDDLE " + strings.Repeat("beta ", 150) + "LAST"
	k := startAttachScript(t, "one", map[string]any{"chunkDelayMs": 25, "chunkRunes": 6,
		"replies": textReplies(long, "Steered reply.")})
	first := k.fdTmux
	first.typeText("go")
	first.keys("Enter")
	if !first.sees("alpha alpha", 10*time.Second) {
		t.Fatalf("the run did not stream; pane:\n%s", first.screen())
	}
	first.keys("C-d")
	if !first.sees("detached from", 10*time.Second) {
		t.Fatalf("Ctrl+D did not detach; pane:\n%s", first.screen())
	}
	second := k.window("two")
	if !second.sees("MIDDLE", 20*time.Second) {
		t.Fatalf("the second window does not see the run go on; pane:\n%s", second.screen())
	}
	if !second.working() {
		t.Fatalf("the run ended before it could be steered; pane:\n%s", second.screen())
	}
	second.typeText("now steer")
	second.keys("Enter")
	if !second.sees("Steered reply.", 30*time.Second) {
		t.Fatalf("the steer was not answered; pane:\n%s", second.screen())
	}
	if !strings.Contains(second.screen(), "LAST") {
		t.Errorf("the first reply did not finish on the second screen; pane:\n%s", second.screen())
	}
}

// rpcPeer drives `pi --mode rpc --connect` line by line.
type rpcPeer struct {
	t      *testing.T
	stdin  io.Writer
	dec    *json.Decoder
	events []map[string]any // every line read that was not a response
}

// call sends one command and reads until its response.
func (p *rpcPeer) call(line string) map[string]any {
	p.t.Helper()
	var head struct{ ID string }
	json.Unmarshal([]byte(line), &head)
	p.stdin.Write([]byte(line + "\n"))
	for {
		m := p.next()
		if m["type"] == "response" && m["id"] == head.ID {
			return m
		}
	}
}

func (p *rpcPeer) next() map[string]any {
	p.t.Helper()
	var m map[string]any
	if err := p.dec.Decode(&m); err != nil {
		p.t.Fatalf("reading the bridge: %v", err)
	}
	if m["type"] != "response" {
		p.events = append(p.events, m)
	}
	return m
}

// until reads events until one of type typ; it returns that event.
func (p *rpcPeer) until(typ string) map[string]any {
	p.t.Helper()
	for _, m := range p.events {
		if m["type"] == typ {
			p.events = nil
			return m
		}
	}
	for {
		if m := p.next(); m["type"] == typ {
			p.events = nil
			return m
		}
	}
}

func (p *rpcPeer) ok(line string) map[string]any {
	p.t.Helper()
	r := p.call(line)
	if r["success"] != true {
		p.t.Fatalf("%s: %v", line, r)
	}
	data, _ := r["data"].(map[string]any)
	return data
}

// Every RPC command of pi's that v1 has no room for goes through the bridge as pi_rpc, and
// the events v1 has no room for come back.
func TestRPCBridgeExtensions(t *testing.T) {
	bin := buildPi(t)
	dir := shortTempDir(t)
	long := strings.Repeat("streaming on ", 80)
	text := func(s string) map[string]any {
		return map[string]any{"content": []any{map[string]any{"type": "text", "text": s}}}
	}
	replies, _ := json.Marshal(map[string]any{"chunkDelayMs": 3, "chunkRunes": 4, "replies": []any{
		map[string]any{"stopReason": "toolUse", "content": []any{map[string]any{"type": "toolCall", "id": "c1", "name": "bash",
			"arguments": map[string]any{"command": "echo first; sleep 0.3; echo second"}}}},
		text("The tool ran."), text(long), text("After the follow-up."), text("## Goal\nA summary."),
	}})
	script := filepath.Join(dir, "script.json")
	os.WriteFile(script, replies, 0o600)
	sock := startServe(t, bin, dir, "--faux-script", script)
	cmd := exec.Command(bin, "--mode", "rpc", "--connect", sock)
	cmd.Dir = dir
	stdin, _ := cmd.StdinPipe()
	stdout, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	p := &rpcPeer{t: t, stdin: stdin, dec: json.NewDecoder(stdout)}

	p.ok(`{"type":"prompt","id":"p1","message":"run the tool"}`)
	p.until("turn_start")
	if up := p.until("tool_execution_update"); up["toolCallId"] != "c1" {
		t.Errorf("tool_execution_update: %v", up)
	}
	p.until("turn_end")
	p.until("agent_end")

	p.ok(`{"type":"set_steering_mode","id":"s1","mode":"all"}`)
	p.ok(`{"type":"set_follow_up_mode","id":"s2","mode":"all"}`)
	if st := p.ok(`{"type":"get_state","id":"g1"}`); st["steeringMode"] != "all" || st["followUpMode"] != "all" {
		t.Errorf("get_state after the queue modes: %v", st)
	}

	p.ok(`{"type":"prompt","id":"p2","message":"stream a while"}`)
	p.until("message_update")
	p.ok(`{"type":"prompt","id":"p3","message":"and then this","streamingBehavior":"followUp"}`)
	if q := p.until("queue_update"); fmt.Sprint(q["followUp"]) != "[and then this]" {
		t.Errorf("queue_update: %v", q)
	}
	p.ok(`{"type":"follow_up","id":"f1","message":"also this"}`)
	if q := p.until("queue_update"); fmt.Sprint(q["followUp"]) != "[and then this also this]" {
		t.Errorf("queue_update after follow_up: %v", q)
	}
	p.until("agent_end")
	if last := p.ok(`{"type":"get_last_assistant_text","id":"l1"}`); last["text"] != "After the follow-up." {
		t.Errorf("the follow-up's reply: %v", last)
	}

	if out := p.ok(`{"type":"bash","id":"b1","command":"echo from the bridge"}`); !strings.Contains(fmt.Sprint(out["output"]), "from the bridge") {
		t.Errorf("bash: %v", out)
	}
	html := filepath.Join(dir, "out.html")
	if out := p.ok(`{"type":"export_html","id":"e1","outputPath":"` + html + `"}`); out["path"] != html {
		t.Errorf("export_html: %v", out)
	}
	if _, err := os.Stat(html); err != nil {
		t.Errorf("export_html wrote nothing: %v", err)
	}

	tree := p.ok(`{"type":"get_tree","id":"t1"}`)
	entries, _ := tree["entries"].([]any)
	var users []string
	for _, e := range entries {
		if e := e.(map[string]any); e["role"] == "user" {
			users = append(users, e["id"].(string))
		}
	}
	if len(users) < 2 {
		t.Fatalf("get_tree: %v", tree)
	}
	if nav := p.ok(`{"type":"navigate_tree","id":"n1","targetId":"` + users[1] + `"}`); nav["editorText"] != "stream a while" {
		t.Errorf("navigate_tree: %v", nav)
	}
	p.ok(`{"type":"navigate_tree","id":"n2","targetId":"` + users[len(users)-1] + `"}`)

	if c := p.ok(`{"type":"compact","id":"c1"}`); !strings.Contains(fmt.Sprint(c["summary"]), "A summary.") {
		t.Errorf("compact: %v", c)
	}

	before := p.ok(`{"type":"get_state","id":"g2"}`)["sessionId"]
	if f := p.ok(`{"type":"fork","id":"k1","entryId":"` + users[1] + `"}`); f["text"] != "stream a while" {
		t.Errorf("fork: %v", f)
	}
	after := p.ok(`{"type":"get_state","id":"g3"}`)
	if after["sessionId"] == before || after["messageCount"] != float64(4) {
		t.Errorf("after the fork the bridge is on %v (was %v)", after, before)
	}
	if msgs := p.ok(`{"type":"get_messages","id":"m1"}`)["messages"].([]any); len(msgs) != 4 { // the first prompt, its tool call, result and reply
		t.Errorf("get_messages of the fork: %d messages", len(msgs))
	}

	if r := p.call(`{"type":"frobnicate","id":"x1"}`); r["success"] != false || !strings.Contains(fmt.Sprint(r["error"]), "frobnicate") {
		t.Errorf("an unknown command: %v", r)
	}
	stdin.Close()
	if err := cmd.Wait(); err != nil {
		t.Errorf("the bridge at the end of its input: %v", err)
	}
}

// `pi attach` runs pi's commands on the served session: !cmd, a follow-up with Alt+Enter,
// /compact, /model's picker with the server's models, /fork.
func TestAttachCommandsInTmux(t *testing.T) {
	k := startAttachScript(t, "cmds", map[string]any{"chunkDelayMs": 20, "chunkRunes": 6, "replies": textReplies(
		"First reply.", strings.Repeat("streaming ", 120)+"END", "Follow-up answered.",
		"## Goal\nA summary.", "## Goal\nThe turn so far.", // a summary, and one of the turn it cuts
	)})
	m, must := k.fdTmux, k.must
	m.typeText("hello there")
	m.keys("Enter")
	must("the first prompt", "First reply.")
	m.typeText("!echo bang-$((40+2))")
	m.keys("Enter")
	must("!cmd", "bang-42")
	// The row shows the output a moment before the screen stops working; Enter meanwhile
	// would steer (and nothing runs to take the steer).
	if !fdWaitUntil(10*time.Second, func() bool { return !m.working() }) {
		t.Fatalf("still working after the !cmd ended; pane:\n%s", m.screen())
	}

	m.typeText("stream now")
	m.keys("Enter")
	must("the second prompt", "streaming streaming")
	m.typeText("and a follow-up")
	m.keys("M-Enter")
	must("the follow-up", "Follow-up answered.")

	m.typeText("/compact")
	m.keys("Enter")
	must("/compact", "compacted")

	m.keys("C-l")
	must("the model picker", "Select a model")
	must("the model picker", "faux/faux-1")
	m.keys("Escape")
	// A key typed before the Escape is read alone would make Alt+key: the picker closing shows it was.
	if !fdWaitUntil(10*time.Second, func() bool { return !strings.Contains(m.visible(), "Select a model") }) {
		t.Fatalf("Escape did not close the model picker; pane:\n%s", m.screen())
	}

	m.typeText("/tree")
	m.keys("Enter")
	must("/tree", "Continue from which point?")
	m.keys("Up")
	m.keys("Enter")
	must("/tree", "Summarise the branch you are leaving?")
	m.keys("Enter") // no summary
	must("/tree", "moved in the session tree; the conversation now reads:")
	m.keys("C-c") // the editor holds the message moved off, if any

	m.typeText("/fork")
	m.keys("Enter")
	must("/fork", "Fork from which message?")
	m.keys("Enter")
	must("/fork", "forked into a new session:")
	must("/fork puts the message back in the editor", "hello there\n────")
	m.keys("C-c") // clears the editor
	m.keys("C-c", "C-c")
	must("detach", "detached from")
}

// TestContinueOnAServedSessionNamesPiAttach: `pi -c` in a folder whose newest session pi serve
// holds cannot open it (pi serve writes it), and says how to reach it: pi attach with its id.
func TestContinueOnAServedSessionNamesPiAttach(t *testing.T) {
	bin := buildPi(t)
	dir := shortTempDir(t)
	script, _ := filepath.Abs("testdata/server/short.json")
	sock := startServe(t, bin, dir, "--faux-script", script)
	t.Setenv("XDG_RUNTIME_DIR", dir) // the default socket, $XDG_RUNTIME_DIR/pi/server.sock, is the served one
	if err := os.MkdirAll(filepath.Join(dir, "pi"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(sock, filepath.Join(dir, "pi", "server.sock")); err != nil {
		t.Fatal(err)
	}
	c, ctx := dialServed(t, sock)
	res, err := c.Request(ctx, map[string]any{"command": "create", "cwd": dir})
	if err != nil {
		t.Fatal(err)
	}
	id := res["session"].(map[string]any)["id"].(string)
	if _, err := c.Request(ctx, map[string]any{"command": "prompt", "sessionId": id, "text": "hello?"}); err != nil {
		t.Fatal(err)
	}
	testwait.Until(t, "the served session's file", func() bool {
		files, _ := filepath.Glob(filepath.Join(dir, ".pihome", "sessions", "*", "*_"+id+".jsonl"))
		return len(files) == 1
	})
	r := runPi(t, bin, dir, "--faux-script", script, "--no-extensions", "-c", "-p", "more?")
	if want := "pi attach " + id[:8]; r.code != 1 || !strings.Contains(r.stderr, want) || !strings.Contains(r.stderr, "in use") {
		t.Fatalf("pi -c on a served session: code %d, stderr %q, want it to name %q", r.code, r.stderr, want)
	}
}
