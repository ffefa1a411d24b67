package config

// limits.go: the numbers of pi.toml. Each file's numbers are checked as it is read, so that an
// error names the file and the key; an untrusted project may lower the limits that end a hang
// (how long pi waits for a command or a model server, how often and how long it retries) but
// never raise them; and the compaction budgets must leave room in the model's window, which is
// checked once the model is known (ResolveModel).

import (
	"fmt"
	"sort"

	"pi/provider"
)

// defaultBashTimeoutSeconds is tools.DefaultBashTimeout (a test keeps them equal).
const defaultBashTimeoutSeconds = 600

type number struct {
	key string
	v   int
}

// checkNumbers refuses a file's negative counts, sizes and durations (zero is the default)
// and stream timeouts past what a time.Duration holds.
func checkNumbers(path string, f *Config) error {
	r, s, sub := &f.Retry, &f.Stream, &f.Subagents
	nums := []number{{"bash.timeout", f.Bash.TimeoutSeconds}, {"compaction.reserve_tokens", f.Compaction.ReserveTokens},
		{"compaction.keep_recent_tokens", f.Compaction.KeepRecentTokens}, {"stream.first_byte_timeout", s.FirstByteTimeout},
		{"stream.idle_timeout", s.IdleTimeout}, {"subagents.max_concurrent", sub.MaxConcurrent},
		{"subagents.max_depth", sub.MaxDepth}, {"subagents.max_children", sub.MaxChildren}}
	for _, p := range []struct {
		key string
		v   *int
	}{{"retry.max_retries", r.MaxRetries}, {"retry.base_delay_ms", r.BaseDelayMs}, {"retry.max_delay_ms", r.MaxDelayMs}} {
		if p.v != nil {
			nums = append(nums, number{p.key, *p.v})
		}
	}
	names := make([]string, 0, len(f.Providers))
	for name := range f.Providers {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		p := f.Providers[name]
		nums = append(nums, number{"providers." + name + ".default_num_ctx", p.DefaultNumCtx})
		for i, m := range p.Models {
			key := fmt.Sprintf("providers.%s.models[%d].", name, i)
			nums = append(nums, number{key + "context_window", m.ContextWindow}, number{key + "max_tokens", m.MaxTokens})
		}
	}
	for _, n := range nums {
		if n.v < 0 {
			return fmt.Errorf("%s: %s = %d: want 0 (the default) or more", path, n.key, n.v)
		}
	}
	for _, n := range []number{{"stream.first_byte_timeout", s.FirstByteTimeout}, {"stream.idle_timeout", s.IdleTimeout}} {
		if n.v > maxStreamTimeout {
			return fmt.Errorf("%s: %s = %d: want seconds from 1 to %d, or 0 for the default", path, n.key, n.v, int(maxStreamTimeout))
		}
	}
	return nil
}

// keepTighterLimits drops what an untrusted project's file would loosen: a bash timeout, a
// stream timeout, a retry count or delay above the one in force (the user's, else pi's
// default), and retries switched back on; each with a warning that says why.
func (c *Config) keepTighterLimits(path string, f *Config) {
	ignore := func(key string, v any, limit any) {
		c.warnf("%s: %s = %v ignored: this directory is not trusted, and an untrusted project may only lower this limit "+
			"(it is %v; `pi trust` or --trust applies it)", path, key, v, limit)
		c.ProjectIgnored = append(c.ProjectIgnored, key)
	}
	stream := provider.StreamTimeouts{}.WithDefaults()
	for _, l := range []struct {
		key      string
		src, cur *int
		def      int
	}{{"bash.timeout", &f.Bash.TimeoutSeconds, &c.Bash.TimeoutSeconds, defaultBashTimeoutSeconds},
		{"stream.first_byte_timeout", &f.Stream.FirstByteTimeout, &c.Stream.FirstByteTimeout, int(stream.FirstByte.Seconds())},
		{"stream.idle_timeout", &f.Stream.IdleTimeout, &c.Stream.IdleTimeout, int(stream.Idle.Seconds())}} {
		if limit := cmpOrInt(*l.cur, l.def); *l.src > limit {
			ignore(l.key, *l.src, limit)
			*l.src = 0 // 0 leaves the value in force
		}
	}
	retry := provider.DefaultRetryPolicy()
	for _, l := range []struct {
		key      string
		src, cur **int
		def      int
	}{{"retry.max_retries", &f.Retry.MaxRetries, &c.Retry.MaxRetries, retry.MaxRetries},
		{"retry.base_delay_ms", &f.Retry.BaseDelayMs, &c.Retry.BaseDelayMs, int(retry.BaseDelay.Milliseconds())},
		{"retry.max_delay_ms", &f.Retry.MaxDelayMs, &c.Retry.MaxDelayMs, int(retry.MaxDelay.Milliseconds())}} {
		limit := l.def
		if *l.cur != nil {
			limit = **l.cur
		}
		if *l.src != nil && **l.src > limit {
			ignore(l.key, **l.src, limit)
			*l.src = nil
		}
	}
	if e := f.Retry.Enabled; e != nil && *e && c.Retry.Enabled != nil && !*c.Retry.Enabled {
		ignore("retry.enabled", true, false)
		f.Retry.Enabled = nil
	}
}

func cmpOrInt(v, def int) int {
	if v != 0 {
		return v
	}
	return def
}

// noteOrigins remembers which file set the compaction budgets, for checkBudgets' error.
func (c *Config) noteOrigins(path string, f *Config) {
	if c.origins == nil {
		c.origins = map[string]string{}
	}
	for _, n := range []number{{"compaction.reserve_tokens", f.Compaction.ReserveTokens},
		{"compaction.keep_recent_tokens", f.Compaction.KeepRecentTokens}} {
		if n.v != 0 {
			c.origins[n.key] = path
		}
	}
}

// checkBudgets refuses a model whose window the compaction budgets fill: a reserve or a kept
// tail as large as the window leaves no room for the conversation (every turn would compact).
func (c *Config) checkBudgets(m provider.Model) error {
	if m.ContextWindow <= 0 {
		return nil
	}
	for _, n := range []number{{"compaction.reserve_tokens", c.Compaction.ReserveTokens},
		{"compaction.keep_recent_tokens", c.Compaction.KeepRecentTokens}} {
		if n.v >= m.ContextWindow {
			return fmt.Errorf("%s: %s = %d is not below the context window of %s/%s (%d tokens): nothing else would fit; "+
				"lower it, or set 0 to scale it with the window", c.origins[n.key], n.key, n.v, m.Provider, m.ID, m.ContextWindow)
		}
	}
	return nil
}
