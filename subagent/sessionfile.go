package subagent

// sessionfile.go checks the session file an Agent call names: the model may name a file to run
// a child in, so it must be one of pi's sessions or a file in the project, never anywhere the
// user can write (a dotfile, another project's files).

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// sessionFile is path made absolute (relative to the project) once it is known to be a .jsonl
// file inside the parent's sessions folder or the project, after symbolic links.
func (m *Manager) sessionFile(path string) (string, error) {
	if !filepath.IsAbs(path) {
		path = filepath.Join(m.opts.Cwd, path)
	}
	path = filepath.Clean(path)
	if filepath.Ext(path) != ".jsonl" {
		return "", fmt.Errorf("session_file %s: a session file ends in .jsonl", path)
	}
	real, err := resolvedPath(path)
	if err != nil {
		return "", fmt.Errorf("session_file %s: %w", path, err)
	}
	for _, root := range []string{m.opts.SessionsDir, m.opts.Cwd} {
		if root == "" {
			continue
		}
		if r, err := resolvedPath(root); err == nil && within(real, r) {
			return path, nil
		}
	}
	return "", fmt.Errorf("session_file %s: not in this project (%s) nor in its sessions folder (%s)", path, m.opts.Cwd, m.opts.SessionsDir)
}

// resolvedPath is path with the symbolic links of its folder (and of the file, when it exists)
// resolved; a file that does not exist yet is its folder's resolution plus its name.
func resolvedPath(path string) (string, error) {
	if real, err := filepath.EvalSymlinks(path); err == nil {
		return real, nil
	} else if !os.IsNotExist(err) {
		return "", err
	}
	dir, err := filepath.EvalSymlinks(filepath.Dir(path))
	if err != nil {
		return "", fmt.Errorf("its folder: %w", err)
	}
	return filepath.Join(dir, filepath.Base(path)), nil
}

func within(path, root string) bool {
	rel, err := filepath.Rel(root, path)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}
