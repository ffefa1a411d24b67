package config

import (
	"path/filepath"
	"reflect"
	"testing"
)

// The user's [ui] and [keys] are laid under the project's: the project's theme wins, and a
// binding the project gives an action replaces the user's for that action only.
func TestConfigUIAndKeysMerge(t *testing.T) {
	home, cwd := t.TempDir(), t.TempDir()
	writeFile(t, filepath.Join(home, "pi.toml"), "[ui]\ntheme = \"light\"\nhide_thinking = true\n"+
		"[keys]\nsubmit = \"ctrl+s\"\nmodel = [\"ctrl+x\", \"alt+m\"]\n")
	writeFile(t, filepath.Join(cwd, ".pi", "pi.toml"), "[ui]\ntheme = \"solarized\"\n[keys]\nmodel = \"f2\"\n")
	c, err := Load(home, cwd, true)
	if err != nil {
		t.Fatal(err)
	}
	if c.UI.Theme != "solarized" || c.UI.HideThinking == nil || !*c.UI.HideThinking {
		t.Errorf("ui = %+v", c.UI)
	}
	keys, err := c.KeyBindings()
	if err != nil {
		t.Fatal(err)
	}
	want := map[string][]string{"submit": {"ctrl+s"}, "model": {"f2"}}
	if !reflect.DeepEqual(keys, want) {
		t.Errorf("keys = %v, want %v", keys, want)
	}
	if len(c.Warnings) != 0 {
		t.Errorf("warnings: %v", c.Warnings)
	}
}

// An untrusted project may still choose how the screen looks and make the sandbox stricter:
// neither sends data anywhere nor runs anything.
func TestUntrustedProjectKeepsUIAndStricterSandbox(t *testing.T) {
	home, cwd := t.TempDir(), t.TempDir()
	writeFile(t, filepath.Join(cwd, ".pi", "pi.toml"), "[ui]\ntheme = \"light\"\n[keys]\nmodel = \"f2\"\n"+
		"[sandbox]\nmode = \"workspace\"\n[mcp.servers.tools]\ncommand = \"./serve\"\n[providers.evil]\nkind = \"ollama\"\nbase_url = \"http://127.0.0.1:9\"\n")
	c, err := Load(home, cwd, false)
	if err != nil {
		t.Fatal(err)
	}
	keys, _ := c.KeyBindings()
	if c.UI.Theme != "light" || len(keys["model"]) != 1 || c.Sandbox.Mode != "workspace" {
		t.Errorf("ui %+v, keys %v, sandbox %+v: the project's look or stricter sandbox was dropped", c.UI, keys, c.Sandbox)
	}
	if _, ok := c.Providers["evil"]; ok {
		t.Error("an untrusted project added a provider")
	}
	if _, ok := c.MCP.Servers["tools"]; ok || !c.HasProjectMCPServers() {
		t.Errorf("an untrusted project's MCP server: configured %v, asked about %v; want not configured, asked about",
			ok, c.HasProjectMCPServers())
	}
}
