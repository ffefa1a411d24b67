package main

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
)

// TestFirstRequestBodySize runs pi -p with a one-line prompt and the four default tools against
// a fake OpenAI-compatible server and measures the whole request body it receives (the working
// directory in the context block counted as "/home/user/project"): it must stay at or under
// 2,400 bytes.
func TestFirstRequestBodySize(t *testing.T) {
	bodies := make(chan []byte, 4)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/v1/chat/completions" {
			http.NotFound(w, r) // pi asks whether a local /v1 server is Ollama's
			return
		}
		body, _ := io.ReadAll(r.Body)
		bodies <- body
		w.Header().Set("Content-Type", "text/event-stream")
		io.WriteString(w, "data: {\"choices\":[{\"delta\":{\"content\":\"ok\"},\"finish_reason\":\"stop\"}]}\n\ndata: [DONE]\n\n")
	}))
	defer srv.Close()
	dir := t.TempDir()
	home := filepath.Join(dir, ".pihome")
	os.MkdirAll(home, 0o755)
	toml := "[providers.local]\nkind = \"openai\"\nbase_url = \"" + srv.URL + "/v1\"\n"
	if err := os.WriteFile(filepath.Join(home, "pi.toml"), []byte(toml), 0o644); err != nil {
		t.Fatal(err)
	}
	r := runPi(t, buildPi(t), dir, "--model", "local/m", "--no-session", "-p", "What does main.go do?")
	if r.code != 0 {
		t.Fatalf("code %d\nstderr %s", r.code, r.stderr)
	}
	body := <-bodies
	cwd, _ := filepath.EvalSymlinks(dir)
	body = bytes.ReplaceAll(body, []byte(cwd), []byte("/home/user/project"))
	var req struct {
		Messages []json.RawMessage `json:"messages"`
		Tools    []json.RawMessage `json:"tools"`
	}
	if err := json.Unmarshal(body, &req); err != nil || len(req.Tools) != 4 || !bytes.Contains(body, []byte("/home/user/project")) {
		t.Fatalf("request %s (%v)", body, err)
	}
	toolBytes := 0
	for _, tl := range req.Tools {
		toolBytes += len(tl)
	}
	t.Logf("first request body: %d B (%d B of tools)", len(body), toolBytes)
	if len(body) > 2400 {
		t.Errorf("first request body is %d B, budget 2400:\n%s", len(body), body)
	}
}

// TestPrintSaysWhatIsTooBigForTheWindow runs pi -p on a new session whose first request
// cannot fit: the server refuses it as too long, or a file attached with @ is bigger than the
// window by itself. pi does not compact (the server sees no summary request) and says on stderr
// what the request holds and what to do.
func TestPrintSaysWhatIsTooBigForTheWindow(t *testing.T) {
	cases := []struct {
		name      string
		args      []string
		wantCalls int
		want      []string
	}{
		{"the server refuses the first prompt", []string{"What does main.go do?"}, 1,
			[]string{"window of 8192 tokens", "4 tool definitions", "--tools read,bash"}},
		{"an attached file bigger than the window", []string{"explain", "@big.txt"}, 0,
			[]string{"window of 8192 tokens", "attached file big.txt", "attach less"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var calls atomic.Int32
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if r.URL.Path != "/v1/chat/completions" {
					http.NotFound(w, r)
					return
				}
				calls.Add(1)
				w.WriteHeader(http.StatusBadRequest)
				io.WriteString(w, `{"error":{"message":"This model's maximum context length is 8192 tokens. However, your messages resulted in 9100 tokens."}}`)
			}))
			defer srv.Close()
			dir := t.TempDir()
			home := filepath.Join(dir, ".pihome")
			os.MkdirAll(home, 0o755)
			toml := "[providers.local]\nkind = \"openai\"\nbase_url = \"" + srv.URL + "/v1\"\n" +
				"[[providers.local.models]]\nid = \"m\"\ncontext_window = 8192\n"
			os.WriteFile(filepath.Join(home, "pi.toml"), []byte(toml), 0o644)
			os.WriteFile(filepath.Join(dir, "big.txt"), bytes.Repeat([]byte("a line of a big file\n"), 3000), 0o644)
			r := runPi(t, buildPi(t), dir, append([]string{"--model", "local/m", "--no-session", "-p"}, tc.args...)...)
			if r.code != 1 || int(calls.Load()) != tc.wantCalls {
				t.Fatalf("code %d, %d requests; stderr %s", r.code, calls.Load(), r.stderr)
			}
			for _, want := range append(tc.want, "does not fit the model's context window", "compacting cannot make it smaller") {
				if !strings.Contains(r.stderr, want) {
					t.Errorf("stderr lacks %q:\n%s", want, r.stderr)
				}
			}
			if strings.Contains(r.stderr, "/new") || strings.Contains(r.stderr, "new session") {
				t.Errorf("stderr advises a new session in a new session:\n%s", r.stderr)
			}
		})
	}
}
