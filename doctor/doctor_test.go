package doctor

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/BurntSushi/toml"

	"pi/config"
	"pi/eval"
	"pi/provider"
)

func TestPrefixVerdict(t *testing.T) {
	cold := TurnTiming{PromptTokens: 2000, OutputTokens: 20, PromptMs: 2000} // 1 ms a token
	turn := func(tokens int, ms float64) TurnTiming {
		return TurnTiming{PromptTokens: tokens, OutputTokens: 20, PromptMs: ms}
	}
	for _, tc := range []struct {
		name  string
		turns []TurnTiming
		want  string
		note  string
	}{
		{"only the appended part evaluated", []TurnTiming{cold, turn(2040, 25), turn(2080, 30)}, PrefixReused, "turn 1 (cold) 2000 ms"},
		{"the whole prompt again", []TurnTiming{cold, turn(2040, 2100), turn(2080, 1900)}, PrefixNotReused, "evaluated the whole prompt again"},
		{"one of two", []TurnTiming{cold, turn(2040, 20), turn(2080, 2000)}, PrefixPartly, ""},
		{"too fast to time", []TurnTiming{{PromptTokens: 200, PromptMs: 2}, turn(240, 1), turn(280, 1)}, PrefixUnknown, "too little to tell"},
		{"one turn", []TurnTiming{cold}, PrefixUnknown, "fewer than two"},
		{"no prompt time", []TurnTiming{{PromptTokens: 2000}, turn(2040, 0), turn(2080, 0)}, PrefixUnknown, "no prompt time"},
		{"llama.cpp says it cached", []TurnTiming{cold, {PromptTokens: 2040, Cached: 2019, PromptMs: 20}, {PromptTokens: 2080, Cached: 2059, PromptMs: 20}},
			PrefixReused, "2019 of 2040"},
		{"llama.cpp cached a little", []TurnTiming{cold, {PromptTokens: 2040, Cached: 10, PromptMs: 2000}, {PromptTokens: 2080, Cached: 10, PromptMs: 2000}},
			PrefixNotReused, "10 of 2080"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, note := prefixVerdict(tc.turns)
			if got != tc.want || !strings.Contains(note, tc.note) {
				t.Fatalf("verdict %q (%s), want %q with %q", got, note, tc.want, tc.note)
			}
		})
	}
}

func TestProbeSize(t *testing.T) {
	for _, tc := range []struct {
		name   string
		first  *provider.Timings
		window int
		want   int
	}{
		{"no timings", nil, 32768, 600},
		{"slow model: the minimum", &provider.Timings{PromptTokens: 100, PromptTime: 3 * time.Second}, 32768, minProbeTokens},
		{"medium", &provider.Timings{PromptTokens: 400, PromptTime: time.Second}, 32768, 600},
		{"fast model: the maximum", &provider.Timings{PromptTokens: 100, PromptTime: time.Millisecond}, 32768, maxProbeTokens},
		{"small window caps it", &provider.Timings{PromptTokens: 100, PromptTime: time.Millisecond}, 2048, 1024},
		{"tiny window", nil, 400, 200},
	} {
		if got := probeTokens(tc.first, tc.window); got != tc.want {
			t.Errorf("%s: %d tokens, want %d", tc.name, got, tc.want)
		}
	}
}

