//go:build unix

package main

import (
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"pi/internal/chattest"
	"pi/internal/testwait"
)

// The root test binary is also the fake `ollama` of these tests: run as `ollama serve` with
// fakeOllamaEnv set, it serves Ollama's API on $OLLAMA_HOST until SIGTERM: the models of
// fakeOllamaModels, a reply to every chat, and pulls that stream progress (waiting at half way
// until the file fakeOllamaGate exists, when it is set) and then list the model.
const (
	fakeOllamaEnv     = "PI_TEST_FAKE_OLLAMA"
	fakeOllamaModels  = "PI_TEST_FAKE_OLLAMA_MODELS"
	fakeOllamaPIDFile = "PI_TEST_FAKE_OLLAMA_PIDFILE"
	fakeOllamaGate    = "PI_TEST_FAKE_OLLAMA_GATE"
	fakeOllamaReply   = "Hello from the fake Ollama."
)

func TestMain(m *testing.M) {
	if os.Getenv(fakeOllamaEnv) == "1" && len(os.Args) > 1 && os.Args[1] == "serve" {
		os.Exit(fakeOllamaServe())
	}
	os.Exit(m.Run())
}

func fakeOllamaServe() int {
	ln, err := net.Listen("tcp", os.Getenv("OLLAMA_HOST"))
	if err != nil {
		fmt.Fprintln(os.Stderr, "Error:", err)
		return 1
	}
	if path := os.Getenv(fakeOllamaPIDFile); path != "" {
		os.WriteFile(path, []byte(strconv.Itoa(os.Getpid())+"\n"), 0o600)
	}
	f := &fakeOllama{models: strings.Fields(os.Getenv(fakeOllamaModels)), gate: os.Getenv(fakeOllamaGate)}
	go http.Serve(ln, f.mux())
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, syscall.SIGTERM)
	<-sig
	return 0
}

type fakeOllama struct {
	mu     sync.Mutex
	models []string
	gate   string
}

func (f *fakeOllama) mux() *http.ServeMux {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /api/version", func(w http.ResponseWriter, _ *http.Request) { fmt.Fprint(w, `{"version":"0.0.0-fake"}`) })
	mux.HandleFunc("GET /api/tags", func(w http.ResponseWriter, _ *http.Request) {
		f.mu.Lock()
		defer f.mu.Unlock()
		list := []map[string]string{}
		for _, m := range f.models {
			list = append(list, map[string]string{"name": m, "model": m})
		}
		json.NewEncoder(w).Encode(map[string]any{"models": list})
	})
	mux.HandleFunc("GET /api/ps", func(w http.ResponseWriter, _ *http.Request) { fmt.Fprint(w, `{"models":[]}`) })
	mux.HandleFunc("POST /api/show", func(w http.ResponseWriter, _ *http.Request) {
		fmt.Fprint(w, `{"capabilities":["completion","tools"],"model_info":{"general.architecture":"t","t.context_length":32768}}`)
	})
	mux.HandleFunc("POST /api/chat", func(w http.ResponseWriter, _ *http.Request) {
		fmt.Fprintln(w, chattest.Done(fakeOllamaReply, 10, 5))
	})
	mux.HandleFunc("POST /api/pull", f.pull)
	return mux
}

