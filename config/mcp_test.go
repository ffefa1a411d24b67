package config

import (
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func TestMCPServers(t *testing.T) {
	home, cwd := t.TempDir(), t.TempDir()
	writeFile(t, filepath.Join(home, "pi.toml"), `
[mcp.servers.fs]
command = "npx"
args = ["-y", "@modelcontextprotocol/server-filesystem", "/tmp"]
env = { DEBUG = "1" }
tools = ["read_file"]
timeout = 30
eager = true

[mcp.servers.remote]
url = "http://127.0.0.1:9000/mcp"
headers = { Authorization = "Bearer x" }
enabled = false

[mcp.servers.both]
command = "x"
url = "http://y"
`)
	writeFile(t, filepath.Join(cwd, ".pi", "pi.toml"), `
[mcp.servers.fs]
command = "./my-server"
`)
	c, err := Load(home, cwd, true)
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Warnings) != 1 || !strings.Contains(c.Warnings[0], "mcp.servers.both: give either command") {
		t.Errorf("warnings %q, want one about mcp.servers.both", c.Warnings)
	}
	if !c.HasProjectMCPServers() {
		t.Error("the project's server is not reported")
	}
	servers := c.ScriptConfig("mcp")["servers"].(map[string]any)
	want := map[string]any{
		"fs": map[string]any{"command": "./my-server", "args": []any{}, "env": map[string]any{}, "headers": map[string]any{},
			"tools": []any{}, "enabled": true, "eager": false, "project": true},
		"remote": map[string]any{"url": "http://127.0.0.1:9000/mcp", "args": []any{}, "env": map[string]any{},
			"headers": map[string]any{"Authorization": "Bearer x"}, "tools": []any{}, "enabled": false, "eager": false, "project": false},
	}
	if !reflect.DeepEqual(servers, want) {
		t.Errorf("servers\n%#v\nwant\n%#v", servers, want)
	}
}

func TestScriptConfigExtensions(t *testing.T) {
	home := t.TempDir()
	writeFile(t, filepath.Join(home, "pi.toml"), "[extensions.todo]\nmax = 3\n")
	c, err := Load(home, t.TempDir(), true)
	if err != nil {
		t.Fatal(err)
	}
	if got := c.ScriptConfig("todo"); got["max"] != int64(3) || len(c.Warnings) > 0 {
		t.Errorf("got %v, warnings %v", got, c.Warnings)
	}
	if got := c.ScriptConfig("mcp"); len(got["servers"].(map[string]any)) != 0 {
		t.Errorf("mcp without servers: %v", got)
	}
}
