// Package config owns pi.toml: reading $PI_HOME/pi.toml and the project's .pi/pi.toml,
// merging them, parsing --model specs, and turning a spec into a ready provider and model
// description, over the providers a session's scripts define (defined.go). It does not wire the agent (the root package does) and never writes a key
// anywhere: keys are read at resolve time and handed only to the adapter. A project's file
// applies in part only until its directory is trusted (safety.go).
package config

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"
	"unicode"

	"github.com/BurntSushi/toml"

	"pi/internal/proc"
	"pi/internal/safefile"
	"pi/internal/sandbox"
	"pi/provider"
	"pi/provider/anthropic"
	"pi/provider/ollama"
	"pi/provider/openai"
)

// Config is the merged pi.toml.
type Config struct {
	Model     string                     `toml:"model"`    // "provider/model[:thinking]"
	Thinking  string                     `toml:"thinking"` // off, minimal, low, medium, high, xhigh, max
	Retry     RetryConfig                `toml:"retry"`
	Stream    StreamConfig               `toml:"stream"`
	Providers map[string]*ProviderConfig `toml:"providers"`

	Tools        []string          `toml:"tools"`          // active tools; default read, bash, edit, write
	SteeringMode string            `toml:"steering_mode"`  // one-at-a-time (default) or all
	FollowUpMode string            `toml:"follow_up_mode"` // one-at-a-time (default) or all
	SessionDir   string            `toml:"session_dir"`    // where sessions go instead of $PI_HOME/sessions/<cwd>
	Compaction   CompactionConfig  `toml:"compaction"`
	Session      SessionConfig     `toml:"session"` // sessions.go
	Bash         BashConfig        `toml:"bash"`
	Lua          LuaConfig         `toml:"lua"`
	UI           UIConfig          `toml:"ui"`
	Keys         map[string]any    `toml:"keys"` // action = "key" or ["key", ...]; see KeyBindings
	Sandbox      sandbox.Settings  `toml:"sandbox"`
	Permissions  PermissionsConfig `toml:"permissions"` // safety.go
	Secrets      SecretsConfig     `toml:"secrets"`
	Images       ImagesConfig      `toml:"images"`
	Log          LogConfig         `toml:"log"`
	Ollama       OllamaConfig      `toml:"ollama"` // ollama.go

	MCP       MCPConfig       `toml:"mcp"`
	Subagents SubagentsConfig `toml:"subagents"`
	// Checkpoints configures the bundled checkpoints script (checkpoints.go).
	Checkpoints CheckpointsConfig `toml:"checkpoints"`
	// ProjectIgnored lists the keys of the project's pi.toml that were not applied because
	// its directory is not trusted (see Load).
	ProjectIgnored []string `toml:"-"`

	// Files lists the files that were read, in order; Warnings what was ignored in them.
	Files    []string `toml:"-"`
	Warnings []string `toml:"-"`

	projectMCP bool                                          // the project's file names MCP servers (applied once it is trusted)
	sections   map[string]any                                // every top-level table as merged, for Section
	getenv     func(string) string                           // os.Getenv; tests replace it
	warned     map[string]bool                               // models whose smaller window was warned about
	runCmd     func(context.Context, string) (string, error) // runs api_key_cmd
	keysRead   *keyRing                                      // what api_key_cmd printed, for redaction
	defs       func() []provider.Definition                  // the scripts' providers (WithDefinitions)
	origins    map[string]string                             // which file set a compaction budget (checkBudgets)
}

// CompactionConfig is the [compaction] table. Zero token budgets scale with the model's
// context window (see session.Settings).
type CompactionConfig struct {
	Enabled          *bool `toml:"enabled"`
	ReserveTokens    int   `toml:"reserve_tokens"`
	KeepRecentTokens int   `toml:"keep_recent_tokens"`
}

// LogConfig is the [log] table. An untrusted project's file cannot set it (it names a file).
type LogConfig struct {
	// Responses is a file that gets one JSON line per model response (tokens and cost); a
	// relative path is relative to $PI_HOME.
	Responses string `toml:"responses"`
}

// ImagesConfig is the [images] table.
type ImagesConfig struct {
	// Show draws small previews of pictures where the terminal can (kitty, iTerm2); false
	// keeps to a one-line placeholder. Default true.
	Show *bool `toml:"show"`
}

// ShowImages reports whether the terminal UI may draw picture previews ([images] show).
func (c *Config) ShowImages() bool { return c.Images.Show == nil || *c.Images.Show }

// LuaConfig is the [lua] table.
type LuaConfig struct {
	Disable []string `toml:"disable"` // bundled scripts not to load, e.g. ["skills"]
}

// BashConfig is the [bash] table.
type BashConfig struct {
	TimeoutSeconds int    `toml:"timeout"` // default 600
	Shell          string `toml:"shell"`   // default bash from PATH, else sh
}

