// Package realpath names a folder the same way whichever way it was reached: absolute, with
// its symlinks resolved where they exist. Remembered answers about folders (trust, permissions)
// key on it. It imports nothing of this module and holds no state.
package realpath

import "path/filepath"

// Dir is dir made absolute with its symlinks resolved; where that fails, as far as it got.
func Dir(dir string) string {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return filepath.Clean(dir)
	}
	if real, err := filepath.EvalSymlinks(abs); err == nil {
		return real
	}
	return abs
}
