package tools

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

func newWrite(env *Env) Tool {
	return &Func{Spec: Info{
		Name:        "write",
		Description: "Write content to a file, creating it and its parent directories, or replacing it whole.",
		Parameters: json.RawMessage(`{"type":"object","properties":{` +
			`"path":{"type":"string","description":"File path, relative or absolute"},` +
			`"content":{"type":"string","description":"The complete new content"}},` +
			`"required":["path","content"]}`),
		Guidelines: []string{"Use write only for new files or complete rewrites."},
	}, Run: func(ctx context.Context, _ string, args map[string]any, _ func(Result)) (Result, error) {
		return runWrite(ctx, env, args)
	}, Changes: pathChanges(env, "path")}
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
	if env.WriteNeedsRead && !env.seenPath(key) {
		if fi, err := os.Stat(key); err == nil && !fi.IsDir() {
			return Result{}, fmt.Errorf("%s already exists and you have not read it in this session: read it first "+
				"(then write it whole, or better, change it with edit), or write to a new path", name)
		}
	}
	if err := os.MkdirAll(filepath.Dir(key), 0o755); err != nil {
		return Result{}, fmt.Errorf("cannot create the directory of %s: %w", name, err)
	}
	if err := replaceFile(key, []byte(content)); err != nil {
		return Result{}, fmt.Errorf("cannot write %s: %w", name, err)
	}
	env.remember(key, []byte(content))
	return TextResult(fmt.Sprintf("Wrote %d bytes to %s", len(content), name)), nil
}

// replaceFile gives the file at path the content data; path must not be a symlink (callers
// pass lockKey's resolved path). A new file gets mode 0644. An existing one keeps its mode and
// owner, and is refused when its mode has no write bit at all: root may write any file, so
// the kernel would not refuse it. It is replaced by a temporary file renamed over it, so that
// a crash leaves the old content or the new, never half; where that would lose what the file
// is, it is written in place instead: when it has other hard links, or an owner the new file
// cannot be given.
func replaceFile(path string, data []byte) error {
	fi, err := os.Stat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return renameOver(path, data, fileMeta{mode: 0o644})
	}
	if err != nil {
		return err
	}
	if !fi.Mode().IsRegular() {
		return &safefile.NotRegularError{Path: path, Kind: safefile.Kind(fi.Mode())}
	}
	if fi.Mode().Perm()&0o222 == 0 {
		return fmt.Errorf("it is read-only (mode %v); make it writable first if it is meant to change", fi.Mode().Perm())
	}
	meta := metaOf(fi)
	if meta.links > 1 {
		return writeInPlace(path, data)
	}
	err = renameOver(path, data, meta)
	if _, ok := err.(ownerError); ok {
		return writeInPlace(path, data)
	}
	return err
}

// fileMeta is what replaceFile keeps of a file: its mode bits and, where the system has them,
// its owner and link count.
type fileMeta struct {
	mode     fs.FileMode // permissions, setuid, setgid and sticky
	owned    bool        // uid and gid are known
	uid, gid int
	links    uint64
}

// ownerError is renameOver's when the new file cannot be given the old one's owner.
type ownerError struct{ error }

// renameOver writes data to a temporary file beside path with meta's mode and owner, and
// renames it over path.
func renameOver(path string, data []byte, meta fileMeta) (err error) {
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
	if err = chownLike(f, meta); err != nil {
		return err
	}
	// after the chown, which clears setuid and setgid
	if err = f.Chmod(meta.mode); err != nil {
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

// chownLike gives f meta's owner when it has another.
func chownLike(f *os.File, meta fileMeta) error {
	if !meta.owned {
		return nil
	}
	fi, err := f.Stat()
	if err != nil {
		return err
	}
	if now := metaOf(fi); now.owned && now.uid == meta.uid && now.gid == meta.gid {
		return nil
	}
	if err := f.Chown(meta.uid, meta.gid); err != nil {
		return ownerError{err}
	}
	return nil
}

// writeInPlace truncates the file at path and writes data to it.
func writeInPlace(path string, data []byte) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_TRUNC, 0)
	if err != nil {
		return err
	}
	if _, err := f.Write(data); err != nil {
		f.Close()
		return err
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