// RetryConfig is the [retry] table. Pointers tell "not set" from zero, so files merge.
type RetryConfig struct {
	Enabled     *bool `toml:"enabled"`
	MaxRetries  *int  `toml:"max_retries"`
	BaseDelayMs *int  `toml:"base_delay_ms"`
	MaxDelayMs  *int  `toml:"max_delay_ms"`
}

// StreamConfig is the [stream] table: how long a model server may keep a reply waiting, in
// seconds; 0 means the default (provider.DefaultFirstByteTimeout, DefaultIdleTimeout).
type StreamConfig struct {
	FirstByteTimeout int `toml:"first_byte_timeout"` // until the reply's first byte of data
	IdleTimeout      int `toml:"idle_timeout"`       // without a byte of data once it has started
}

// ProviderConfig is one [providers.<name>] table.
type ProviderConfig struct {
	Kind      string            `toml:"kind"` // ollama, openai or anthropic
	BaseURL   string            `toml:"base_url"`
	APIKeyEnv string            `toml:"api_key_env"`
	APIKeyCmd string            `toml:"api_key_cmd"`
	Headers   map[string]string `toml:"headers"`
	Models    []ModelConfig     `toml:"models"`
	// Ollama only: the cap on a model's own context length when it has no context_window,
	// and how long the server keeps a model loaded ("30m"; "-1" forever).
	DefaultNumCtx int    `toml:"default_num_ctx"`
	KeepAlive     string `toml:"keep_alive"`
	// Switches every model of the provider inherits; a model's own entry wins. By default tool
	// calls a model writes as text are recovered, and tool arguments are constrained to the
	// tool's schema where pi knows the server can do it (OpenAI's strict tools); true asks any
	// OpenAI-compatible server for strict tools. A call whose arguments still fail validation is
	// asked for once more with the reply constrained to the tool's schema, unless
	// argument_repair is false.
	TextToolCalls       *bool `toml:"text_tool_calls"`
	ConstrainedSampling *bool `toml:"constrained_sampling"`
	ArgumentRepair      *bool `toml:"argument_repair"`
	// Prewarm lets the terminal UI send the next request's prefix while the user types, so the
	// server has it evaluated when Enter is pressed. Default: only for a server on this machine
	// (a hosted API would bill it).
	Prewarm *bool `toml:"prewarm"`

	fromFile bool // named in a file (or by a script), not only built in
	// What a script's definition adds (defined.go): its own kind, computed models, a literal key.
	stream     provider.Provider
	listModels func(context.Context) ([]provider.Model, error)
	apiKey     string
}

// ModelConfig is one [[providers.<name>.models]] entry.
type ModelConfig struct {
	ID            string     `toml:"id"`
	Name          string     `toml:"name"`
	ContextWindow int        `toml:"context_window"`
	MaxTokens     int        `toml:"max_tokens"`
	Reasoning     *bool      `toml:"reasoning"`
	Input         []string   `toml:"input"`
	Cost          CostConfig `toml:"cost"`
	// As the provider's switches, for this model only.
	TextToolCalls       *bool `toml:"text_tool_calls"`
	ConstrainedSampling *bool `toml:"constrained_sampling"`
	ArgumentRepair      *bool `toml:"argument_repair"`
}

// CostConfig is a model's price in US dollars per million tokens.
type CostConfig struct {
	Input      float64 `toml:"input"`
	Output     float64 `toml:"output"`
	CacheRead  float64 `toml:"cache_read"`
	CacheWrite float64 `toml:"cache_write"`
}

// Provider kinds, the wire formats pi speaks.
const (
	kindOllama    = "ollama"
	kindOpenAI    = "openai"
	kindAnthropic = "anthropic"
)

// ThinkingLevels are pi's thinking levels, in order.
func ThinkingLevels() []string {
	return []string{"off", "minimal", "low", "medium", "high", "xhigh", "max"}
}

func IsThinkingLevel(s string) bool { return slices.Contains(ThinkingLevels(), s) }

// LevelOrOff is level, or "off" when no level is set.
func LevelOrOff(level string) string { return cmp.Or(level, "off") }

// builtinProviders are known without any file: the local servers at their default ports
// and the hosted APIs with their usual key variables. A file overrides any field.
func builtinProviders() map[string]*ProviderConfig {
	return map[string]*ProviderConfig{
		"ollama":     {Kind: kindOllama},
		"lmstudio":   {Kind: kindOpenAI, BaseURL: "http://127.0.0.1:1234/v1"},
		"llamacpp":   {Kind: kindOpenAI, BaseURL: "http://127.0.0.1:8080/v1"},
		"openai":     {Kind: kindOpenAI, BaseURL: "https://api.openai.com/v1", APIKeyEnv: "OPENAI_API_KEY"},
		"anthropic":  {Kind: kindAnthropic, BaseURL: "https://api.anthropic.com", APIKeyEnv: "ANTHROPIC_API_KEY"},
		"openrouter": {Kind: kindOpenAI, BaseURL: "https://openrouter.ai/api/v1", APIKeyEnv: "OPENROUTER_API_KEY"},
	}
}

