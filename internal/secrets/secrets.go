// Package secrets owns what the model must not learn of the user's keys: which environment
// variables the processes run for it (the bash tool, pi.exec) go without, and the replacement
// of key values in text by [redacted]. It imports nothing of this module and has no
// package-level mutable state; which variables hold keys and what the keys are is the
// caller's knowledge (pi.toml's api_key_env, the keys read so far).
package secrets

import (
	"encoding/json"
	"os"
	"slices"
	"strings"
)

// Redacted replaces a key value in text.
const Redacted = "[redacted]"

// minSecretLen is the shortest value Redact replaces: a short "key" ("x", "none") would turn
// ordinary output into a field of [redacted].
const minSecretLen = 8

// Policy says which variables a tool's environment drops and which values text must not carry.
// The zero value drops only names that look secret and redacts nothing.
type Policy struct {
	// KeyVars are variables that hold keys (every provider's api_key_env): always dropped,
	// unless allowed.
	KeyVars []string
	// Allow names variables kept although they hold a key or their names look secret.
	Allow []string
	// Values returns the key values to redact, read when Redact runs so that keys read later
	// count too. Nil redacts nothing.
	Values func() []string
}

// secretWords mark a variable's name as holding a secret, in any case.
func secretWords() []string { return []string{"KEY", "SECRET", "TOKEN", "PASSWORD"} }

// Hidden reports whether a tool's environment goes without the variable name.
func (p *Policy) Hidden(name string) bool {
	if slices.Contains(p.Allow, name) {
		return false
	}
	if slices.Contains(p.KeyVars, name) {
		return true
	}
	upper := strings.ToUpper(name)
	return slices.ContainsFunc(secretWords(), func(w string) bool { return strings.Contains(upper, w) })
}

// Environ is this process's environment without the hidden variables, for exec.Cmd.Env.
func (p *Policy) Environ() []string { return p.Filter(os.Environ()) }

// Filter drops the hidden variables of env ("NAME=value" entries).
func (p *Policy) Filter(env []string) []string {
	out := make([]string, 0, len(env))
	for _, kv := range env {
		name, _, _ := strings.Cut(kv, "=")
		if !p.Hidden(name) {
			out = append(out, kv)
		}
	}
	return out
}

// keys are the values to redact, longest first so that a key containing another goes whole;
// a key that JSON escapes (a quote, a backslash) comes in its escaped spelling too, for
// encoded details and messages.
func (p *Policy) keys() []string {
	if p == nil || p.Values == nil {
		return nil
	}
	var out []string
	for _, v := range p.Values() {
		if v = strings.TrimSpace(v); len(v) < minSecretLen {
			continue
		}
		enc, _ := json.Marshal(v) // a string always encodes
		for _, k := range []string{v, string(enc[1 : len(enc)-1])} {
			if !slices.Contains(out, k) {
				out = append(out, k)
			}
		}
	}
	slices.SortFunc(out, func(a, b string) int { return len(b) - len(a) })
	return out
}

// Redact replaces every key value in text by [redacted], and every part of one too: a run of
// minPartialLen or more characters that also stand in a row in a key (a prefix a server
// echoes, `${KEY:0:14}`), so that at most minPartialLen-1 characters of a key show in a row.
// changed says whether anything was replaced.
func (p *Policy) Redact(text string) (string, bool) {
	return redactKeys(text, p.keys())
}

// RedactKeys is Redact with the keys given (those shorter than 8 characters are left alone).
func RedactKeys(text string, keys ...string) string {
	p := &Policy{Values: func() []string { return keys }}
	out, _ := p.Redact(text)
	return out
}

// minPartialLen is the shortest part of a key that is redacted where it stands alone.
const minPartialLen = 6

func redactKeys(text string, keys []string) (string, bool) {
	if len(keys) == 0 || len(text) < minPartialLen {
		return text, false
	}
	grams := map[string]bool{}
	for _, k := range keys {
		for i := 0; i+minPartialLen <= len(k); i++ {
			grams[k[i:i+minPartialLen]] = true
		}
	}
	covered := make([]bool, len(text)) // bytes inside some run of a key's characters
	hit := false
	for i := 0; i+minPartialLen <= len(text); i++ {
		if grams[text[i:i+minPartialLen]] {
			hit = true
			for j := i; j < i+minPartialLen; j++ {
				covered[j] = true
			}
		}
	}
	if !hit {
		return text, false
	}
	var b strings.Builder
	for i := 0; i < len(text); i++ {
		if !covered[i] {
			b.WriteByte(text[i])
		} else if i == 0 || !covered[i-1] {
			b.WriteString(Redacted)
		}
	}
	return b.String(), true
}

// HeaderSecrets are the secrets in HTTP headers (a provider's or an MCP server's): the words
// of the value of each header whose name says it carries one (Authorization, Cookie, X-Api-Key,
// anything with KEY, TOKEN, SECRET, PASSWORD or AUTH), so "Bearer xyz" gives xyz.
func HeaderSecrets(headers map[string]string) []string {
	var out []string
	for name, value := range headers {
		upper := strings.ToUpper(name)
		if !strings.Contains(upper, "AUTH") && !strings.Contains(upper, "COOKIE") &&
			!slices.ContainsFunc(secretWords(), func(w string) bool { return strings.Contains(upper, w) }) {
			continue
		}
		for _, word := range strings.FieldsFunc(value, func(r rune) bool { return r == ' ' || r == ';' || r == ',' || r == '=' }) {
			if len(word) >= minSecretLen {
				out = append(out, word)
			}
		}
	}
	return out
}
