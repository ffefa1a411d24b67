package main

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestConnectTakesASessionIDPrefix runs docs/server.md's examples that continue a served
// session by a prefix of its id, read from the doc itself, with the doc's `…` the socket and
// its prefix one of the session's id, as `pi sessions` prints it: `pi -p --connect …
// --session 01a2 "…"` continues the served session, and so does `pi --mode rpc --connect …
// --session 01a2`.
func TestConnectTakesASessionIDPrefix(t *testing.T) {
	examples := docExamples(t, "docs/server.md", "--connect … --session 01a2")
	if len(examples) != 2 || !slices.Contains(examples[0], "-p") || !slices.Contains(examples[1], "rpc") {
		t.Fatalf("docs/server.md's examples of --connect with a session prefix: %q", examples)
	}
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
	args := func(example []string) []string {
		out := slices.Clone(example[1:]) // example[0] is pi
		for i, w := range out {
			out[i] = strings.NewReplacer("…", sock, "01a2", id[:8]).Replace(w)
		}
		return out
	}
	if r := runPi(t, bin, dir, args(examples[0])...); r.code != 0 || r.stdout != "A second reply.\n" {
		t.Fatalf("pi %q: code %d, stdout %q, stderr %q", args(examples[0]), r.code, r.stdout, r.stderr)
	}
	rpc := exec.Command(bin, args(examples[1])...)
	rpc.Stdin = strings.NewReader(`{"id":"s","type":"get_state"}` + "\n")
	var stderr bytes.Buffer
	rpc.Stderr = &stderr
	out, err := rpc.Output()
	if err != nil {
		t.Fatalf("pi %q: %v; stderr %s", args(examples[1]), err, stderr.String())
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

// docExamples are the command lines of path's code blocks that contain want, split into words
// as the shell would (double quotes group; a # comment is dropped).
func docExamples(t *testing.T, path, want string) [][]string {
	t.Helper()
	doc, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var out [][]string
	inBlock := false
	for line := range strings.SplitSeq(string(doc), "\n") {
		if strings.HasPrefix(line, "```") {
			inBlock = !inBlock
			continue
		}
		if !inBlock || !strings.Contains(line, want) {
			continue
		}
		var words []string
		for i, part := range strings.Split(line, `"`) {
			if i%2 == 1 {
				words = append(words, part)
				continue
			}
			code, _, comment := strings.Cut(part, "#")
			words = append(words, strings.Fields(code)...)
			if comment {
				break
			}
		}
		out = append(out, words)
	}
	return out
}
