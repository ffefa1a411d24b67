package config

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"
)

// TestConfigSandbox: [sandbox] merges key by key; a project's file can only make it stricter
// and says what it ignored.
func TestConfigSandbox(t *testing.T) {
	cases := []struct {
		name, user, project string
		want                string // the merged settings as mode/fallback/network/allow_write
		wantWarning         string // "" when there must be none
	}{
		{"defaults", "", "", "//<nil>/[]", ""},
		{"user turns it on", "[sandbox]\nmode = \"workspace\"\nallow_write = [\"~/.cache\", \"/opt/x\"]\nnetwork = false\nfallback = \"warn\"", "",
			"workspace/warn/false/[~/.cache /opt/x]", ""},
		{"project turns it on", "", "[sandbox]\nmode = \"workspace\"\nnetwork = false\nfallback = \"refuse\"",
			"workspace/refuse/false/[]", ""},
		{"project cannot turn it off", "[sandbox]\nmode = \"workspace\"", "[sandbox]\nmode = \"off\"",
			"workspace//<nil>/[]", "sandbox.mode ignored"},
		{"project may say off when it is off", "", "[sandbox]\nmode = \"off\"", "off//<nil>/[]", ""},
		{"project cannot open folders", "[sandbox]\nmode = \"workspace\"\nallow_write = [\"/opt/x\"]",
			"[sandbox]\nallow_write = [\"/\"]", "workspace//<nil>/[/opt/x]", "sandbox.allow_write ignored"},
		{"project cannot allow the network", "[sandbox]\nnetwork = false", "[sandbox]\nnetwork = true",
			"//false/[]", "sandbox.network ignored"},
		{"project cannot run unconfined", "", "[sandbox]\nmode = \"workspace\"\nfallback = \"warn\"",
			"workspace//<nil>/[]", "sandbox.fallback ignored"},
		{"project repeats the user's warn", "[sandbox]\nfallback = \"warn\"", "[sandbox]\nfallback = \"warn\"",
			"/warn/<nil>/[]", ""},
		{"several at once", "[sandbox]\nmode = \"workspace\"\nnetwork = false",
			"[sandbox]\nmode = \"off\"\nnetwork = true\nallow_write = [\"/etc\"]", "workspace//false/[]",
			"sandbox.mode, sandbox.network, sandbox.allow_write ignored"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c := fixture(t, tc.user, tc.project, nil)
			s := c.Sandbox
			net := "<nil>"
			if s.Network != nil {
				net = fmt.Sprint(*s.Network)
			}
			if got := fmt.Sprintf("%s/%s/%s/%v", s.Mode, s.Fallback, net, s.AllowWrite); got != tc.want {
				t.Errorf("merged %s, want %s", got, tc.want)
			}
			warnings := strings.Join(c.Warnings, "\n")
			if tc.wantWarning == "" && warnings != "" || !strings.Contains(warnings, tc.wantWarning) {
				t.Errorf("warnings %q, want %q", warnings, tc.wantWarning)
			}
		})
	}
}

// TestConfigSandboxErrors: settings pi cannot use stop it with the key named, from either file.
func TestConfigSandboxErrors(t *testing.T) {
	cases := []struct{ user, project, want string }{
		{"[sandbox]\nmode = \"strict\"", "", `pi.toml: sandbox.mode = "strict": want "off" or "workspace"`},
		{"", "[sandbox]\nmode = \"none\"", `sandbox.mode = "none"`},
		{"[sandbox]\nfallback = \"allow\"", "", `sandbox.fallback = "allow": want "refuse" or "warn"`},
		{"[sandbox]\nallow_write = [\"build\"]", "", `sandbox.allow_write: "build": want an absolute path`},
		{"[sandbox]\nnetwork = \"no\"", "", "parsing"},
		{"[sandbox]\nallow_write = \"/opt\"", "", "parsing"},
	}
	for _, tc := range cases {
		home, cwd := t.TempDir(), t.TempDir()
		if tc.user != "" {
			writeFile(t, filepath.Join(home, "pi.toml"), tc.user)
		}
		if tc.project != "" {
			writeFile(t, filepath.Join(cwd, ".pi", "pi.toml"), tc.project)
		}
		if _, err := Load(home, cwd, true); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q / %q: error %v, want %q", tc.user, tc.project, err, tc.want)
		}
	}
}
