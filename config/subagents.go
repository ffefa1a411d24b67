package config

// SubagentsConfig is the [subagents] table: the Agent tools (off by default, so the first
// request stays small) and how many background children run at once (0: 2).
type SubagentsConfig struct {
	Enabled       *bool `toml:"enabled"`
	MaxConcurrent int   `toml:"max_concurrent"`
}

// On reports whether [subagents] enabled = true.
func (s SubagentsConfig) On() bool { return s.Enabled != nil && *s.Enabled }

// mergeSubagents lays a file's [subagents] over what earlier files set.
func (c *Config) mergeSubagents(f *Config) {
	if f.Subagents.Enabled != nil {
		c.Subagents.Enabled = f.Subagents.Enabled
	}
	if f.Subagents.MaxConcurrent > 0 {
		c.Subagents.MaxConcurrent = f.Subagents.MaxConcurrent
	}
}
