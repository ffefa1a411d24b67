package ollamatest

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// BinEnv names the environment variable that holds the path of the ollama binary.
const BinEnv = "PI_OLLAMA_BIN"

// skipMessage tells whoever sees a skipped test how to run it.
const skipMessage = BinEnv + " is not set, so tests against a real Ollama server are skipped. " +
	"Build the server once with .ci/build-ollama.sh (it prints the binary's path) and run " +
	"`export " + BinEnv + "=<that path>`, or run .ci/run, which does both."

// Server is one Ollama server started for one test, listening on 127.0.0.1 only.
type Server struct {
	BaseURL string // http://127.0.0.1:<port>, the root of the native API and of /v1
	Host    string // 127.0.0.1:<port>, the form OLLAMA_HOST takes
	Dir     string // the server's HOME; models live in Dir/models
	LogPath string // the server's combined output

	client *http.Client
}

// Start runs `ollama serve` from the binary named by PI_OLLAMA_BIN, with its own HOME and model
// folder in t.TempDir(), on a free loopback port, and waits until it answers. Extra env entries
// ("KEY=value", e.g. "OLLAMA_NEW_ENGINE=1") are added to the server's environment. The server's
// process group is stopped when the test ends. Without PI_OLLAMA_BIN the test is skipped.
func Start(t testing.TB, env ...string) *Server {
	t.Helper()
	bin := os.Getenv(BinEnv)
	if bin == "" {
		t.Skip(skipMessage)
	}
	if _, err := os.Stat(bin); err != nil {
		t.Fatalf("%s=%s: %v (rebuild it with .ci/build-ollama.sh)", BinEnv, bin, err)
	}
	s, cmd, exited, err := launch(bin, t.TempDir(), env)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		stopGroup(cmd, exited)
		if t.Failed() {
			t.Logf("ollama server log (%s):\n%s", s.LogPath, tail(s.LogPath, 4000))
		}
	})
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	if err := s.waitReady(ctx, exited); err != nil {
		t.Fatalf("%v\nserver log:\n%s", err, tail(s.LogPath, 4000))
	}
	return s
}

// launch starts the server in its own process group. The environment is built from scratch so
// a developer's OLLAMA_HOST or OLLAMA_MODELS can never point the test at their own server.
func launch(bin, dir string, extra []string) (*Server, *exec.Cmd, <-chan error, error) {
	port, err := freePort()
	if err != nil {
		return nil, nil, nil, err
	}
	host := fmt.Sprintf("127.0.0.1:%d", port)
	s := &Server{BaseURL: "http://" + host, Host: host, Dir: dir, LogPath: filepath.Join(dir, "server.log"),
		client: &http.Client{Timeout: 5 * time.Minute}}
	tmp := filepath.Join(dir, "tmp")
	if err := os.MkdirAll(tmp, 0o755); err != nil {
		return nil, nil, nil, fmt.Errorf("ollama temp dir %s: %w", tmp, err)
	}
	log, err := os.Create(s.LogPath)
	if err != nil {
		return nil, nil, nil, fmt.Errorf("ollama log %s: %w", s.LogPath, err)
	}
	defer log.Close() // the child keeps its own descriptor
	cmd := exec.Command(bin, "serve")
	cmd.Dir = dir
	cmd.Env = append([]string{"PATH=" + os.Getenv("PATH"), "HOME=" + dir, "TMPDIR=" + tmp,
		"OLLAMA_HOST=" + host, "OLLAMA_MODELS=" + filepath.Join(dir, "models"),
		"OLLAMA_DEBUG=1",              // debug lines feed CacheLoads and failure reports
		"OLLAMA_NO_CLOUD=1",           // loopback only: no remote models or web search
		"GIN_MODE=release"}, extra...) // keeps the route table out of the log
	cmd.Stdout, cmd.Stderr = log, log
	setGroup(cmd)
	if err := cmd.Start(); err != nil {
		return nil, nil, nil, fmt.Errorf("start %s serve: %w", bin, err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	return s, cmd, exited, nil
}

// freePort asks the kernel for an unused loopback port. Another process could take it before
// the server binds; the server then exits and waitReady reports its log.
func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, fmt.Errorf("find a free loopback port: %w", err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

func (s *Server) waitReady(ctx context.Context, exited <-chan error) error {
	for {
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, s.BaseURL+"/api/version", nil)
		if resp, err := s.client.Do(req); err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return nil
			}
		}
		select {
		case err := <-exited:
			return fmt.Errorf("ollama serve on %s exited before it was ready: %v", s.Host, err)
		case <-ctx.Done():
			return fmt.Errorf("ollama serve on %s not ready: %w", s.Host, ctx.Err())
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// tail returns the end of a log file for a failure message.
func tail(path string, n int) string {
	b, err := os.ReadFile(path)
	if err != nil {
		return err.Error()
	}
	if len(b) > n {
		b = b[len(b)-n:]
	}
	return string(b)
}

// CreateModel generates spec's model and creates it on the server under name, the way the CLI
// would but over HTTP: upload the GGUF blob, then /api/create with the template and parameters.
func (s *Server) CreateModel(ctx context.Context, name string, spec ModelSpec) error {
	m, err := Build(spec)
	if err != nil {
		return fmt.Errorf("build model %s: %w", name, err)
	}
	return s.Create(ctx, name, m)
}

// Create uploads a built model and creates it under name.
func (s *Server) Create(ctx context.Context, name string, m *Model) error {
	digest := m.Digest()
	if err := s.post(ctx, "/api/blobs/"+digest, "application/octet-stream", m.GGUF, nil); err != nil {
		return fmt.Errorf("upload model %s: %w", name, err)
	}
	return s.create(ctx, name, map[string]any{"files": map[string]string{"model.gguf": digest},
		"template": m.Template, "parameters": m.Parameters})
}

// CreateRandom uploads the GGUF file at path (WriteRandomGGUFFile wrote it, digest is its
// sha256) as it reads it, and creates it under name with RandomTemplate, quantized to quantize
// ("q4_K_M"; "" keeps F16). Quantizing a model of a real size takes the server a minute or so.
func (s *Server) CreateRandom(ctx context.Context, name, path, digest, quantize string) error {
	f, err := os.Open(path)
	if err != nil {
		return fmt.Errorf("upload model %s: %w", name, err)
	}
	defer f.Close()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, s.BaseURL+"/api/blobs/"+digest, f)
	if err != nil {
		return fmt.Errorf("upload model %s: %w", name, err)
	}
	if st, err := f.Stat(); err == nil {
		req.ContentLength = st.Size()
	}
	req.Header.Set("Content-Type", "application/octet-stream")
	if err := s.do(req, nil); err != nil {
		return fmt.Errorf("upload model %s from %s: %w", name, path, err)
	}
	// One runner thread, as for the scripted models: on a shared, oversubscribed CPU ggml's second
	// thread spins at every barrier while the first waits for a core.
	body := map[string]any{"files": map[string]string{"model.gguf": digest}, "template": RandomTemplate,
		"parameters": map[string]any{"stop": []string{tokImEnd}, "num_thread": 1}}
	if quantize != "" {
		body["quantize"] = quantize
	}
	return s.create(ctx, name, body)
}

// create sends /api/create for name with the rest of the request in body.
func (s *Server) create(ctx context.Context, name string, body map[string]any) error {
	body["model"], body["stream"] = name, false
	data, err := json.Marshal(body)
	if err != nil {
		return fmt.Errorf("create model %s: %w", name, err)
	}
	var out struct{ Status, Error string }
	if err := s.post(ctx, "/api/create", "application/json", data, &out); err != nil {
		return fmt.Errorf("create model %s: %w", name, err)
	}
	if out.Status != "success" {
		return fmt.Errorf("create model %s: status %q, error %q", name, out.Status, out.Error)
	}
	return nil
}

// post sends body to path and decodes a JSON answer into out when out is not nil.
func (s *Server) post(ctx context.Context, path, contentType string, body []byte, out any) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, s.BaseURL+path, bytes.NewReader(body))
	if err != nil {
		return fmt.Errorf("POST %s: %w", path, err)
	}
	req.Header.Set("Content-Type", contentType)
	return s.do(req, out)
}

