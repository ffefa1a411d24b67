package live

// trust.go decides whether the project's .pi/init.lua may run, for the front ends: the
// terminal UI's question and /trust, and `pi trust` / `pi untrust`. The answers are kept in
// $PI_HOME/trust.json by the lua package.

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"pi/lua"
)

// projectTrusted reports whether the project's files may do what only trusted ones may: --trust,
// or a saved yes for the directory.
func ProjectTrusted(flag bool, piHome, cwd string) bool {
	trusted, decided, _ := lua.TrustDecision(piHome, cwd)
	return flag || decided && trusted
}

// trustUndecided reports whether the project has a script (or MCP servers) and nobody has
// said yet whether it may run.
func trustUndecided(h *Session) bool {
	if !h.scripts.askTrust || h.scripts.rt == nil {
		return false
	}
	if _, err := os.Stat(filepath.Join(h.cwd, ".pi", "init.lua")); err != nil && !h.cfg.HasProjectMCPServers() {
		return false
	}
	_, decided, err := lua.TrustDecision(h.piHome, h.cwd)
	return err == nil && !decided
}

// setTrust records whether the project's script may run and reloads the scripts, so that it
// is loaded, or unloaded, at once. It returns a sentence for the user.
func setTrust(ctx context.Context, h *Session, trusted bool) (string, error) {
	if err := lua.SaveTrust(h.piHome, h.cwd, trusted); err != nil {
		return "", err
	}
	if rt := h.scripts.rt; rt != nil {
		if err := rt.Reload(ctx); err != nil {
			return "", fmt.Errorf("reloading the scripts: %w", err)
		}
		h.scripts.refreshTools()
		rt.ProjectTrust(ctx, h.cwd, trusted) // the scripts as they now are hear of it
	}
	where := lua.TrustFile(h.piHome)
	if trusted {
		return fmt.Sprintf("trusted %s: its .pi/init.lua runs (remembered in %s; /trust off undoes it)", h.cwd, where), nil
	}
	return fmt.Sprintf("not trusted %s: its .pi/init.lua does not run (remembered in %s; /trust changes it)", h.cwd, where), nil
}