// The block parses, names the model, and config reads it back: window and switches applied.
func TestSuggestedBlockIsAppliedByConfig(t *testing.T) {
	for _, tc := range []struct {
		name   string
		r      Report
		want   []string
		absent []string
	}{
		{"structured, big window", Report{Window: Window{Server: 32768}, Tools: Tools{Verdict: CallsStructured},
			Eval: Eval{Ran: true, Passed: 3, Runs: make([]eval.SmokeRun, 3)}},
			[]string{"context_window = 32768  # the window the server gives", "text_tool_calls = true  # calls come back structured", "enabled = true would fit"},
			[]string{"tools = ["}},
		{"text calls, small window", Report{Window: Window{Server: 4096}, Tools: Tools{Verdict: CallsText, Shape: "qwen3_xml"}},
			[]string{"context_window = 4096", "(qwen3_xml)", `# for every model, so not set here: tools = ["read", "bash", "edit"]`, "enabled = false (the default)"},
			nil},
		{"no tool support", Report{Window: Window{Planned: 16384}, Tools: Tools{Verdict: CallsText, ToolsAsText: true, Shape: "tool_call"}},
			[]string{"context_window = 16384  # what pi plans for", "no tool support"}, []string{"tools = ["}},
		{"no call", Report{Tools: Tools{Verdict: CallsNone}}, []string{"# text_tool_calls: no call came back"}, []string{"context_window"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.r.Model = "local/qwen3:1.7b"
			block, existing := suggest(&config.Config{}, &tc.r, "local", "qwen3:1.7b")
			if existing {
				t.Error("an empty configuration has no entry")
			}
			for _, w := range tc.want {
				if !strings.Contains(block, w) {
					t.Errorf("block lacks %q:\n%s", w, block)
				}
			}
			for _, w := range tc.absent {
				if strings.Contains(block, w) && !strings.Contains(block, "# for every model") {
					t.Errorf("block sets %q:\n%s", w, block)
				}
			}
			home := t.TempDir()
			file := "[providers.local]\nkind = \"ollama\"\nbase_url = \"http://127.0.0.1:9\"\n\n" + block
			os.WriteFile(filepath.Join(home, "pi.toml"), []byte(file), 0o644)
			cfg, err := config.Load(home, "", false)
			if err != nil {
				t.Fatalf("%v\n%s", err, file)
			}
			models := cfg.Providers["local"].Models
			if len(models) != 1 || models[0].ID != "qwen3:1.7b" || models[0].ContextWindow != max(tc.r.Window.Server, tc.r.Window.Planned) ||
				models[0].ArgumentRepair == nil || !*models[0].ArgumentRepair || len(cfg.Tools) != 0 || cfg.Subagents.Enabled != nil {
				t.Fatalf("config read %+v (tools %v, subagents %+v) from\n%s", models, cfg.Tools, cfg.Subagents, file)
			}
		})
	}
}

func TestWriteBlocks(t *testing.T) {
	block := "# pi doctor\n[[providers.local.models]]\nid = \"m\"\ncontext_window = 4096\n"
	rep := &Report{Model: "local/m", Suggest: block}
	for _, tc := range []struct {
		name, file string
		code       int
		stderr     string
		written    bool
	}{
		{"no file yet", "", 0, "", true},
		{"no newline at the end", "model = \"local/m\"", 0, "", true},
		{"the file describes it already", "[[providers.local.models]]\nid = \"m\"\n", 1, "already describes local/m", false},
		{"the block would break the file", "[providers.local.models]\nid = \"x\"\n", 1, "would break the file", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "pi.toml")
			if tc.file != "" {
				os.WriteFile(path, []byte(tc.file), 0o644)
			}
			var shown, stderr bytes.Buffer
			code := writeBlocks(path, []*Report{rep}, true, &shown, &stderr)
			data, _ := os.ReadFile(path)
			if code != tc.code || !strings.Contains(stderr.String(), tc.stderr) {
				t.Fatalf("code %d, stderr %q; want %d, %q", code, stderr.String(), tc.code, tc.stderr)
			}
			if !tc.written {
				if string(data) != tc.file {
					t.Fatalf("the file changed:\n%s", data)
				}
				return
			}
			var check map[string]any
			if _, err := toml.Decode(string(data), &check); err != nil || !strings.HasPrefix(string(data), tc.file) ||
				!strings.HasSuffix(string(data), block) || !strings.Contains(shown.String(), block) {
				t.Fatalf("written %q (%v), shown %q", data, err, shown.String())
			}
		})
	}
}

