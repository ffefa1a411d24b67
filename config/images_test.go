package config

import (
	"os"
	"path/filepath"
	"testing"
)

func TestImagesShow(t *testing.T) {
	for _, c := range []struct {
		toml string
		want bool
	}{
		{"", true},
		{"[images]\nshow = false\n", false},
		{"[images]\nshow = true\n", true},
	} {
		home := t.TempDir()
		if err := os.WriteFile(filepath.Join(home, "pi.toml"), []byte(c.toml), 0o644); err != nil {
			t.Fatal(err)
		}
		cfg, err := Load(home, t.TempDir(), true)
		if err != nil {
			t.Fatal(err)
		}
		if got := cfg.ShowImages(); got != c.want || len(cfg.Warnings) > 0 {
			t.Errorf("%q: show %v, want %v (warnings %v)", c.toml, got, c.want, cfg.Warnings)
		}
	}
}
