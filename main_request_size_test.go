package main

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
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