// pull streams a pull's progress as Ollama does, one JSON object a line.
func (f *fakeOllama) pull(w http.ResponseWriter, r *http.Request) {
	var req struct{ Model string }
	json.NewDecoder(r.Body).Decode(&req)
	line := func(v map[string]any) {
		json.NewEncoder(w).Encode(v)
		w.(http.Flusher).Flush()
	}
	const total = 1 << 30
	layer := map[string]any{"status": "pulling 3f1a2b3c4d5e", "digest": "sha256:3f1a2b3c4d5e6f70", "total": total}
	line(map[string]any{"status": "pulling manifest"})
	for _, done := range []int{0, total / 4, total / 2} {
		layer["completed"] = done
		line(layer)
	}
	for f.gate != "" && r.Context().Err() == nil {
		if _, err := os.Stat(f.gate); err == nil {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	layer["completed"] = total
	line(layer)
	line(map[string]any{"status": "verifying sha256 digest"})
	f.mu.Lock()
	f.models = append(f.models, req.Model)
	f.mu.Unlock()
	line(map[string]any{"status": "success"})
}

// fakeOllamaSetup is a fake `ollama` on a PATH of its own, a loopback address where nothing
// listens yet for OLLAMA_HOST, and a PI_HOME whose pi.toml is toml.
type fakeOllamaSetup struct {
	dir, home, host, pidFile, gate string
	env                            []string
}

func newFakeOllamaSetup(t *testing.T, models, toml string) *fakeOllamaSetup {
	t.Helper()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	s := &fakeOllamaSetup{dir: t.TempDir(), home: t.TempDir()}
	s.pidFile, s.gate = filepath.Join(s.home, "fake.pid"), filepath.Join(s.home, "pull.gate")
	bin := t.TempDir()
	script := fmt.Sprintf("#!/bin/sh\nexport %s=1 %s=%q %s=%q %s=%q\nexec %q \"$@\"\n",
		fakeOllamaEnv, fakeOllamaModels, models, fakeOllamaPIDFile, s.pidFile, fakeOllamaGate, s.gate, self)
	if err := os.WriteFile(filepath.Join(bin, "ollama"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(s.home, "pi.toml"), []byte(toml), 0o644); err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s.host = ln.Addr().String()
	ln.Close()
	s.env = append(os.Environ(), "PATH="+bin+":"+os.Getenv("PATH"), "OLLAMA_HOST="+s.host, "PI_HOME="+s.home, "HOME="+s.home)
	t.Cleanup(func() { // a server a failing test left behind
		if pid := s.pid(); pid > 0 {
			syscall.Kill(pid, syscall.SIGKILL)
		}
	})
	return s
}

// pid is the fake server's process id, 0 when it never started.
func (s *fakeOllamaSetup) pid() int {
	data, err := os.ReadFile(s.pidFile)
	if err != nil {
		return 0
	}
	pid, _ := strconv.Atoi(strings.TrimSpace(string(data)))
	return pid
}

func (s *fakeOllamaSetup) run(t *testing.T, bin string, args ...string) runResult {
	t.Helper()
	return runPiWith(t, bin, s.dir, s.env, args...)
}

// TestPrintModeWithOllamaNotServing: with Ollama installed but not serving, print mode says
// in one line what to run; with [ollama] start = "child" it starts `ollama serve`, talks to
// it and stops it as it exits; "detached" leaves it running; a server without a model gets
// the `ollama pull` line naming a model that fits.
func TestPrintModeWithOllamaNotServing(t *testing.T) {
	bin := buildPi(t)
	cases := []struct {
		name, toml, models string
		code               int
		stdout             string
		stderr             []string
		serverAfter        string // "never started", "stopped" or "running"
	}{
		{"asks by default", "", "qwen3:0.6b", 1, "", []string{"but not serving on", "run `ollama serve`", `[ollama] start = "child"`}, "never started"},
		{"started for the run", "[ollama]\nstart = \"child\"\n", "qwen3:0.6b", 0, fakeOllamaReply + "\n",
			[]string{"started `ollama serve` on", "for this run", "no model configured; using ollama/qwen3:0.6b (the only local model; set model in pi.toml)"}, "stopped"},
		{"left running", "[ollama]\nstart = \"detached\"\n", "qwen3:0.6b", 0, fakeOllamaReply + "\n", []string{"left running after pi exits"}, "running"},
		{"no model", "[ollama]\nstart = \"child\"\n", "", 1, "", []string{"has no model yet: run `ollama pull qwen3:", "GB download"}, "stopped"},
		{"never", "[ollama]\nstart = \"never\"\n", "", 1, "", []string{"no Ollama server answered"}, "never started"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := newFakeOllamaSetup(t, c.models, c.toml)
			r := s.run(t, bin, "--no-session", "-p", "hi")
			if r.code != c.code || r.stdout != c.stdout {
				t.Fatalf("exit %d, stdout %q; want %d, %q; stderr:\n%s", r.code, r.stdout, c.code, c.stdout, r.stderr)
			}
			for _, want := range c.stderr {
				if strings.Count(r.stderr, want) != 1 {
					t.Errorf("stderr does not say %q once:\n%s", want, r.stderr)
				}
			}
			if c.serverAfter == "never started" && strings.Count(r.stderr, "\n") != 1 {
				t.Errorf("want one line on stderr, got:\n%s", r.stderr)
			}
			switch pid := s.pid(); c.serverAfter {
			case "never started":
				if pid != 0 {
					t.Errorf("pi started the server (pid %d)", pid)
				}
			case "stopped":
				if pid == 0 || !testwait.Within(testwait.Deadline, func() bool { return !alive(pid) }) {
					t.Errorf("the server pi started (pid %d) is still running after pi exited", pid)
				}
			case "running":
				if pid == 0 || !alive(pid) {
					t.Errorf("the detached server (pid %d) did not outlive pi", pid)
				}
			}
		})
	}
}

// TestPrintAndJSONSayThePickedModel: with no model configured, print mode says once on
// stderr which local model pi picked and why, JSON mode says it in the session header; a
// model the command line names is not announced.
func TestPrintAndJSONSayThePickedModel(t *testing.T) {
	bin := buildPi(t)
	srv := chattest.Start(t, []string{"qwen3:0.6b", "llama3:latest", "gemma:2b"})
	s := newFakeOllamaSetup(t, "", "[providers.ollama]\nbase_url = \""+srv.URL+"\"\n")
	const picked = "no model configured; using ollama/qwen3:0.6b (the newest of 3 local models that calls tools; set model in pi.toml)"
	r := s.run(t, bin, "--no-session", "-p", "hi")
	if r.code != 0 || r.stderr != "pi: "+picked+"\n" {
		t.Fatalf("print mode: exit %d, stderr %q", r.code, r.stderr)
	}
	r = s.run(t, bin, "--no-session", "--mode", "json", "hi")
	var header map[string]any
	if err := json.Unmarshal([]byte(strings.SplitN(r.stdout, "\n", 2)[0]), &header); err != nil || r.code != 0 {
		t.Fatalf("json mode: exit %d, %v: %s", r.code, err, r.stdout)
	}
	if header["type"] != "session" || header["model"] != "ollama/qwen3:0.6b" || header["modelPicked"] != picked {
		t.Errorf("the header does not say the picked model: %v", header)
	}
	r = s.run(t, bin, "--no-session", "--model", "ollama/gemma:2b", "-p", "hi")
	if r.code != 0 || r.stderr != "" {
		t.Errorf("a named model: exit %d, stderr %q", r.code, r.stderr)
	}
}