// GetJSON fetches path ("/api/ps", "/v1/models") and decodes the JSON answer into out.
func (s *Server) GetJSON(ctx context.Context, path string, out any) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, s.BaseURL+path, nil)
	if err != nil {
		return fmt.Errorf("GET %s: %w", path, err)
	}
	return s.do(req, out)
}

func (s *Server) do(req *http.Request, out any) error {
	what := req.Method + " " + req.URL.Path
	resp, err := s.client.Do(req)
	if err != nil {
		return fmt.Errorf("%s: %w", what, err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		return fmt.Errorf("%s: read answer: %w", what, err)
	}
	if resp.StatusCode/100 != 2 {
		return fmt.Errorf("%s: %s: %s", what, resp.Status, strings.TrimSpace(string(data)))
	}
	if out == nil {
		return nil
	}
	if err := json.Unmarshal(data, out); err != nil {
		return fmt.Errorf("%s: decode %q: %w", what, data, err)
	}
	return nil
}

// PostJSON sends in as JSON to path and decodes the answer into out. Tests use it for the
// native and compatible endpoints alike.
func (s *Server) PostJSON(ctx context.Context, path string, in, out any) error {
	body, err := json.Marshal(in)
	if err != nil {
		return fmt.Errorf("POST %s: encode request: %w", path, err)
	}
	return s.post(ctx, path, "application/json", body, out)
}

// Reload unloads model, waits until /api/ps no longer lists it, and loads it again with a
// context of numCtx tokens: the runner then holds no cached prompt, as after a restart.
func (s *Server) Reload(ctx context.Context, model string, numCtx int) error {
	if err := s.PostJSON(ctx, "/api/generate", map[string]any{"model": model, "keep_alive": 0}, nil); err != nil {
		return fmt.Errorf("unload %s: %w", model, err)
	}
	for {
		var ps struct{ Models []struct{ Name string } }
		if err := s.GetJSON(ctx, "/api/ps", &ps); err != nil {
			return fmt.Errorf("unload %s: %w", model, err)
		}
		if len(ps.Models) == 0 {
			break
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("unload %s: still loaded: %w", model, ctx.Err())
		case <-time.After(50 * time.Millisecond):
		}
	}
	load := map[string]any{"model": model, "keep_alive": "30m", "options": map[string]any{"num_ctx": numCtx}}
	if err := s.PostJSON(ctx, "/api/generate", load, nil); err != nil {
		return fmt.Errorf("load %s with num_ctx %d: %w", model, numCtx, err)
	}
	return nil
}