func TestArguments(t *testing.T) {
	for _, tc := range []struct {
		args  []string
		code  int
		model string
		out   string
	}{
		{[]string{"ollama/m", "--json", "--no-eval"}, -1, "ollama/m", ""},
		{[]string{"--json", "ollama/m"}, -1, "ollama/m", ""},
		{[]string{"a", "b"}, 2, "", "give one model, or --all"},
		{[]string{"--all", "a"}, 2, "", "give one model, or --all"},
		{[]string{"--bogus"}, 2, "", "pi doctor: flag provided but not defined: -bogus (pi doctor -h lists the flags)"},
		{[]string{"-h"}, 0, "", "Usage:\n  pi doctor [provider/model]"},
	} {
		var stdout, stderr bytes.Buffer
		f, err := parseArgs(tc.args, &stdout, &stderr)
		if tc.code == -1 {
			if err != nil || f.model != tc.model || !f.jsonOut {
				t.Errorf("%v: %+v, %v", tc.args, f, err)
			}
			continue
		}
		if code := Main(context.Background(), tc.args, &stdout, &stderr, Options{PiHome: t.TempDir()}); code != tc.code ||
			!strings.Contains(stdout.String()+stderr.String(), tc.out) {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want %d and %q", tc.args, code, stdout.String(), stderr.String(), tc.code, tc.out)
		}
	}
}

// stallingOllama answers what it is asked about the model, but never answers a chat.
func stallingOllama(t *testing.T) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/api/show":
			fmt.Fprint(w, `{"capabilities":["completion","tools"],"model_info":{"general.architecture":"llama","llama.context_length":8192}}`)
		case "/api/ps":
			fmt.Fprint(w, `{"models":[]}`)
		case "/api/chat":
			io.Copy(io.Discard, r.Body) // the server notices the client hang up only once the body is read
			<-r.Context().Done()
		default:
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(srv.Close)
	return srv
}

// A server that never answers a chat: every probe gives up within its bound and says so; the
// window and vision, which the server does answer, are still reported.
func TestProbesOfAStallingServerAreBounded(t *testing.T) {
	srv := stallingOllama(t)
	home := t.TempDir()
	os.WriteFile(filepath.Join(home, "pi.toml"), []byte(fmt.Sprintf("[providers.local]\nkind = \"ollama\"\nbase_url = %q\n", srv.URL)), 0o644)
	cfg, err := config.Load(home, "", false)
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	r, err := Check(context.Background(), cfg, "local/stuck", checkOptions{requestTimeout: 300 * time.Millisecond,
		eval: evalOptionsThatFail(t)})
	if err != nil {
		t.Fatal(err)
	}
	if took := time.Since(start); took > 10*time.Second {
		t.Errorf("the probes took %v", took)
	}
	if r.Tools.Verdict != CallsUnknown || !strings.Contains(r.Tools.Note, "no answer within 300ms") {
		t.Errorf("tools %+v", r.Tools)
	}
	if r.Prefix.Verdict != PrefixUnknown || r.Speed.Prefill != 0 || r.Eval.Ran || !strings.Contains(r.Eval.Note, "not measured") {
		t.Errorf("prefix %+v speed %+v eval %+v", r.Prefix, r.Speed, r.Eval)
	}
	if r.Window.Server != 8192 || !r.Vision.Known || r.Vision.Yes {
		t.Errorf("window %+v vision %+v", r.Window, r.Vision)
	}
}

// evalOptionsThatFail is a Drive the test must not reach.
func evalOptionsThatFail(t *testing.T) eval.Options {
	return eval.Options{Drive: func(context.Context, eval.Run) (eval.Outcome, error) {
		t.Error("the eval ran against a server that does not answer")
		return eval.Outcome{}, nil
	}}
}

// --all checks every model a local server lists, and only local servers'.
func TestAllIsEveryLocalModel(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/api/tags":
			fmt.Fprint(w, `{"models":[{"name":"small:1b"},{"name":"big:8b"}]}`)
		case "/api/show":
			fmt.Fprint(w, `{"capabilities":["completion"]}`)
		default:
			http.NotFound(w, r)
		}
	}))
	defer srv.Close()
	home := t.TempDir()
	file := fmt.Sprintf("[providers.local]\nkind = \"ollama\"\nbase_url = %q\n[providers.hosted]\nkind = \"openai\"\nbase_url = \"https://api.example.com/v1\"\n"+
		"[[providers.hosted.models]]\nid = \"far\"\n", srv.URL)
	os.WriteFile(filepath.Join(home, "pi.toml"), []byte(file), 0o644)
	cfg, err := config.Load(home, "", false)
	if err != nil {
		t.Fatal(err)
	}
	specs, err := modelsToCheck(context.Background(), cfg, &flags{all: true})
	if err != nil {
		t.Fatal(err)
	}
	var local []string
	for _, s := range specs {
		if strings.HasPrefix(s, "hosted/") {
			t.Errorf("--all checks %s, a hosted model", s)
		}
		if strings.HasPrefix(s, "local/") {
			local = append(local, s)
		}
	}
	if strings.Join(local, ",") != "local/big:8b,local/small:1b" {
		t.Errorf("--all checks %v", specs)
	}
}

