package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestProcessesThatLeftTheGroupDieWithPi: a bash tool command leaves `setsid sleep 1000`
// behind, out of its process group and orphaned; once pi -p exits, that process is gone.
func TestProcessesThatLeftTheGroupDieWithPi(t *testing.T) {
	bin := buildPi(t)
	dir := t.TempDir()
	pidPath := filepath.Join(dir, "sleep.pid")
	script, _ := json.Marshal([]map[string]any{
		{"content": []map[string]any{{"type": "toolCall", "id": "c1", "name": "bash", "arguments": map[string]any{
			"command": `setsid sh -c 'echo $$ > sleep.pid; exec sleep 1000' > /dev/null 2>&1 & until [ -s sleep.pid ]; do sleep 0.01; done; echo started`}}}},
		{"content": []map[string]any{{"type": "text", "text": "done"}}},
	})
	scriptPath := filepath.Join(dir, "script.json")
	os.WriteFile(scriptPath, script, 0o644)
	r := runPi(t, bin, dir, "--faux-script", scriptPath, "--no-session", "-p", "start it")
	if r.code != 0 || r.stdout != "done\n" {
		t.Fatalf("pi: code %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
	}
	data, err := os.ReadFile(pidPath)
	if err != nil {
		t.Fatalf("the command did not start the sleep: %v", err)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(data)))
	if err != nil {
		t.Fatalf("pid file holds %q", data)
	}
	for deadline := time.Now().Add(10 * time.Second); processRuns(pid); {
		if time.Now().After(deadline) {
			syscall.Kill(pid, syscall.SIGKILL)
			t.Fatalf("process %d (setsid sleep 1000) outlived pi", pid)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// processRuns reports whether pid is alive and not a zombie.
func processRuns(pid int) bool {
	data, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	fields := strings.Fields(string(data[strings.LastIndexByte(string(data), ')')+1:]))
	return len(fields) > 0 && fields[0] != "Z"
}