// Load reads piHome/pi.toml, then cwd/.pi/pi.toml over it. Missing files are fine; a
// file that does not parse is an error naming it. The project file is trusted less: it cannot
// name where keys come from, nor point a provider that has a key somewhere else, since a
// cloned repository could otherwise run commands or send the user's key to its own server.
// Unless projectTrusted (the user trusted the directory, as for its .pi/init.lua), it sets
// only what can neither send data anywhere nor run anything (see untrustedKeys); the rest
// is listed in ProjectIgnored.
func Load(piHome, cwd string, projectTrusted bool) (*Config, error) {
	c := &Config{Providers: builtinProviders(), sections: map[string]any{}, getenv: os.Getenv, runCmd: runKeyCmd,
		keysRead: &keyRing{}}
	var paths []string
	if piHome != "" {
		paths = append(paths, filepath.Join(piHome, "pi.toml"))
	}
	if cwd != "" {
		paths = append(paths, filepath.Join(cwd, ".pi", "pi.toml"))
	}
	for i, path := range paths {
		if i == 1 && len(paths) == 2 && filepath.Clean(path) == filepath.Clean(paths[0]) {
			break // started in the home directory: the project file is the user's file
		}
		project := i == 1 || piHome == ""
		if err := c.mergeFile(path, project, project && !projectTrusted); err != nil {
			return nil, err
		}
	}
	return c, c.validate()
}

func (c *Config) mergeFile(path string, project, untrusted bool) error {
	data, err := safefile.ReadFile(context.Background(), path, safefile.MaxTextFile)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("reading %s: %w", path, err)
	}
	var file Config
	md, err := toml.Decode(string(data), &file)
	if err != nil {
		return fmt.Errorf("parsing %s: %w", path, err)
	}
	var sections map[string]any
	if _, err := toml.Decode(string(data), &sections); err != nil {
		return fmt.Errorf("parsing %s: %w", path, err)
	}
	if err := checkNumbers(path, &file); err != nil {
		return err
	}
	c.Files = append(c.Files, path)
	for _, key := range md.Undecoded() {
		if key[0] != "extensions" { // [extensions.<name>] belongs to the scripts
			c.warnf("%s: unknown key %q ignored", path, key.String())
		}
	}
	if project && len(file.MCP.Servers) > 0 {
		c.projectMCP = true // asked about even while untrusted, when the servers are dropped
	}
	if untrusted {
		file, c.ProjectIgnored = untrustedPart(&file, md)
		safeSections(sections)
		if len(c.ProjectIgnored) > 0 {
			c.warnf("%s: this directory is not trusted, so these keys were ignored: %s (they could send your data elsewhere "+
				"or run commands; `pi trust` or --trust applies them)", path, strings.Join(c.ProjectIgnored, ", "))
		}
		c.keepTighterLimits(path, &file)
	}
	mergeSections(c.sections, sections)
	if project && file.Bash.Shell != "" {
		c.warnf("%s: bash.shell is only read from $PI_HOME/pi.toml; ignored", path)
		file.Bash.Shell = ""
	}
	if project && file.Ollama.Start != "" {
		c.warnf("%s: ollama.start is only read from $PI_HOME/pi.toml (it starts a program); ignored", path)
		file.Ollama.Start = ""
	}
	c.noteOrigins(path, &file)
	c.mergeScalars(&file)
	c.mergeUI(&file)
	c.mergeSandbox(path, file.Sandbox, project)
	c.mergeSafety(&file, untrusted)
	for name, p := range file.Providers {
		c.mergeProvider(path, name, p, project)
	}
	c.mergeMCP(path, &file.MCP, project)
	c.mergeSubagents(&file)
	c.mergeCheckpoints(&file)
	return nil
}

func (c *Config) warnf(format string, args ...any) {
	c.Warnings = append(c.Warnings, fmt.Sprintf(format, args...))
}

func (c *Config) mergeScalars(f *Config) {
	if f.Model != "" {
		c.Model = f.Model
	}
	if f.Thinking != "" {
		c.Thinking = f.Thinking
	}
	for _, p := range []struct{ dst, src *string }{{&c.SteeringMode, &f.SteeringMode}, {&c.FollowUpMode, &f.FollowUpMode},
		{&c.SessionDir, &f.SessionDir}, {&c.Bash.Shell, &f.Bash.Shell}, {&c.Log.Responses, &f.Log.Responses},
		{&c.Ollama.Start, &f.Ollama.Start}} {
		if *p.src != "" {
			*p.dst = *p.src
		}
	}
	c.mergeSession(&f.Session)
	if f.Tools != nil {
		c.Tools = f.Tools
	}
	if f.Lua.Disable != nil {
		c.Lua.Disable = f.Lua.Disable
	}
	if f.Compaction.Enabled != nil {
		c.Compaction.Enabled = f.Compaction.Enabled
	}
	if f.Images.Show != nil {
		c.Images.Show = f.Images.Show
	}
	for _, p := range []struct{ dst, src *int }{{&c.Compaction.ReserveTokens, &f.Compaction.ReserveTokens},
		{&c.Compaction.KeepRecentTokens, &f.Compaction.KeepRecentTokens}, {&c.Bash.TimeoutSeconds, &f.Bash.TimeoutSeconds},
		{&c.Stream.FirstByteTimeout, &f.Stream.FirstByteTimeout}, {&c.Stream.IdleTimeout, &f.Stream.IdleTimeout}} {
		if *p.src != 0 {
			*p.dst = *p.src
		}
	}
	r := &c.Retry
	for _, p := range []struct{ dst, src **int }{{&r.MaxRetries, &f.Retry.MaxRetries},
		{&r.BaseDelayMs, &f.Retry.BaseDelayMs}, {&r.MaxDelayMs, &f.Retry.MaxDelayMs}} {
		if *p.src != nil {
			*p.dst = *p.src
		}
	}
	if f.Retry.Enabled != nil {
		r.Enabled = f.Retry.Enabled
	}
}

