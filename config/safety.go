package config

// safety.go: the [permissions] and [secrets] tables, and what an untrusted project's pi.toml
// may set. A project file is untrusted until its directory is (the same trust as the
// project's .pi/init.lua); until then only keys that can neither send data anywhere nor run
// anything apply, and the rest are listed in Config.ProjectIgnored.

import (
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/BurntSushi/toml"

	"pi/internal/secrets"
)

// PermissionsConfig is the [permissions] table.
type PermissionsConfig struct {
	// Mode is auto (every call runs, as without the table), ask (a call that can change
	// something waits for the user's yes) or read-only (such calls are refused).
	Mode string `toml:"mode"`
	// Rules, each "tool" or "tool:pattern": for bash the pattern is a command prefix
	// ("bash:git status"), for write and edit a path glob ("write:docs/**"). deny wins over
	// ask, ask over allow, and any rule over the mode.
	Allow []string `toml:"allow"`
	Ask   []string `toml:"ask"`
	Deny  []string `toml:"deny"`
	// WriteRequiresRead makes write refuse to replace an existing file the agent has not
	// read in this session. Default true.
	WriteRequiresRead *bool `toml:"write_requires_read"`
}

// SecretsConfig is the [secrets] table.
type SecretsConfig struct {
	// AllowEnv names variables tools keep although their names look like secrets.
	AllowEnv []string `toml:"allow_env"`
}

// Permission modes, from the least to the most strict.
const (
	ModeAuto     = "auto"
	ModeAsk      = "ask"
	ModeReadOnly = "read-only"
)

// PermissionModes lists the modes in order of strictness.
func PermissionModes() []string { return []string{ModeAuto, ModeAsk, ModeReadOnly} }

// IsPermissionMode reports whether s names a mode.
func IsPermissionMode(s string) bool { return slices.Contains(PermissionModes(), s) }

// strictness orders the modes; "" is auto.
func strictness(mode string) int { return max(slices.Index(PermissionModes(), mode), 0) }

// WriteNeedsRead reports whether write must refuse an existing file not read first.
func (p *PermissionsConfig) WriteNeedsRead() bool {
	return p.WriteRequiresRead == nil || *p.WriteRequiresRead
}

// Configured reports whether the table asks for anything beyond auto with no rules.
func (p *PermissionsConfig) Configured() bool {
	return strictness(p.Mode) > 0 || len(p.Allow)+len(p.Ask)+len(p.Deny) > 0
}

// mergeSafety lays the file's [permissions] and [secrets] over c. An untrusted project may
// only make things stricter: a stricter mode, ask and deny rules, write_requires_read = true.
func (c *Config) mergeSafety(f *Config, untrusted bool) {
	p, fp := &c.Permissions, &f.Permissions
	if fp.Mode != "" && (!untrusted || strictness(fp.Mode) >= strictness(p.Mode)) {
		p.Mode = fp.Mode
	}
	if !untrusted {
		p.Allow = append(p.Allow, fp.Allow...)
		c.Secrets.AllowEnv = append(c.Secrets.AllowEnv, f.Secrets.AllowEnv...)
	}
	p.Ask = append(p.Ask, fp.Ask...)
	p.Deny = append(p.Deny, fp.Deny...)
	if fp.WriteRequiresRead != nil && (!untrusted || *fp.WriteRequiresRead) {
		p.WriteRequiresRead = fp.WriteRequiresRead
	}
}

// isRuleTool reports whether tool fits ^[A-Za-z0-9_-]{1,64}$, a tool name, checked by hand:
// the regexp, compiled at package init, cost every start of pi 860 allocations.
func isRuleTool(tool string) bool {
	for _, c := range []byte(tool) {
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '_' || c == '-') {
			return false
		}
	}
	return len(tool) >= 1 && len(tool) <= 64
}

func (p *PermissionsConfig) validate() error {
	if p.Mode != "" && !IsPermissionMode(p.Mode) {
		return fmt.Errorf("pi.toml: permissions.mode = %q: want %s", p.Mode, strings.Join(PermissionModes(), ", "))
	}
	for _, list := range []struct {
		key   string
		rules []string
	}{{"allow", p.Allow}, {"ask", p.Ask}, {"deny", p.Deny}} {
		for _, r := range list.rules {
			tool, pattern, hasPattern := strings.Cut(r, ":")
			if !isRuleTool(tool) || hasPattern && strings.TrimSpace(pattern) == "" {
				return fmt.Errorf("pi.toml: permissions.%s: rule %q: want \"tool\" or \"tool:pattern\" (e.g. \"bash:git status\", \"write:docs/**\")", list.key, r)
			}
		}
	}
	return nil
}

