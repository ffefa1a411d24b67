package config

import (
	"strings"

	"pi/internal/sandbox"
)

// mergeSandbox lays a file's [sandbox] over the tables before it. A project's file may only
// make the sandbox stricter (turn it on, deny the network, refuse to run unconfined): a
// cloned repository must not switch off what the user asked for, nor open folders to writes.
// What it cannot set is ignored, with a warning.
func (c *Config) mergeSandbox(path string, src sandbox.Settings, project bool) {
	dst := &c.Sandbox
	var ignored []string
	if project {
		ignored = looserSandboxKeys(*dst, &src)
	}
	if src.Mode != "" {
		dst.Mode = src.Mode
	}
	if src.Fallback != "" {
		dst.Fallback = src.Fallback
	}
	if src.Network != nil {
		dst.Network = src.Network
	}
	if src.AllowWrite != nil {
		dst.AllowWrite = src.AllowWrite
	}
	if src.AllowHosts != nil {
		dst.AllowHosts = src.AllowHosts
	}
	if len(ignored) > 0 {
		c.warnf("%s: a project file can only make the sandbox stricter: sandbox.%s ignored", path,
			strings.Join(ignored, ", sandbox."))
	}
}

// looserSandboxKeys clears the settings of src that would loosen dst and names them. Values
// that are not valid at all stay, for validate to refuse.
func looserSandboxKeys(dst sandbox.Settings, src *sandbox.Settings) []string {
	var keys []string
	if src.Mode == sandbox.ModeOff && dst.Mode == sandbox.ModeWorkspace {
		keys, src.Mode = append(keys, "mode"), ""
	}
	if src.Fallback == sandbox.FallbackWarn && dst.Fallback != sandbox.FallbackWarn {
		keys, src.Fallback = append(keys, "fallback"), ""
	}
	if src.Network != nil && *src.Network && !dst.NetworkAllowed() {
		keys, src.Network = append(keys, "network"), nil
	}
	if len(src.AllowWrite) > 0 {
		keys, src.AllowWrite = append(keys, "allow_write"), nil
	}
	if len(src.AllowHosts) > 0 {
		keys, src.AllowHosts = append(keys, "allow_hosts"), nil
	}
	return keys
}