// mergeProvider lays src over the provider of that name. Models are upserted by id.
func (c *Config) mergeProvider(path, name string, src *ProviderConfig, project bool) {
	dst := c.Providers[name]
	if dst == nil {
		dst = &ProviderConfig{}
		c.Providers[name] = dst
	}
	dst.fromFile = true
	if project && (src.APIKeyEnv != "" || src.APIKeyCmd != "") {
		c.warnf("%s: providers.%s: api_key_env and api_key_cmd are only read from $PI_HOME/pi.toml; ignored", path, name)
		src.APIKeyEnv, src.APIKeyCmd = "", ""
	}
	if project && (dst.APIKeyEnv != "" || dst.APIKeyCmd != "") && (src.BaseURL != "" && src.BaseURL != dst.BaseURL || len(src.Headers) > 0) {
		c.warnf("%s: providers.%s: a project file cannot change base_url or headers of a provider with a key; ignored", path, name)
		src.BaseURL, src.Headers = "", nil
	}
	for _, f := range []struct{ dst, src *string }{{&dst.Kind, &src.Kind}, {&dst.BaseURL, &src.BaseURL},
		{&dst.APIKeyEnv, &src.APIKeyEnv}, {&dst.APIKeyCmd, &src.APIKeyCmd}, {&dst.KeepAlive, &src.KeepAlive}} {
		if *f.src != "" {
			*f.dst = *f.src
		}
	}
	if src.DefaultNumCtx != 0 {
		dst.DefaultNumCtx = src.DefaultNumCtx
	}
	for _, f := range []struct{ dst, src **bool }{{&dst.TextToolCalls, &src.TextToolCalls},
		{&dst.ConstrainedSampling, &src.ConstrainedSampling}, {&dst.ArgumentRepair, &src.ArgumentRepair}, {&dst.Prewarm, &src.Prewarm}} {
		if *f.src != nil {
			*f.dst = *f.src
		}
	}
	for k, v := range src.Headers {
		if dst.Headers == nil {
			dst.Headers = map[string]string{}
		}
		dst.Headers[k] = v
	}
	for _, m := range src.Models {
		if i := slices.IndexFunc(dst.Models, func(o ModelConfig) bool { return o.ID == m.ID }); i >= 0 {
			dst.Models[i] = m
		} else {
			dst.Models = append(dst.Models, m)
		}
	}
}

// mergeSections merges src into dst, tables recursively, anything else replaced.
func mergeSections(dst, src map[string]any) {
	for k, v := range src {
		if sv, ok := v.(map[string]any); ok {
			if dv, ok := dst[k].(map[string]any); ok {
				mergeSections(dv, sv)
				continue
			}
			cp := map[string]any{}
			mergeSections(cp, sv)
			v = cp
		}
		dst[k] = v
	}
}

func (c *Config) validate() error {
	if c.Thinking != "" && !IsThinkingLevel(c.Thinking) {
		return fmt.Errorf("pi.toml: thinking = %q: want one of %s", c.Thinking, strings.Join(ThinkingLevels(), ", "))
	}
	for key, mode := range map[string]string{"steering_mode": c.SteeringMode, "follow_up_mode": c.FollowUpMode} {
		if mode != "" && mode != "one-at-a-time" && mode != "all" { // agent.OneAtATime, agent.AllAtOnce
			return fmt.Errorf("pi.toml: %s = %q: want \"one-at-a-time\" or \"all\"", key, mode)
		}
	}
	if err := c.Session.validate(); err != nil {
		return err
	}
	if _, err := c.KeyBindings(); err != nil {
		return err
	}
	if err := c.Checkpoints.validate(); err != nil {
		return err
	}
	if err := c.Sandbox.Validate(); err != nil {
		return fmt.Errorf("pi.toml: %w", err)
	}
	if err := c.Permissions.validate(); err != nil {
		return err
	}
	if err := c.Ollama.validate(); err != nil {
		return err
	}
	for _, name := range c.providerNames() {
		p := c.Providers[name]
		switch p.Kind {
		case kindOllama, kindOpenAI, kindAnthropic:
		default:
			return fmt.Errorf("pi.toml: providers.%s: kind = %q: want ollama, openai or anthropic", name, p.Kind)
		}
		if p.Kind == kindOpenAI && p.BaseURL == "" {
			return fmt.Errorf("pi.toml: providers.%s: an openai provider needs base_url (e.g. http://127.0.0.1:1234/v1)", name)
		}
		for i, m := range p.Models {
			if m.ID == "" {
				return fmt.Errorf("pi.toml: providers.%s.models[%d]: id is missing", name, i)
			}
		}
		if _, err := keepAlive(p.KeepAlive); err != nil {
			return fmt.Errorf("pi.toml: providers.%s: %w", name, err)
		}
	}
	return nil
}

