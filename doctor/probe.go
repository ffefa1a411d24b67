package doctor

// The probes: each sends a bounded request (or asks the server) and turns the answer into a
// finding with a note on how it was measured.

import (
	"cmp"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"
	"time"

	"pi/config"
	"pi/eval"
	"pi/provider"
	"pi/provider/ollama"
	"pi/provider/textcalls"
)

// Time bounds. A request may have to load the model first, which takes seconds for a few GB.
const (
	resolveTimeout = 20 * time.Second
	requestTimeout = 90 * time.Second
	askTimeout     = 5 * time.Second // a question to the server (/api/show, /api/ps)
	evalTimeout    = 4 * time.Minute
)

type checkOptions struct {
	eval     eval.Options
	noEval   bool
	progress io.Writer // one line per step, so a slow model shows what it is doing
	// requestTimeout bounds each probe request; 0 is requestTimeout (tests shorten it).
	requestTimeout time.Duration
}

// prober probes one model through its provider.
type prober struct {
	p provider.Provider
	m provider.Model
	o checkOptions
}

// Check measures the model spec names ("" is the configured or discovered one).
func Check(ctx context.Context, cfg *config.Config, spec string, o checkOptions) (*Report, error) {
	rctx, cancel := context.WithTimeout(ctx, resolveTimeout)
	p, m, err := cfg.ResolveModel(rctx, spec)
	cancel()
	if err != nil {
		return nil, err
	}
	m.NoTextToolCalls = false // the probe wants to see the shape even where pi.toml turned recovery off
	pr := &prober{p: p, m: m, o: o}
	r := &Report{Model: m.Provider + "/" + m.ID, API: m.API, BaseURL: m.BaseURL}
	caps, capsKnown := pr.capabilities(ctx)
	pr.step("tool calls")
	var first *provider.Timings
	r.Tools, first = pr.tools(ctx, caps, capsKnown)
	r.Window = pr.window(ctx, cfg)
	r.Vision = vision(m, caps, capsKnown)
	if silent := strings.HasPrefix(r.Tools.Note, "no answer"); silent {
		// A model that did not answer once will not answer three times or run three tasks.
		note := "not measured: the tool-call probe got " + r.Tools.Note
		r.Prefix, r.Speed, r.Eval = Prefix{Verdict: PrefixUnknown, Note: note}, Speed{Note: note, DecodeNote: note}, Eval{Note: note}
	} else {
		pr.step("prefill, decode and prefix re-use over three turns")
		r.Prefix, r.Speed = pr.turns(ctx, first)
		r.Eval = pr.eval(ctx, r.Model)
	}
	r.Suggest, r.Existing = suggest(cfg, r, m.Provider, m.ID)
	return r, nil
}

func (pr *prober) step(what string) {
	if pr.o.progress != nil {
		fmt.Fprintf(pr.o.progress, "pi doctor: %s/%s: %s…\n", pr.m.Provider, pr.m.ID, what)
	}
}

// capabilities are what an Ollama server reports for the model; other servers say nothing.
func (pr *prober) capabilities(ctx context.Context) ([]string, bool) {
	op, ok := pr.p.(*ollama.Provider)
	if !ok {
		return nil, false
	}
	actx, cancel := context.WithTimeout(ctx, askTimeout)
	defer cancel()
	_, caps, err := op.Describe(actx, pr.m.ID)
	return caps, err == nil && len(caps) > 0
}

// stream sends one request within requestTimeout.
func (pr *prober) stream(ctx context.Context, req *provider.Request) provider.Message {
	sctx, cancel := context.WithTimeout(ctx, pr.timeout())
	defer cancel()
	zero := 0.0
	req.Model, req.Options.Temperature = pr.m, &zero
	return pr.p.Stream(sctx, req, func(provider.Event) {})
}

func (pr *prober) timeout() time.Duration {
	if pr.o.requestTimeout > 0 {
		return pr.o.requestTimeout
	}
	return requestTimeout
}

// failure is why a reply is not an answer, "" when it is one.
func (pr *prober) failure(msg *provider.Message) string {
	switch msg.StopReason {
	case provider.StopError, provider.StopAborted:
		if strings.Contains(msg.ErrorMessage, "deadline") || msg.StopReason == provider.StopAborted {
			return fmt.Sprintf("no answer within %s", pr.timeout())
		}
		return "the request failed: " + provider.OneLine(msg.ErrorMessage, 120)
	}
	return ""
}

const probeSystem = "You are a coding agent. Use the tools you are given to answer."

const toolAsk = "Read the file README.md with the read tool."

var readToolSchema = json.RawMessage(`{"type":"object","properties":{"path":{"type":"string","description":"the file to read"}},"required":["path"]}`)

// tools offers one read tool and sees how the call comes back.
func (pr *prober) tools(ctx context.Context, caps []string, capsKnown bool) (Tools, *provider.Timings) {
	t := Tools{ToolsAsText: capsKnown && !slices.Contains(caps, "tools")}
	msg := pr.stream(ctx, &provider.Request{SystemPrompt: probeSystem,
		Messages: []provider.Message{provider.UserText(toolAsk, time.Now().UnixMilli())},
		Tools:    []provider.ToolDef{{Name: "read", Description: "Read a file", Parameters: readToolSchema}},
		Options:  provider.Options{MaxTokens: 256}})
	var timings *provider.Timings
	if msg.Usage != nil {
		timings = msg.Usage.Timings
	}
	if why := pr.failure(&msg); why != "" {
		t.Verdict, t.Note = CallsUnknown, why
		return t, timings
	}
	calls, recovered := msg.ToolCalls(), textcalls.Recovered(&msg)
	switch {
	case recovered > 0:
		t.Verdict, t.Shape = CallsText, strings.Join(textcalls.Formats(&msg), ", ")
		t.Note = "the model wrote the read call as text; pi's recovery read it"
	case len(calls) > 0:
		t.Verdict, t.Note = CallsStructured, "the read call came back as a tool call"
	default:
		t.Verdict, t.Note = CallsNone, fmt.Sprintf("the reply to a read request held no call: %q", provider.OneLine(msg.TextContent(), 60))
	}
	if t.ToolsAsText {
		t.Note = "the server reports no tools capability, so pi sends the tools as text; " + t.Note
	}
	if len(calls) > 0 && (calls[0].Name != "read" || calls[0].Arguments["path"] != "README.md") {
		args, _ := json.Marshal(calls[0].Arguments)
		t.Note += fmt.Sprintf(" (but it called %s %s)", calls[0].Name, args)
	}
	return t, timings
}

