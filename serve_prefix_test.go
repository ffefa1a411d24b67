package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"pi/server"
)

// TestConnectTakesASessionIDPrefix runs docs/server.md's examples with a prefix of the
// session id, as `pi sessions` prints it: `pi -p --connect … --session 01a2 "…"` continues
// the served session, and so does `pi --mode rpc --connect … --session 01a2`.
func TestConnectTakesASessionIDPrefix(t *testing.T) {
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
	prefix := id[:8]
	if r := runPi(t, bin, dir, "-p", "--connect", sock, "--session", prefix, "more?"); r.code != 0 || r.stdout != "A second reply.\n" {
		t.Fatalf("pi -p --connect --session %s: code %d, stdout %q, stderr %q", prefix, r.code, r.stdout, r.stderr)
	}
	rpc := exec.Command(bin, "--mode", "rpc", "--connect", sock, "--session", prefix)
	rpc.Stdin = strings.NewReader(`{"id":"s","type":"get_state"}` + "\n")
	var stderr bytes.Buffer
	rpc.Stderr = &stderr
	out, err := rpc.Output()
	if err != nil {
		t.Fatalf("pi --mode rpc --connect --session %s: %v; stderr %s", prefix, err, stderr.String())
	}
	for line := range strings.SplitSeq(strings.TrimSpace(string(out)), "\n") {
		var m map[string]any
		if json.Unmarshal([]byte(line), &m) == nil && m["id"] == "s" {
			data, _ := m["data"].(map[string]any)
			if m["success"] != true || data["sessionId"] != id {
				t.Fatalf("get_state through the prefix: %s", line)
			}
			return
		}
	}
	t.Fatalf("no answer to get_state: %s; stderr %s", out, stderr.String())
}