// untrustedKeys are the top-level keys an untrusted project's pi.toml may set: none of them
// names a server, a folder, a command or a tool. permissions is filtered by mergeSafety, and
// sandbox may only tighten (mergeSandbox); ui, keys and images change only how the screen looks.
func untrustedKeys() []string {
	return []string{"thinking", "steering_mode", "follow_up_mode", "compaction", "retry", "stream", "bash", "permissions", "ui", "keys", "images", "sandbox"}
}

// untrustedPart keeps of a project file only what an untrusted project may set, and returns
// the keys it dropped (as written: "providers.evil", "session_dir").
func untrustedPart(f *Config, md toml.MetaData) (Config, []string) {
	safe := Config{Thinking: f.Thinking, SteeringMode: f.SteeringMode, FollowUpMode: f.FollowUpMode,
		Compaction: f.Compaction, Retry: f.Retry, Stream: f.Stream,
		Bash: BashConfig{TimeoutSeconds: f.Bash.TimeoutSeconds}, Permissions: f.Permissions,
		UI: f.UI, Keys: f.Keys, Sandbox: f.Sandbox}
	var ignored []string
	for _, key := range md.Keys() {
		if len(key) == 1 && md.Type(key...) == "Hash" {
			continue // a table: its keys are looked at one by one
		}
		name := key.String()
		if len(key) > 2 {
			name = key[:2].String()
		}
		kept := slices.Contains(untrustedKeys(), key[0]) && name != "bash.shell" && name != "permissions.allow" &&
			!(name == "permissions.write_requires_read" && !f.Permissions.WriteNeedsRead())
		if !kept && !slices.Contains(ignored, name) {
			ignored = append(ignored, name)
		}
	}
	return safe, ignored
}

// safeSections drops the tables an untrusted project may not set from its raw sections.
func safeSections(sections map[string]any) {
	for k := range sections {
		if !slices.Contains(untrustedKeys(), k) {
			delete(sections, k)
		}
	}
}

// keyRing remembers the keys api_key_cmd printed, so that they can be redacted from tool
// output; it never leaves the process.
type keyRing struct {
	mu   sync.Mutex
	keys []string
}

func (k *keyRing) add(key string) {
	if k == nil {
		return
	}
	k.mu.Lock()
	defer k.mu.Unlock()
	if !slices.Contains(k.keys, key) {
		k.keys = append(k.keys, key)
	}
}

func (k *keyRing) list() []string {
	if k == nil {
		return nil
	}
	k.mu.Lock()
	defer k.mu.Unlock()
	return slices.Clone(k.keys)
}

// KeyVars names the variables any provider reads its key from (api_key_env).
func (c *Config) KeyVars() []string {
	var out []string
	for _, np := range c.providerList() {
		if v := np.pc.APIKeyEnv; v != "" && !slices.Contains(out, v) {
			out = append(out, v)
		}
	}
	return out
}

// KeyValues are the keys pi knows of now: the values of KeyVars, what api_key_cmd printed
// so far, and the tokens in the providers' and MCP servers' headers (secrets.HeaderSecrets).
func (c *Config) KeyValues() []string {
	var out []string
	for _, v := range c.KeyVars() {
		if key := strings.TrimSpace(c.getenv(v)); key != "" {
			out = append(out, key)
		}
	}
	for _, np := range c.providerList() {
		out = append(out, secrets.HeaderSecrets(np.pc.Headers)...)
	}
	for _, s := range c.MCP.Servers {
		if s != nil {
			out = append(out, secrets.HeaderSecrets(s.Headers)...)
		}
	}
	return append(out, c.keysRead.list()...)
}

// SecretPolicy is what tools' processes and output must not carry: the key variables and
// secret-looking names less [secrets] allow_env, and the key values.
func (c *Config) SecretPolicy() *secrets.Policy {
	return &secrets.Policy{KeyVars: c.KeyVars(), Allow: c.Secrets.AllowEnv, Values: c.KeyValues}
}
