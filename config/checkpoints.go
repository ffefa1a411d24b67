package config

import "fmt"

// CheckpointsConfig is pi.toml's [checkpoints] table, read by the bundled checkpoints script
// (through ScriptConfig("checkpoints")): the snapshots of the project's files before the
// agent changes them. Zero values take the defaults below.
type CheckpointsConfig struct {
	MaxFileSize int64   `toml:"max_file_size"` // bytes; a larger file is skipped with a notice (10 MiB)
	MaxFiles    int     `toml:"max_files"`     // a project with more paths is not snapshotted (200000)
	MaxAgeDays  float64 `toml:"max_age_days"`  // snapshots older than this are pruned (30)
	MaxTotalMB  float64 `toml:"max_total_mb"`  // then the oldest until the store fits (1024)
	// TreeFiles is what /tree and /fork to an earlier point do with the files: "ask" (the
	// default), "conversation" (leave them) or "files" (restore that point's files too).
	TreeFiles string `toml:"tree_files"`
}

func (c *Config) mergeCheckpoints(f *Config) {
	if f.Checkpoints.MaxFileSize != 0 {
		c.Checkpoints.MaxFileSize = f.Checkpoints.MaxFileSize
	}
	if f.Checkpoints.MaxFiles != 0 {
		c.Checkpoints.MaxFiles = f.Checkpoints.MaxFiles
	}
	if f.Checkpoints.MaxAgeDays != 0 {
		c.Checkpoints.MaxAgeDays = f.Checkpoints.MaxAgeDays
	}
	if f.Checkpoints.MaxTotalMB != 0 {
		c.Checkpoints.MaxTotalMB = f.Checkpoints.MaxTotalMB
	}
	if f.Checkpoints.TreeFiles != "" {
		c.Checkpoints.TreeFiles = f.Checkpoints.TreeFiles
	}
}

func (k CheckpointsConfig) validate() error {
	switch k.TreeFiles {
	case "", "ask", "conversation", "files":
	default:
		return fmt.Errorf("pi.toml: checkpoints.tree_files = %q: want \"ask\", \"conversation\" or \"files\"", k.TreeFiles)
	}
	if k.MaxFileSize < 0 || k.MaxFiles < 0 || k.MaxAgeDays < 0 || k.MaxTotalMB < 0 {
		return fmt.Errorf("pi.toml: [checkpoints]: max_file_size, max_files, max_age_days and max_total_mb must not be negative")
	}
	return nil
}

// table is what the script reads, defaults filled in.
func (k CheckpointsConfig) table() map[string]any {
	t := map[string]any{"max_file_size": k.MaxFileSize, "max_files": int64(k.MaxFiles), "max_age_days": k.MaxAgeDays,
		"max_total_mb": k.MaxTotalMB, "tree_files": k.TreeFiles}
	for key, def := range map[string]any{"max_file_size": int64(10 << 20), "max_files": int64(200000), "max_age_days": 30.0, "max_total_mb": 1024.0, "tree_files": "ask"} {
		switch v := t[key].(type) {
		case int64:
			if v == 0 {
				t[key] = def
			}
		case float64:
			if v == 0 {
				t[key] = def
			}
		case string:
			if v == "" {
				t[key] = def
			}
		}
	}
	return t
}
