package packages

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"

	"pi/internal/gitsafe"
	"pi/internal/safefile"
)

// Install puts source (a folder or a git URL, optionally @ref) under root and returns the
// package. A package of the same name is replaced only once the new one is complete.
func Install(ctx context.Context, root, spec string) (Package, error) {
	source, ref := ParseSource(spec)
	if err := os.MkdirAll(root, 0o755); err != nil {
		return Package{}, fmt.Errorf("install %s: %w", spec, err)
	}
	tmp, err := os.MkdirTemp(root, ".installing-")
	if err != nil {
		return Package{}, fmt.Errorf("install %s: %w", spec, err)
	}
	defer os.RemoveAll(tmp)
	staged := filepath.Join(tmp, "pkg")
	if err := fetch(ctx, source, ref, staged); err != nil {
		return Package{}, fmt.Errorf("install %s: %w", spec, err)
	}
	m, err := readManifest(staged)
	if err != nil && !os.IsNotExist(err) {
		return Package{}, fmt.Errorf("install %s: %w", spec, err)
	}
	name := m.Name
	if name == "" {
		name = nameFor(source)
	}
	if !validName(name) {
		return Package{}, fmt.Errorf("install %s: %q is not a usable package name (letters, digits, _ . -)", spec, name)
	}
	if err := os.WriteFile(filepath.Join(staged, sourceFile), []byte(sourceOf(source)+"\n"+ref+"\n"), 0o644); err != nil {
		return Package{}, fmt.Errorf("install %s: %w", spec, err)
	}
	dest := filepath.Join(root, name)
	if err := os.RemoveAll(dest); err != nil {
		return Package{}, fmt.Errorf("install %s: replacing %s: %w", spec, dest, err)
	}
	if err := os.Rename(staged, dest); err != nil {
		return Package{}, fmt.Errorf("install %s: %w", spec, err)
	}
	return read(dest), nil
}

// sourceOf makes a local folder absolute, so that update finds it from anywhere.
func sourceOf(source string) string {
	if isGit(source) {
		return source
	}
	if abs, err := filepath.Abs(source); err == nil {
		return abs
	}
	return source
}

// fetch copies a folder or clones a repository (at ref) into dest.
func fetch(ctx context.Context, source, ref, dest string) error {
	if !isGit(source) {
		if st, err := os.Stat(source); err == nil && st.IsDir() {
			if _, err := os.Stat(filepath.Join(source, ".git")); err == nil && ref != "" {
				return clone(ctx, source, ref, dest) // a local repository pinned to a ref
			}
			return copyTree(ctx, source, dest)
		}
		return fmt.Errorf("%s is neither a folder nor a git URL", source)
	}
	return clone(ctx, source, ref, dest)
}

// clone runs git clone, then checks out ref. Hooks are off: nothing of the package runs.
func clone(ctx context.Context, source, ref, dest string) error {
	if err := git(ctx, "", "clone", "--quiet", "--", source, dest); err != nil {
		return err
	}
	if ref != "" {
		if err := git(ctx, dest, "checkout", "--quiet", "--detach", ref); err != nil {
			return fmt.Errorf("ref %s: %w", ref, err)
		}
	}
	return nil
}

// git runs with gitsafe's overrides (no hooks, no program from the package's config) and
// without git-lfs's download.
func git(ctx context.Context, dir string, args ...string) error {
	_, err := gitsafe.Run(ctx, dir, []string{"GIT_LFS_SKIP_SMUDGE=1"}, args...)
	return err
}

// copyTree copies regular files and folders of src into dest, leaving out .git and links.
func copyTree(ctx context.Context, src, dest string) error {
	return filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		if d.IsDir() && d.Name() == ".git" {
			return filepath.SkipDir
		}
		target := filepath.Join(dest, rel)
		switch {
		case d.IsDir():
			return os.MkdirAll(target, 0o755)
		case d.Type().IsRegular():
			return copyFile(ctx, p, target)
		}
		return nil // links and devices stay behind
	})
}

// copyBlock is how much of a file copyFile holds at a time.
const copyBlock = 1 << 20

// copyFile streams the regular file src to a new file dst, a block at a time (a package may
// hold model weights of gigabytes), and leaves a hole where a block is all zeros, so that a
// sparse file stays sparse.
func copyFile(ctx context.Context, src, dst string) error {
	in, err := safefile.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o644)
	if err != nil {
		return err
	}
	buf, zeros := make([]byte, copyBlock), make([]byte, copyBlock)
	var size int64
	for {
		if err := ctx.Err(); err != nil {
			out.Close()
			return fmt.Errorf("copying %s: %w", src, err)
		}
		n, rerr := io.ReadFull(in, buf)
		if err := writeOrSkip(out, buf[:n], zeros); err != nil {
			out.Close()
			return fmt.Errorf("copying %s: %w", src, err)
		}
		size += int64(n)
		if rerr == io.EOF || rerr == io.ErrUnexpectedEOF {
			break
		}
		if rerr != nil {
			out.Close()
			return fmt.Errorf("copying %s: %w", src, rerr)
		}
	}
	if err := out.Truncate(size); err != nil { // a file that ends in a hole
		out.Close()
		return err
	}
	return out.Close()
}

// writeOrSkip writes b to f, or seeks past it when it is all zeros (zeros, of at least its
// length, is compared with memequal's vector code).
func writeOrSkip(f *os.File, b, zeros []byte) error {
	if !bytes.Equal(b, zeros[:len(b)]) {
		_, err := f.Write(b)
		return err
	}
	_, err := f.Seek(int64(len(b)), io.SeekCurrent)
	return err
}

// Remove deletes the package called name under root.
func Remove(root, name string) error {
	for _, p := range mustList(root) {
		if p.Name == name || filepath.Base(p.Dir) == name {
			if err := os.RemoveAll(p.Dir); err != nil {
				return fmt.Errorf("remove %s: %w", name, err)
			}
			return nil
		}
	}
	return fmt.Errorf("remove %s: no such package in %s", name, root)
}

// Update installs each named package (all when names is empty) again from its source. A
// package pinned to a ref stays as it is, as in pi; it reports what it did, one line each.
func Update(ctx context.Context, root string, names []string) ([]string, error) {
	var report []string
	for _, p := range mustList(root) {
		if len(names) > 0 && !contains(names, p.Name) && !contains(names, filepath.Base(p.Dir)) {
			continue
		}
		switch {
		case p.Source == "":
			report = append(report, p.Name+": no recorded source, left as it is")
		case p.Ref != "":
			report = append(report, p.Name+": pinned to "+p.Ref+", left as it is")
		default:
			np, err := Install(ctx, root, p.Source)
			if err != nil {
				return report, err
			}
			report = append(report, np.Name+": updated from "+p.Source)
		}
	}
	return report, nil
}

func mustList(root string) []Package {
	pkgs, _ := List(root)
	return pkgs
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
