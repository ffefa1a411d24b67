package config

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"pi/tools"
)

// An untrusted project may lower the limits that end a hang (timeouts, retries), never raise
// them: a larger value is ignored with a warning naming the key and why; a trusted one may.
func TestUntrustedProjectOnlyTightensLimits(t *testing.T) {
	type limits struct {
		bash               int
		firstByte, idle    time.Duration
		retries            int
		baseDelay, maxWait time.Duration
	}
	get := func(c *Config) limits {
		s, r := c.StreamTimeouts(), c.RetryPolicy()
		return limits{c.Bash.TimeoutSeconds, s.FirstByte, s.Idle, r.MaxRetries, r.BaseDelay, r.MaxDelay}
	}
	defaults := limits{0, 300 * time.Second, 120 * time.Second, 3, 2 * time.Second, 60 * time.Second}
	hostile := "[bash]\ntimeout = 999999999\n[stream]\nfirst_byte_timeout = 999999999\nidle_timeout = 999999999\n" +
		"[retry]\nmax_retries = 1000000\nbase_delay_ms = 999999\nmax_delay_ms = 99999999\n"
	tests := []struct {
		name, user, project string
		trusted             bool
		want                limits
		ignored             []string // keys the warnings must name
	}{
		{"larger than the defaults", "", hostile, false, defaults, []string{"bash.timeout = 999999999", "stream.first_byte_timeout",
			"stream.idle_timeout", "retry.max_retries = 1000000", "retry.base_delay_ms", "retry.max_delay_ms"}},
		{"trusted: applied", "", hostile, true, limits{999999999, 999999999 * time.Second, 999999999 * time.Second, 1000000,
			999999 * time.Millisecond, 99999999 * time.Millisecond}, nil},
		{"smaller: applied", "", "[bash]\ntimeout = 30\n[stream]\nidle_timeout = 10\n[retry]\nmax_retries = 1\n", false,
			limits{30, 300 * time.Second, 10 * time.Second, 1, 2 * time.Second, 60 * time.Second}, nil},
		{"larger than the user's", "[bash]\ntimeout = 60\n[retry]\nmax_retries = 1\n", "[bash]\ntimeout = 120\n[retry]\nmax_retries = 2\n", false,
			limits{60, 300 * time.Second, 120 * time.Second, 1, 2 * time.Second, 60 * time.Second}, []string{"bash.timeout = 120", "retry.max_retries = 2"}},
		{"retries back on", "[retry]\nenabled = false\n", "[retry]\nenabled = true\n", false,
			limits{0, 300 * time.Second, 120 * time.Second, 0, 2 * time.Second, 60 * time.Second}, []string{"retry.enabled = true"}},
		{"retries off", "", "[retry]\nenabled = false\n", false,
			limits{0, 300 * time.Second, 120 * time.Second, 0, 2 * time.Second, 60 * time.Second}, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c := loadBoth(t, tc.user, tc.project, tc.trusted)
			if got := get(c); got != tc.want {
				t.Errorf("limits %+v, want %+v", got, tc.want)
			}
			warnings := strings.Join(c.Warnings, "\n")
			for _, key := range tc.ignored {
				if !strings.Contains(warnings, key) || !strings.Contains(warnings, "may only lower") {
					t.Errorf("warnings %q should say %s was ignored and why", c.Warnings, key)
				}
			}
			if tc.ignored == nil && strings.Contains(warnings, "may only lower") {
				t.Errorf("nothing was loosened, yet: %q", c.Warnings)
			}
		})
	}
	if defaultBashTimeoutSeconds*time.Second != tools.DefaultBashTimeout {
		t.Errorf("defaultBashTimeoutSeconds %d is not the bash tool's default %s", defaultBashTimeoutSeconds, tools.DefaultBashTimeout)
	}
}

// A negative window or reply limit, from any file, trusted or not, is an error that names the
// file and the key.
func TestNegativeModelLimitsAreRefused(t *testing.T) {
	model := func(field string) string {
		return "[providers.x]\nkind = \"openai\"\nbase_url = \"http://203.0.113.9/v1\"\n[[providers.x.models]]\nid = \"m\"\n" + field + "\n"
	}
	for _, tc := range []struct{ name, user, project, want string }{
		{"context_window", model("context_window = -8192"), "", "providers.x.models[0].context_window = -8192"},
		{"max_tokens", model("max_tokens = -1"), "", "providers.x.models[0].max_tokens = -1"},
		{"default_num_ctx", "[providers.ollama]\ndefault_num_ctx = -4\n", "", "providers.ollama.default_num_ctx = -4"},
		{"in the project's file", "", model("context_window = -1"), "providers.x.models[0].context_window = -1"},
		{"untrusted project", "", "[retry]\nmax_retries = -3\n", "retry.max_retries = -3"},
		{"subagents", "[subagents]\nmax_depth = -1\n", "", "subagents.max_depth = -1"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			home, cwd := t.TempDir(), t.TempDir()
			writeFile(t, filepath.Join(home, "pi.toml"), tc.user)
			writeFile(t, filepath.Join(cwd, ".pi", "pi.toml"), tc.project)
			file := filepath.Join(home, "pi.toml")
			if tc.project != "" {
				file = filepath.Join(cwd, ".pi", "pi.toml")
			}
			_, err := Load(home, cwd, tc.name != "untrusted project")
			if err == nil || !strings.Contains(err.Error(), file) || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %v, want one naming %s and %q", err, file, tc.want)
			}
		})
	}
}

// A reserve (or a kept tail) as large as the model's window leaves no room for anything: the
// model is refused with an error naming the file and the key.
func TestReserveAsLargeAsTheWindowIsRefused(t *testing.T) {
	model := "[providers.x]\nkind = \"openai\"\nbase_url = \"http://203.0.113.9/v1\"\n[[providers.x.models]]\nid = \"m\"\ncontext_window = 8192\n"
	for _, tc := range []struct{ name, user, project, want string }{
		{"reserve", model + "[compaction]\nreserve_tokens = 8192\n", "", "compaction.reserve_tokens = 8192"},
		{"keep", model + "[compaction]\nkeep_recent_tokens = 100000\n", "", "compaction.keep_recent_tokens = 100000"},
		{"from the project", model, "[compaction]\nreserve_tokens = 9000\n", "compaction.reserve_tokens = 9000"},
		{"below the window", model + "[compaction]\nreserve_tokens = 4096\n", "", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			home, cwd := t.TempDir(), t.TempDir()
			writeFile(t, filepath.Join(home, "pi.toml"), tc.user)
			writeFile(t, filepath.Join(cwd, ".pi", "pi.toml"), tc.project)
			c, err := Load(home, cwd, false)
			if err != nil {
				t.Fatal(err)
			}
			_, m, err := c.ResolveModel(context.Background(), "x/m")
			if tc.want == "" {
				if err != nil || m.ContextWindow != 8192 {
					t.Errorf("model %+v, error %v", m, err)
				}
				return
			}
			file := filepath.Join(home, "pi.toml")
			if tc.project != "" {
				file = filepath.Join(cwd, ".pi", "pi.toml")
			}
			if err == nil || !strings.Contains(err.Error(), file) || !strings.Contains(err.Error(), tc.want) ||
				!strings.Contains(err.Error(), "8192") {
				t.Errorf("error %v, want one naming %s, %q and the window", err, file, tc.want)
			}
		})
	}
}
