package ollamatest

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

// Lines as Ollama v0.17.4 writes them at OLLAMA_DEBUG=2.
const sampleLog = `time=2026-11-30T10:15:13.930Z level=DEBUG source=server.go:1536 msg="completion request" images=0 prompt=278 format=""
time=2026-11-30T10:15:13.930Z level=TRACE source=server.go:1537 msg="completion request" prompt="<|im_start|>user\nRead \"it\".<|im_end|>\n<|im_start|>assistant\n<|rule_1|>"
time=2026-11-30T10:15:13.931Z level=DEBUG source=cache.go:104 msg="loading cache slot" id=0 cache=0 prompt=278 used=0 remaining=278
time=2026-11-30T10:15:14.100Z level=DEBUG source=cache.go:104 msg="loading cache slot" id=0 cache=285 prompt=381 used=278 remaining=103
`

func TestServerLogParsing(t *testing.T) {
	s := &Server{LogPath: filepath.Join(t.TempDir(), "server.log")}
	if err := os.WriteFile(s.LogPath, []byte(sampleLog), 0o644); err != nil {
		t.Fatal(err)
	}
	loads, err := s.CacheLoads()
	want := []CacheLoad{{Prompt: 278, Used: 0, Remaining: 278}, {Prompt: 381, Used: 278, Remaining: 103}}
	if err != nil || !reflect.DeepEqual(loads, want) {
		t.Errorf("CacheLoads = %+v, %v; want %+v", loads, err, want)
	}
	prompts, err := s.Prompts()
	wantPrompt := "<|im_start|>user\nRead \"it\".<|im_end|>\n<|im_start|>assistant\n<|rule_1|>"
	if err != nil || len(prompts) != 1 || prompts[0] != wantPrompt {
		t.Errorf("Prompts = %q, %v; want [%q]", prompts, err, wantPrompt)
	}
	if _, err := parseCacheLoad(`msg="loading cache slot" prompt=1 used=x remaining=1`); err == nil {
		t.Error("a malformed count was accepted")
	}
}

// Lines as Ollama v0.17.4 writes them: the route table at start-up (not a request), a runner
// for device discovery and one for a model, and finished requests.
const requestLog = `[GIN-debug] POST   /api/chat                 --> github.com/ollama/ollama/server.(*Server).ChatHandler-fm (5 handlers)
time=2026-12-02T03:27:41.456Z level=INFO source=server.go:431 msg="starting runner" cmd="ollama runner --ollama-engine --port 36949"
time=2026-12-02T03:28:54.326Z level=INFO source=server.go:431 msg="starting runner" cmd="ollama runner --model /m/blobs/sha256-a6 --port 1"
[GIN] 2026/12/02 - 03:28:55 | 200 |      79.338µs |       127.0.0.1 | GET      "/api/ps"
[GIN] 2026/12/02 - 03:33:27 | 500 |         4m31s |       127.0.0.1 | POST     "/api/chat"
[GIN] 2026/12/02 - 03:36:14 | 200 |         1m27s |       127.0.0.1 | POST     "/api/chat"
[GIN] 2026/12/02 - 03:36:15 | 200 |      12.1ms |       127.0.0.1 | POST     "/api/chat/x"
`

func TestServerLogRequests(t *testing.T) {
	s := &Server{LogPath: filepath.Join(t.TempDir(), "server.log")}
	if err := os.WriteFile(s.LogPath, []byte(requestLog), 0o644); err != nil {
		t.Fatal(err)
	}
	for path, want := range map[string]int{"/api/chat": 2, "/api/ps": 0, "/api/generate": 0} {
		if n, err := s.Finished(path); err != nil || n != want {
			t.Errorf("Finished(%s) = %d, %v; want %d", path, n, err, want)
		}
	}
	if n, err := s.RunnerStarts(); err != nil || n != 2 {
		t.Errorf("RunnerStarts = %d, %v; want 2", n, err)
	}
}