func (c *Config) providerNames() []string {
	var names []string
	for _, np := range c.providerList() {
		names = append(names, np.name)
	}
	return names
}

// Section returns the merged top-level table name (e.g. "extensions"), for settings that
// other parts of pi own. Nil when no file has it.
func (c *Config) Section(name string) map[string]any {
	t, _ := c.sections[name].(map[string]any)
	return t
}

// RetryPolicy is the [retry] table over pi's defaults (3 retries after 2, 4, 8 s; a server
// asking for more than 60 s is not waited for).
func (c *Config) RetryPolicy() provider.RetryPolicy {
	p := provider.DefaultRetryPolicy()
	r := c.Retry
	if r.MaxRetries != nil {
		p.MaxRetries = *r.MaxRetries
	}
	if r.BaseDelayMs != nil {
		p.BaseDelay = time.Duration(*r.BaseDelayMs) * time.Millisecond
	}
	if r.MaxDelayMs != nil {
		p.MaxDelay = time.Duration(*r.MaxDelayMs) * time.Millisecond
	}
	if r.Enabled != nil && !*r.Enabled {
		p.MaxRetries = 0
	}
	return p
}

// maxStreamTimeout keeps a timeout's nanoseconds inside time.Duration: about 31 years.
const maxStreamTimeout = 1e9

// StreamTimeouts is the [stream] table over pi's defaults (300 s to the first byte of a reply,
// 120 s without a byte once it has started).
func (c *Config) StreamTimeouts() provider.StreamTimeouts {
	return provider.StreamTimeouts{FirstByte: time.Duration(c.Stream.FirstByteTimeout) * time.Second,
		Idle: time.Duration(c.Stream.IdleTimeout) * time.Second}.WithDefaults()
}

func keepAlive(s string) (time.Duration, error) {
	switch s {
	case "":
		return 0, nil
	case "-1":
		return -1, nil
	}
	d, err := time.ParseDuration(s)
	if err != nil {
		return 0, fmt.Errorf("keep_alive = %q: want a duration such as \"30m\", or \"-1\" for forever", s)
	}
	if d == 0 {
		d = time.Nanosecond // Ollama reads 0 as "unload at once"; our 0 means the default
	}
	return d, nil
}

// runKeyCmd runs an api_key_cmd through the shell and returns its trimmed output. The
// error never carries the output, which may hold the key.
func runKeyCmd(ctx context.Context, command string) (string, error) {
	const limit = 10 * time.Second
	res, err := proc.Capture(ctx, proc.CaptureSpec{Command: command, Timeout: limit, MaxBytes: 64 << 10})
	switch { // never the command or its output in the error: either may hold the key
	case err != nil:
		return "", errors.New("api_key_cmd failed: the shell could not start it")
	case res.Killed:
		return "", fmt.Errorf("api_key_cmd failed: it did not finish within %s", limit)
	case res.Code != 0:
		return "", fmt.Errorf("api_key_cmd failed: exit status %d", res.Code)
	}
	return strings.TrimSpace(res.Stdout), nil
}

// ParseModelSpec splits "provider/model[:thinking]". The provider is everything before the
// first "/"; a ":suffix" is a thinking level only when it names one, so "ollama/qwen3:1.7b"
// keeps its tag and "ollama/qwen3:1.7b:high" asks for high thinking. A spec without "/" is a
// model id (or a provider name) with an empty provider.
func ParseModelSpec(spec string) (providerName, modelID, thinking string, err error) {
	spec = strings.TrimSpace(spec)
	if spec == "" {
		return "", "", "", errors.New("empty model spec: want provider/model[:thinking]")
	}
	providerName, modelID, found := strings.Cut(spec, "/")
	if !found {
		providerName, modelID = "", spec
	}
	if i := strings.LastIndex(modelID, ":"); i >= 0 && IsThinkingLevel(modelID[i+1:]) {
		modelID, thinking = modelID[:i], modelID[i+1:]
	}
	if found && (providerName == "" || modelID == "") {
		return "", "", "", fmt.Errorf("model spec %q: want provider/model[:thinking]", spec)
	}
	return providerName, modelID, thinking, nil
}