// window compares what the server gives with pi.toml. It runs after a request, so that an
// Ollama runner is loaded and reports the size it was started with.
func (pr *prober) window(ctx context.Context, cfg *config.Config) Window {
	w := Window{Planned: pr.m.ContextWindow, Configured: configuredWindow(cfg, pr.m.Provider, pr.m.ID)}
	actx, cancel := context.WithTimeout(ctx, askTimeout)
	defer cancel()
	w.Server, w.Note = pr.serverWindow(actx)
	if w.Server > 0 && w.Server < pr.m.ContextWindow {
		w.Note += fmt.Sprintf("; less than pi plans for (%d)", pr.m.ContextWindow)
	}
	return w
}

// serverWindow asks the server: Ollama natively (also behind its OpenAI-compatible endpoint on
// this machine), else llama.cpp's /props.
func (pr *prober) serverWindow(ctx context.Context) (int, string) {
	op, native := pr.p.(*ollama.Provider)
	root := strings.TrimSuffix(strings.TrimRight(pr.m.BaseURL, "/"), "/v1")
	if !native && isLocal(pr.m.BaseURL) && pr.m.API == "openai" {
		op, _ = ollama.New(ollama.Config{BaseURL: root}, nil)
	}
	if op != nil {
		if n, why := op.Window(ctx, pr.m.ID, 0); n > 0 {
			return n, cmp.Or(why, "Ollama's answer")
		}
	}
	if n := llamaCppWindow(ctx, root); n > 0 {
		return n, "llama.cpp's /props (n_ctx)"
	}
	return 0, "the server does not say (Ollama and llama.cpp do); pi plans for pi.toml's window or its default"
}

// llamaCppWindow is the n_ctx a llama.cpp server at root reports, 0 when it does not answer.
func llamaCppWindow(ctx context.Context, root string) int {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, root+"/props", nil)
	if err != nil || !isLocal(root) { // a hosted API has no /props, and is not asked
		return 0
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return 0
	}
	defer resp.Body.Close()
	var props struct {
		Settings struct {
			NCtx int `json:"n_ctx"`
		} `json:"default_generation_settings"`
	}
	if resp.StatusCode != http.StatusOK || json.NewDecoder(io.LimitReader(resp.Body, 1<<20)).Decode(&props) != nil {
		return 0
	}
	return props.Settings.NCtx
}

// configuredWindow is pi.toml's context_window for the model, 0 when not set.
func configuredWindow(cfg *config.Config, prov, id string) int {
	if pc := cfg.Providers[prov]; pc != nil {
		if i := slices.IndexFunc(pc.Models, func(m config.ModelConfig) bool { return m.ID == id }); i >= 0 {
			return pc.Models[i].ContextWindow
		}
	}
	return 0
}

func vision(m provider.Model, caps []string, capsKnown bool) Vision {
	if capsKnown {
		return Vision{Known: true, Yes: slices.Contains(caps, "vision"), Note: "the server's capabilities"}
	}
	if m.AcceptsImages() {
		return Vision{Known: true, Yes: true, Note: "pi.toml's input says so (not probed)"}
	}
	return Vision{Note: "the server does not say (only Ollama does)"}
}

// eval runs the three smoke tasks, within evalTimeout.
func (pr *prober) eval(ctx context.Context, model string) Eval {
	switch {
	case pr.o.noEval:
		return Eval{Note: "left out (--no-eval)"}
	case pr.o.eval.Drive == nil:
		return Eval{Note: "not available in this build"}
	}
	pr.step("pi eval of " + strings.Join(eval.SmokeTasks(), ", "))
	ectx, cancel := context.WithTimeout(ctx, evalTimeout)
	defer cancel()
	start := time.Now()
	runs, err := eval.Smoke(ectx, model, eval.SmokeTasks(), pr.o.eval, progressOrDiscard(pr.o.progress))
	if err != nil {
		return Eval{Note: "could not run: " + oneLine(err)}
	}
	e := Eval{Ran: true, Runs: runs}
	for _, r := range runs {
		if r.Pass {
			e.Passed++
		}
	}
	e.Note = fmt.Sprintf("built-in tasks, one run each, %.0fs", time.Since(start).Seconds())
	if len(runs) < len(eval.SmokeTasks()) {
		e.Note += fmt.Sprintf("; %d not run within %s", len(eval.SmokeTasks())-len(runs), evalTimeout)
	}
	return e
}

func progressOrDiscard(w io.Writer) io.Writer {
	if w == nil {
		return io.Discard
	}
	return w
}

// nonce makes the first prompt of the turns probe new to the server's cache, so its prefill is
// measured cold.
func nonce() string {
	b := make([]byte, 6)
	rand.Read(b)
	return hex.EncodeToString(b)
}
