// Package atomicfile reads and replaces small files pi keeps for itself (pi.toml, trust.json,
// permissions.json): a replacement is written next to the file and renamed over it, so a
// crash leaves the old file or the new one, never half of one. It knows nothing of what the
// files hold.
package atomicfile

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"pi/internal/safefile"
)

// Replace writes data to path through a temporary file in the same folder (made if missing).
func Replace(path string, data []byte) error {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("saving %s: %w", path, err)
	}
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(path)+"-*")
	if err != nil {
		return fmt.Errorf("saving %s: %w", path, err)
	}
	defer os.Remove(tmp.Name())
	_, err = tmp.Write(data)
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp.Name(), path)
	}
	if err != nil {
		return fmt.Errorf("saving %s: %w", path, err)
	}
	return nil
}

// ReadJSON decodes the JSON file at path into v. A missing file is no error and leaves v as
// it was; an unreadable or damaged one is, naming the file.
func ReadJSON(path string, v any) error {
	data, err := safefile.ReadFile(context.Background(), path, safefile.MaxTextFile)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err == nil {
		err = json.Unmarshal(data, v)
	}
	if err != nil {
		return fmt.Errorf("reading %s: %w", path, err)
	}
	return nil
}
