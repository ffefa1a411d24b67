package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

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
		if _, err := os.Stat(sock); err == nil {
			return sock
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatalf("pi serve did not create %s; stderr:\n%s", sock, stderr.String())
	return ""
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
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	c, err := server.Dial(ctx, sock)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
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
	if answers["c"]["success"] != false || !strings.Contains(answers["c"]["error"].(string), "compact") {
		t.Errorf("compact: %v", answers["c"])
	}
	stdin.Close()
	if err := cmd.Wait(); err != nil {
		t.Errorf("the bridge at the end of its input: %v", err)
	}
}
