package config

import (
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func TestCheckpointsTable(t *testing.T) {
	cases := []struct {
		name, user, project string
		want                map[string]any
	}{
		{"defaults", "", "", map[string]any{"max_file_size": int64(10 << 20), "max_files": int64(200000), "max_age_days": 30.0, "max_total_mb": 1024.0, "tree_files": "ask"}},
		{"the user's file", "[checkpoints]\nmax_file_size = 1000\ntree_files = \"files\"\n", "",
			map[string]any{"max_file_size": int64(1000), "max_files": int64(200000), "max_age_days": 30.0, "max_total_mb": 1024.0, "tree_files": "files"}},
		{"the project's over the user's", "[checkpoints]\nmax_age_days = 7.0\n", "[checkpoints]\nmax_age_days = 2.5\nmax_total_mb = 50.0\n",
			map[string]any{"max_file_size": int64(10 << 20), "max_files": int64(200000), "max_age_days": 2.5, "max_total_mb": 50.0, "tree_files": "ask"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c := fixture(t, tc.user, tc.project, nil)
			if got := c.ScriptConfig("checkpoints"); !reflect.DeepEqual(got, tc.want) {
				t.Errorf("got %v, want %v", got, tc.want)
			}
			if len(c.Warnings) != 0 {
				t.Errorf("warnings: %v", c.Warnings)
			}
		})
	}
}

func TestCheckpointsRejectsBadValues(t *testing.T) {
	for _, bad := range []string{"tree_files = \"always\"", "max_file_size = -1", "max_files = -3", "max_total_mb = -5.0"} {
		home := t.TempDir()
		writeFile(t, filepath.Join(home, "pi.toml"), "[checkpoints]\n"+bad+"\n")
		_, err := Load(home, t.TempDir(), true)
		if err == nil || !strings.Contains(err.Error(), "checkpoints") {
			t.Errorf("%s: err = %v, want one naming [checkpoints]", bad, err)
		}
	}
}
