package config

import "sort"

// MCPConfig is the [mcp] table: the MCP servers the bundled mcp script turns into tools.
type MCPConfig struct {
	Servers map[string]*MCPServer `toml:"servers"`
	// Search puts the MCP tools behind one search tool (true), never (false), or when their
	// declarations would take more than a tenth of the window (unset).
	Search *bool `toml:"search"`
}

// MCPServer is one [mcp.servers.<name>] table: a command to run (stdio transport) or a url
// (streamable HTTP transport).
type MCPServer struct {
	Command string            `toml:"command"`
	Args    []string          `toml:"args"`
	Env     map[string]string `toml:"env"`
	Cwd     string            `toml:"cwd"`
	URL     string            `toml:"url"`
	Headers map[string]string `toml:"headers"`
	Enabled *bool             `toml:"enabled"` // default true
	Tools   []string          `toml:"tools"`   // the tools to offer; empty: all
	Timeout int               `toml:"timeout"` // seconds per request; 0: the script's default
	Eager   bool              `toml:"eager"`   // start with pi rather than at the first prompt

	// Project is set for a server the project's .pi/pi.toml names: it runs only in a trusted
	// directory.
	Project bool `toml:"-"`
}

// mergeMCP lays a file's servers over the ones so far. A server the project file names
// replaces the user's of that name whole: a command from one file must not run with the
// arguments or keys of another.
func (c *Config) mergeMCP(path string, f *MCPConfig, project bool) {
	if f.Search != nil {
		c.MCP.Search = f.Search
	}
	for name, s := range f.Servers {
		if (s.Command == "") == (s.URL == "") {
			c.warnf("%s: mcp.servers.%s: give either command (a server to run) or url (a streamable HTTP server); ignored", path, name)
			continue
		}
		if s.Timeout < 0 {
			c.warnf("%s: mcp.servers.%s: timeout = %d: want seconds; the default is used", path, name, s.Timeout)
			s.Timeout = 0
		}
		s.Project = project
		if c.MCP.Servers == nil {
			c.MCP.Servers = map[string]*MCPServer{}
		}
		c.MCP.Servers[name] = s
	}
}

// HasProjectMCPServers reports whether the project's .pi/pi.toml names an MCP server, which
// runs only once the directory is trusted (an untrusted project's are not even in MCP).
func (c *Config) HasProjectMCPServers() bool {
	if c.projectMCP {
		return true
	}
	for _, s := range c.MCP.Servers {
		if s.Project {
			return true
		}
	}
	return false
}

// ScriptConfig is what pi.config(name) gives a script: the [extensions.<name>] table, except
// for the bundled mcp script, which gets the [mcp] table as {servers = {NAME = {command,
// args, env, cwd, url, headers, enabled, tools, timeout, eager, project}}}, and the bundled
// checkpoints script, which gets [checkpoints] with its defaults filled in.
func (c *Config) ScriptConfig(name string) map[string]any {
	if name == "checkpoints" {
		return c.Checkpoints.table()
	}
	if name != "mcp" {
		t, _ := c.Section("extensions")[name].(map[string]any)
		return t
	}
	servers := map[string]any{}
	names := make([]string, 0, len(c.MCP.Servers))
	for n := range c.MCP.Servers {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		servers[n] = c.MCP.Servers[n].table()
	}
	t := map[string]any{"servers": servers}
	if c.MCP.Search != nil {
		t["search"] = *c.MCP.Search
	}
	return t
}

func (s *MCPServer) table() map[string]any {
	t := map[string]any{"enabled": s.Enabled == nil || *s.Enabled, "eager": s.Eager, "project": s.Project,
		"args": anyStrings(s.Args), "tools": anyStrings(s.Tools), "env": anyMap(s.Env), "headers": anyMap(s.Headers)}
	for k, v := range map[string]string{"command": s.Command, "url": s.URL, "cwd": s.Cwd} {
		if v != "" {
			t[k] = v
		}
	}
	if s.Timeout > 0 {
		t["timeout"] = s.Timeout
	}
	return t
}

func anyStrings(ss []string) []any {
	out := make([]any, len(ss))
	for i, s := range ss {
		out[i] = s
	}
	return out
}

func anyMap(m map[string]string) map[string]any {
	out := make(map[string]any, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}