// ThinkingLevel is the level spec asks for (its ":level" suffix), else the configured one.
// An empty spec means the configured model.
func (c *Config) ThinkingLevel(spec string) string {
	if spec == "" {
		spec = c.Model
	}
	if _, _, level, err := ParseModelSpec(spec); err == nil && level != "" {
		return level
	}
	return c.Thinking
}

// ResolveModel turns spec (a --model value; empty means the configured model, and with none
// configured, discovery on the local Ollama server) into a ready provider and the description
// of the model. The provider is bare: wrap it in provider.Retrying with c.RetryPolicy() to
// retry. Errors say what to do next.
func (c *Config) ResolveModel(ctx context.Context, spec string) (provider.Provider, provider.Model, error) {
	p, m, _, err := c.ResolveModelPicked(ctx, spec)
	return p, m, err
}

// ResolveModelPicked is ResolveModel that also says, when nothing named a model and pi picked
// one on the local Ollama server, why that one ("the newest of 3 local models that calls
// tools"); picked is "" when spec or pi.toml named the model.
func (c *Config) ResolveModelPicked(ctx context.Context, spec string) (_ provider.Provider, _ provider.Model, picked string, _ error) {
	if spec == "" {
		spec = c.Model
	}
	if spec == "" {
		return c.discover(ctx)
	}
	p, m, err := c.resolveNamed(ctx, spec)
	return p, m, "", err
}

func (c *Config) resolveNamed(ctx context.Context, spec string) (provider.Provider, provider.Model, error) {
	name, id, _, err := ParseModelSpec(spec)
	if err != nil {
		return nil, provider.Model{}, err
	}
	if name == "" {
		if name, id, err = c.findModel(id); err != nil {
			return nil, provider.Model{}, err
		}
	}
	pc := c.provider(name)
	if pc == nil {
		return nil, provider.Model{}, notConfigured{fmt.Errorf("model %q: no provider %q: known providers are %s; add [providers.%s] to pi.toml",
			spec, name, strings.Join(c.providerNames(), ", "), name)}
	}
	p, err := c.newProvider(ctx, name, pc)
	if err != nil {
		return nil, provider.Model{}, err
	}
	m, err := c.describe(ctx, name, pc, p, id)
	if err == nil {
		err = c.checkBudgets(m)
	}
	return p, m, err
}

// findModel resolves a spec without "/": a provider name means its first configured model;
// otherwise the one provider that configures a model of that id.
func (c *Config) findModel(id string) (string, string, error) {
	if pc := c.provider(id); pc != nil && len(pc.Models) > 0 {
		return id, pc.Models[0].ID, nil
	}
	var found []string
	for _, np := range c.providerList() {
		if slices.ContainsFunc(np.pc.Models, func(m ModelConfig) bool { return m.ID == id }) {
			found = append(found, np.name)
		}
	}
	switch len(found) {
	case 1:
		return found[0], id, nil
	case 0:
		return "", "", notConfigured{fmt.Errorf("model %q: no configured provider has it; write provider/model, e.g. ollama/%s", id, id)}
	}
	return "", "", fmt.Errorf("model %q: providers %s all have it; write provider/model", id, strings.Join(found, ", "))
}

// discover picks a model on the local Ollama server for a user who configured none, and says
// why that one.
func (c *Config) discover(ctx context.Context) (provider.Provider, provider.Model, string, error) {
	pc := c.provider("ollama")
	if pc == nil || pc.Kind != kindOllama {
		return nil, provider.Model{}, "", errors.New("no model configured: set model = \"provider/model\" in pi.toml or pass --model")
	}
	p, err := c.newProvider(ctx, "ollama", pc)
	if err != nil {
		return nil, provider.Model{}, "", err
	}
	dctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	found, why, err := p.(*ollama.Provider).Choose(dctx)
	if err != nil {
		return nil, provider.Model{}, "", fmt.Errorf("no model configured, and %w", err)
	}
	m, err := c.describe(ctx, "ollama", pc, p, found.ID)
	if err == nil {
		err = c.checkBudgets(m)
	}
	return p, m, why, err
}

// newProvider builds the adapter for a provider, reading its key now so that a key never
// sits in the Config.
func (c *Config) newProvider(ctx context.Context, name string, pc *ProviderConfig) (provider.Provider, error) {
	if pc.stream != nil {
		return pc.stream, nil
	}
	key, err := c.apiKey(ctx, name, pc)
	if err != nil {
		return nil, err
	}
	switch pc.Kind {
	case kindOllama:
		keepAlive, _ := keepAlive(pc.KeepAlive) // validated on load
		p, err := ollama.New(ollama.Config{BaseURL: pc.BaseURL, APIKey: key, Headers: pc.Headers,
			DefaultNumCtx: pc.DefaultNumCtx, KeepAlive: keepAlive, Timeouts: c.StreamTimeouts()}, c.getenv)
		if err != nil {
			return nil, fmt.Errorf("providers.%s: %w", name, err)
		}
		return p, nil
	case kindOpenAI:
		return openai.New(openai.Config{BaseURL: pc.BaseURL, APIKey: key, Headers: pc.Headers, Timeouts: c.StreamTimeouts()}), nil
	case kindAnthropic:
		return anthropic.New(anthropic.Config{BaseURL: pc.BaseURL, APIKey: key, Headers: pc.Headers, Timeouts: c.StreamTimeouts()}), nil
	}
	return nil, fmt.Errorf("providers.%s: kind %q is not one pi speaks", name, pc.Kind)
}

