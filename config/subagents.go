package config

// SubagentsConfig is the [subagents] table: the Agent tools (off by default, so the first
// request stays small) and how many background children run at once (0: 2).
type SubagentsConfig struct {
	Enabled       bool `toml:"enabled"`
	MaxConcurrent int  `toml:"max_concurrent"`
}
