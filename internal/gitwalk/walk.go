package gitwalk

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"

	"pi/internal/safefile"
)

// ErrStop, returned by a walk function, ends the walk early without being an error.
var ErrStop = errors.New("stop walking")

// Walk calls fn for every file and directory below root, depth first in name order, skipping
// .git and whatever the .gitignore files (nested, with negations) exclude. Hidden files are
// included. Symlinks are reported but not followed. fn may return ErrStop.
func Walk(ctx context.Context, root string, fn func(rel string, d fs.DirEntry) error) error {
	err := walkDir(ctx, root, "", ancestorIgnores(root), fn)
	if errors.Is(err, ErrStop) {
		return nil
	}
	return err
}

func walkDir(ctx context.Context, dir, rel string, stack []*ignoreFile, fn func(string, fs.DirEntry) error) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil // an unreadable directory is skipped, as git and ripgrep do
	}
	prefix := ""
	if rel != "" {
		prefix = rel + "/"
	}
	for _, e := range entries {
		if e.Name() == ".gitignore" && e.Type().IsRegular() {
			if data, err := safefile.ReadFile(context.Background(), filepath.Join(dir, ".gitignore"), safefile.MaxTextFile); err == nil {
				stack = append(stack[:len(stack):len(stack)], &ignoreFile{strip: prefix, rules: parseIgnore(data)})
			}
			break
		}
	}
	for _, e := range entries {
		name := e.Name()
		if name == ".git" {
			continue
		}
		child := prefix + name
		if ignored(stack, child, e.IsDir()) {
			continue
		}
		if err := fn(child, e); err != nil {
			return err
		}
		if e.IsDir() {
			if err := walkDir(ctx, filepath.Join(dir, name), child, stack, fn); err != nil {
				return err
			}
		}
	}
	return nil
}