// fakeLlamaCpp is a llama.cpp server as pi sees it: /props with its n_ctx, and chat
// completions that call the offered tool, or answer in text, with llama.cpp's timings — the
// prompt counted as a quarter of the request's bytes, and everything the previous request
// held taken from the cache.
func fakeLlamaCpp(t *testing.T) *httptest.Server {
	var cached int
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/props":
			fmt.Fprint(w, `{"default_generation_settings":{"n_ctx":4096}}`)
			return
		case "/v1/chat/completions":
		default:
			http.NotFound(w, r)
			return
		}
		body, _ := io.ReadAll(r.Body)
		prompt := len(body) / 4
		hit := min(cached, prompt)
		cached = prompt + 5
		w.Header().Set("Content-Type", "text/event-stream")
		delta, finish := `{"content":"Fine."}`, "stop"
		if strings.Contains(string(body), `"tools"`) {
			delta, finish = `{"tool_calls":[{"index":0,"id":"c1","type":"function","function":{"name":"read","arguments":"{\"path\":\"README.md\"}"}}]}`, "tool_calls"
		}
		fmt.Fprintf(w, "data: {\"choices\":[{\"index\":0,\"delta\":%s,\"finish_reason\":%q}]}\n\n", delta, finish)
		fmt.Fprintf(w, "data: {\"choices\":[],\"usage\":{\"prompt_tokens\":%d,\"completion_tokens\":5},"+
			"\"timings\":{\"prompt_n\":%d,\"prompt_ms\":%d,\"cache_n\":%d,\"predicted_n\":5,\"predicted_ms\":250}}\n\ndata: [DONE]\n\n",
			prompt, prompt-hit, (prompt-hit)*10, hit)
	}))
	t.Cleanup(srv.Close)
	return srv
}

// Against llama.cpp: the window from /props, speeds from its timings (100 prompt tokens a
// second, 20 output tokens a second), and prefix re-use from what it says it took from its
// cache.
func TestProbesOfALlamaCppServer(t *testing.T) {
	srv := fakeLlamaCpp(t)
	home := t.TempDir()
	os.WriteFile(filepath.Join(home, "pi.toml"), []byte(fmt.Sprintf("[providers.llama]\nkind = \"openai\"\nbase_url = %q\n", srv.URL+"/v1")), 0o644)
	cfg, err := config.Load(home, "", false)
	if err != nil {
		t.Fatal(err)
	}
	r, err := Check(context.Background(), cfg, "llama/qwen", checkOptions{noEval: true})
	if err != nil {
		t.Fatal(err)
	}
	if r.Window.Server != 4096 || !strings.Contains(r.Window.Note, "/props") {
		t.Errorf("window %+v", r.Window)
	}
	if r.Tools.Verdict != CallsStructured || r.Tools.ToolsAsText {
		t.Errorf("tools %+v", r.Tools)
	}
	if r.Speed.Prefill < 99 || r.Speed.Prefill > 101 || r.Speed.Decode < 19.9 || r.Speed.Decode > 20.1 {
		t.Errorf("speed %+v", r.Speed)
	}
	if r.Prefix.Verdict != PrefixReused || !strings.Contains(r.Prefix.Note, "from its cache") {
		t.Errorf("prefix %+v", r.Prefix)
	}
	if r.Vision.Known {
		t.Errorf("vision %+v: llama.cpp does not say", r.Vision)
	}
	if !strings.Contains(r.Suggest, "context_window = 4096") || !strings.Contains(r.Suggest, `# for every model, so not set here: tools = [`) {
		t.Errorf("block:\n%s", r.Suggest)
	}
}