func (c *Config) apiKey(ctx context.Context, name string, pc *ProviderConfig) (string, error) {
	switch {
	case pc.apiKey != "":
		c.keysRead.add(pc.apiKey)
		return pc.apiKey, nil
	case pc.APIKeyCmd != "":
		key, err := c.runCmd(ctx, pc.APIKeyCmd)
		if err != nil {
			return "", fmt.Errorf("providers.%s: %w", name, err)
		}
		if key == "" {
			return "", fmt.Errorf("providers.%s: api_key_cmd printed nothing", name)
		}
		c.keysRead.add(key)
		return key, nil
	case pc.APIKeyEnv != "":
		key := strings.TrimSpace(c.getenv(pc.APIKeyEnv))
		if key == "" {
			return "", fmt.Errorf("providers.%s: no API key: set the environment variable %s, or api_key_cmd in $PI_HOME/pi.toml", name, pc.APIKeyEnv)
		}
		return key, nil
	}
	return "", nil
}

// Context windows for models pi.toml does not describe: pi's default, and Anthropic's window,
// which every current Claude model has.
const (
	configDefaultWindow          = 128000
	configDefaultAnthropicWindow = 200000
)

// describe builds the model description from pi.toml, asking an Ollama server for what the
// file leaves out. Without max_tokens the model gets 0, and no limit is sent: a default such as
// 16384 would make servers with small windows (vLLM) refuse every request as too long. The
// Anthropic adapter picks its own, since that API requires one.
func (c *Config) describe(ctx context.Context, name string, pc *ProviderConfig, p provider.Provider, id string) (provider.Model, error) {
	m := provider.Model{ID: id, Provider: name, API: pc.Kind, BaseURL: pc.BaseURL, Input: []string{"text"}}
	var mc ModelConfig
	if i := slices.IndexFunc(pc.Models, func(o ModelConfig) bool { return o.ID == id }); i >= 0 {
		mc = pc.Models[i]
	} else if computed, ok, err := computedModel(ctx, name, pc, id); err != nil {
		return provider.Model{}, err
	} else if ok {
		mc = computed
	}
	switch pc.Kind {
	case kindOllama:
		op := p.(*ollama.Provider)
		d, _, err := op.Describe(ctx, id)
		if err != nil && (strings.Contains(err.Error(), "not found") || strings.Contains(err.Error(), "404")) {
			return provider.Model{}, fmt.Errorf("model %s/%s: %w (is it pulled? `ollama pull %s`)", name, id, err, id)
		}
		if err != nil { // the server did not answer: pulling is not the cure
			return provider.Model{}, fmt.Errorf("model %s/%s: %w", name, id, err)
		}
		m.BaseURL, m.ContextWindow, m.Reasoning, m.Input = op.BaseURL(), d.ContextWindow, d.Reasoning, d.Input
	case kindAnthropic:
		m.ContextWindow, m.Input = configDefaultAnthropicWindow, []string{"text", "image"}
	default:
		m.ContextWindow = configDefaultWindow
	}
	applyModel(&m, &mc)
	c.effectiveWindow(ctx, name, pc, p, &m)
	m.NoTextToolCalls = !switchOn(mc.TextToolCalls, pc.TextToolCalls)
	m.ConstrainedSampling = cmp.Or(mc.ConstrainedSampling, pc.ConstrainedSampling)
	m.NoArgumentRetry = !switchOn(mc.ArgumentRepair, pc.ArgumentRepair)
	m.Prewarm = loopbackURL(m.BaseURL)
	if pc.Prewarm != nil {
		m.Prewarm = *pc.Prewarm
	}
	return m, nil
}

// effectiveWindow lowers the model's window to what an Ollama server really gives it (the native
// API, or its OpenAI-compatible one on this machine), warning once per model, so that compaction
// and tool-output budgets are planned on the window the model has.
func (c *Config) effectiveWindow(ctx context.Context, name string, pc *ProviderConfig, p provider.Provider, m *provider.Model) {
	op, ok := p.(*ollama.Provider)
	if !ok && pc.Kind == kindOpenAI && isLoopbackV1(pc.BaseURL) {
		op, _ = ollama.New(ollama.Config{BaseURL: strings.TrimSuffix(strings.TrimRight(pc.BaseURL, "/"), "/v1"),
			Timeouts: provider.StreamTimeouts{FirstByte: 2 * time.Second, Idle: 2 * time.Second}}, nil)
	}
	if op == nil {
		return
	}
	sctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	window, why := op.Window(sctx, m.ID, m.ContextWindow)
	if why == "" || window >= m.ContextWindow {
		return
	}
	if key := name + "/" + m.ID; !c.warned[key] {
		if c.warned == nil {
			c.warned = map[string]bool{}
		}
		c.warned[key] = true
		c.warnf("model %s: the window is %d tokens, not %d: %s; pi plans compaction and tool output for %d",
			key, window, m.ContextWindow, why, window)
	}
	m.ContextWindow = window
}

