package tools

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

func newWrite(env *Env) Tool {
	return &Func{Spec: Info{
		Name:        "write",
		Description: "Write content to a file, creating it and its parent directories, or replacing it whole.",
		Parameters: json.RawMessage(`{"type":"object","properties":{` +
			`"path":{"type":"string","description":"File path, relative or absolute"},` +
			`"content":{"type":"string","description":"The complete new content"}},` +
			`"required":["path","content"]}`),
		Snippet:    "Create or overwrite a file",
		Guidelines: []string{"Use write only for new files or complete rewrites."},
	}, Run: func(ctx context.Context, _ string, args map[string]any, _ func(Result)) (Result, error) {
		return runWrite(ctx, env, args)
	}}
}

func runWrite(ctx context.Context, env *Env, args map[string]any) (Result, error) {
	name, path, err := argPath(env, args, "path", true)
	if err != nil {
		return Result{}, err
	}
	content, ok, err := argString(args, "content")
	if err != nil {
		return Result{}, err
	}
	if !ok {
		return Result{}, errors.New(`argument "content" is required`)
	}
	key := lockKey(path)
	unlock, err := env.lockPath(ctx, key)
	if err != nil {
		return Result{}, err
	}
	defer unlock()
	if err := os.MkdirAll(filepath.Dir(key), 0o755); err != nil {
		return Result{}, fmt.Errorf("cannot create the directory of %s: %w", name, err)
	}
	if err := atomicWrite(key, []byte(content)); err != nil {
		return Result{}, fmt.Errorf("cannot write %s: %w", name, err)
	}
	env.remember(key, []byte(content))
	return TextResult(fmt.Sprintf("Wrote %d bytes to %s", len(content), name)), nil
}

// atomicWrite replaces path by a complete new file: it writes a temporary file beside it, keeps
// the old file's mode, and renames, so a crash leaves the old content or the new, never half.
// path must not be a symlink (callers pass lockKey's resolved path).
func atomicWrite(path string, data []byte) (err error) {
	mode := fs.FileMode(0o644)
	if fi, err := os.Stat(path); err == nil {
		mode = fi.Mode().Perm()
	} else if !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp*")
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			f.Close()
			os.Remove(f.Name())
		}
	}()
	if _, err = f.Write(data); err != nil {
		return err
	}
	if err = f.Chmod(mode); err != nil {
		return err
	}
	if err = f.Sync(); err != nil {
		return err
	}
	if err = f.Close(); err != nil {
		return err
	}
	return os.Rename(f.Name(), path)
}
