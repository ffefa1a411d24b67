package config

// SubagentsConfig is the [subagents] table: the Agent tools (off by default, so the first
// request stays small), how many background children run at once (0: 2), how deep a chain
// of children may go (0: 2) and how many children one top-level session and all its
// children may start together (0: 32). Children are held to the top-level session's limits.
// Scheduling lets the Agent tool take a schedule (a deferred or repeating run; off by default).
type SubagentsConfig struct {
	Enabled       *bool `toml:"enabled"`
	Scheduling    *bool `toml:"scheduling"`
	MaxConcurrent int   `toml:"max_concurrent"`
	MaxDepth      int   `toml:"max_depth"`
	MaxChildren   int   `toml:"max_children"`
}

// On reports whether [subagents] enabled = true.
func (s SubagentsConfig) On() bool { return s.Enabled != nil && *s.Enabled }

// SchedulingOn reports whether [subagents] scheduling = true.
func (s SubagentsConfig) SchedulingOn() bool { return s.Scheduling != nil && *s.Scheduling }

// mergeSubagents lays a file's [subagents] over what earlier files set.
func (c *Config) mergeSubagents(f *Config) {
	if f.Subagents.Enabled != nil {
		c.Subagents.Enabled = f.Subagents.Enabled
	}
	if f.Subagents.Scheduling != nil {
		c.Subagents.Scheduling = f.Subagents.Scheduling
	}
	for _, p := range []struct{ dst, src *int }{{&c.Subagents.MaxConcurrent, &f.Subagents.MaxConcurrent},
		{&c.Subagents.MaxDepth, &f.Subagents.MaxDepth}, {&c.Subagents.MaxChildren, &f.Subagents.MaxChildren}} {
		if *p.src != 0 {
			*p.dst = *p.src
		}
	}
}