// isLoopbackV1 reports whether base is an OpenAI-compatible endpoint on this machine that may be
// an Ollama server's.
func isLoopbackV1(base string) bool {
	u, err := url.Parse(strings.TrimRight(base, "/"))
	if err != nil || !strings.HasSuffix(u.Path, "/v1") {
		return false
	}
	h := u.Hostname()
	return h == "localhost" || h == "::1" || strings.HasPrefix(h, "127.")
}

// switchOn is a model's switch, else its provider's, else on.
func switchOn(model, prov *bool) bool {
	switch {
	case model != nil:
		return *model
	case prov != nil:
		return *prov
	}
	return true
}

func applyModel(m *provider.Model, mc *ModelConfig) {
	if mc.Name != "" {
		m.Name = mc.Name
	}
	if mc.ContextWindow > 0 {
		m.ContextWindow = mc.ContextWindow
	}
	if mc.MaxTokens > 0 {
		m.MaxTokens = mc.MaxTokens
	}
	if mc.Reasoning != nil {
		m.Reasoning = *mc.Reasoning
	}
	if len(mc.Input) > 0 {
		m.Input = slices.Clone(mc.Input)
	}
	m.Cost = provider.ModelCost{Input: mc.Cost.Input, Output: mc.Cost.Output, CacheRead: mc.Cost.CacheRead, CacheWrite: mc.Cost.CacheWrite}
}

// ProviderModels is one provider's part of a model listing.
type ProviderModels struct {
	Provider string
	Kind     string
	BaseURL  string
	Models   []provider.Model // configured models first, then the ones only the server lists
	Err      error            // the server could not be asked; Models still has the configured ones
	// Configured says a pi.toml names this provider; the others are probes of local servers
	// at their usual ports.
	Configured bool
}

// ListModels asks every provider named in a file, the local servers at their default ports
// (Ollama, LM Studio, llama.cpp) and the hosted APIs whose key is set, all at once, each with
// a short timeout, for `pi --list-models`.
func (c *Config) ListModels(ctx context.Context) []ProviderModels {
	listed := c.listedProviders()
	out := make([]ProviderModels, len(listed))
	done := make(chan struct{})
	for i, np := range listed {
		go func() {
			defer func() { done <- struct{}{} }()
			out[i] = c.listProvider(ctx, np.name, np.pc)
		}()
	}
	for range listed {
		<-done
	}
	return out
}

func (c *Config) listedProviders() []namedProvider {
	var out []namedProvider
	for _, np := range c.providerList() {
		hosted := np.pc.APIKeyEnv != "" || np.pc.APIKeyCmd != ""
		if np.pc.fromFile || !hosted || strings.TrimSpace(c.getenv(np.pc.APIKeyEnv)) != "" {
			out = append(out, np)
		}
	}
	return out
}

func (c *Config) listProvider(ctx context.Context, name string, pc *ProviderConfig) ProviderModels {
	res := ProviderModels{Provider: name, Kind: pc.Kind, BaseURL: pc.BaseURL, Configured: pc.fromFile}
	for _, mc := range pc.Models {
		m := provider.Model{ID: mc.ID, Provider: name, API: pc.Kind, BaseURL: pc.BaseURL}
		applyModel(&m, &mc)
		res.Models = append(res.Models, m)
	}
	ctx, cancel := context.WithTimeout(ctx, 3*time.Second)
	defer cancel()
	p, err := c.newProvider(ctx, name, pc)
	if err != nil {
		res.Err = err
		return res
	}
	if op, ok := p.(*ollama.Provider); ok {
		res.BaseURL = op.BaseURL()
	}
	lister, ok := p.(provider.ModelLister)
	if pc.listModels != nil {
		lister, ok = computedLister(pc.listModels), true
	}
	if !ok {
		return res
	}
	listed, err := lister.ListModels(ctx)
	res.Err = err
	for _, m := range listed {
		if !slices.ContainsFunc(res.Models, func(o provider.Model) bool { return o.Same(m) }) { // "name" is "name:latest"
			m.Provider = name
			res.Models = append(res.Models, m)
		}
	}
	return res
}

// SplitList is a list as flags and commands take one (--tools, --models, /scoped-models):
// items separated by commas or spaces, blanks dropped.
func SplitList(s string) []string {
	return strings.FieldsFunc(s, func(r rune) bool { return r == ',' || unicode.IsSpace(r) })
}

// loopbackURL reports whether a server URL names this machine (localhost, 127.0.0.0/8, ::1).
func loopbackURL(raw string) bool {
	u, err := url.Parse(raw)
	if err != nil {
		return false
	}
	host := u.Hostname()
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}
