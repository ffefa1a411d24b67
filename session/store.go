package session

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"pi/provider"
)

// Home returns $PI_HOME, or ~/.pi when it is unset.
func Home() (string, error) {
	if h := os.Getenv("PI_HOME"); h != "" {
		return h, nil
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return "", fmt.Errorf("find the home directory for ~/.pi: %w", err)
	}
	return filepath.Join(home, ".pi"), nil
}

// SessionsRoot is the directory holding every project's session directory.
func SessionsRoot(piHome string) string { return filepath.Join(piHome, "sessions") }

// Dir is the directory of cwd's sessions: pi's encoding, the path without its leading
// separator, with '/', '\' and ':' replaced by '-', between "--" and "--".
func Dir(piHome, cwd string) string {
	safe := strings.TrimLeft(cwd, `/\`)
	safe = strings.NewReplacer("/", "-", `\`, "-", ":", "-").Replace(safe)
	return filepath.Join(SessionsRoot(piHome), "--"+safe+"--")
}

// FindNewest returns the most recently modified session file in dir (for -c), or "" when dir
// holds none. Files that are not sessions are ignored.
func FindNewest(dir string) (string, error) {
	files, err := sessionFiles(dir)
	if err != nil {
		return "", err
	}
	best, bestTime := "", time.Time{}
	for _, f := range files {
		st, err := os.Stat(f)
		if err != nil || !st.Mode().IsRegular() || !st.ModTime().After(bestTime) {
			continue
		}
		if _, err := readHeader(f); err != nil {
			continue
		}
		best, bestTime = f, st.ModTime()
	}
	return best, nil
}

func sessionFiles(dir string) ([]string, error) {
	ents, err := os.ReadDir(dir)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("list sessions in %s: %w", dir, err)
	}
	var out []string
	for _, e := range ents {
		if !e.IsDir() && strings.HasSuffix(e.Name(), ".jsonl") {
			out = append(out, filepath.Join(dir, e.Name()))
		}
	}
	return out, nil
}

// readHeader reads and checks the first line of a file.
func readHeader(path string) (Header, error) {
	f, err := os.Open(path)
	if err != nil {
		return Header{}, err
	}
	defer f.Close()
	line, err := bufio.NewReader(f).ReadSlice('\n')
	if err != nil && err != io.EOF && err != bufio.ErrBufferFull {
		return Header{}, err
	}
	var h Header
	if err := json.Unmarshal(line, &h); err != nil {
		return Header{}, fmt.Errorf("%s: %w: %v", path, ErrNotSession, err)
	}
	return h, nil
}

// Resolve finds the file a --session or --fork argument names: an existing path, or the prefix
// of a session id, looked up first in projectDir and then in every project under root. Several
// matches are an error that lists them.
func Resolve(ref, projectDir, root string) (string, error) {
	if st, err := os.Stat(ref); err == nil && st.Mode().IsRegular() {
		return ref, nil
	}
	if strings.ContainsAny(ref, `/\`) || strings.HasSuffix(ref, ".jsonl") {
		return "", fmt.Errorf("session %q: %w", ref, os.ErrNotExist)
	}
	dirs := []string{projectDir}
	if ents, err := os.ReadDir(root); err == nil {
		for _, e := range ents {
			if d := filepath.Join(root, e.Name()); e.IsDir() && d != filepath.Clean(projectDir) {
				dirs = append(dirs, d)
			}
		}
	}
	for _, d := range dirs {
		matches, err := matchID(d, ref)
		if err != nil {
			return "", err
		}
		switch len(matches) {
		case 0:
			continue
		case 1:
			return matches[0], nil
		default:
			return "", fmt.Errorf("session id prefix %q is ambiguous: %s", ref, strings.Join(matches, ", "))
		}
	}
	return "", fmt.Errorf("no session file or id starting with %q", ref)
}

func matchID(dir, prefix string) ([]string, error) {
	files, err := sessionFiles(dir)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, f := range files {
		// pi names files <timestamp>_<id>.jsonl; the header is the authority when it differs.
		base := strings.TrimSuffix(filepath.Base(f), ".jsonl")
		_, id, _ := strings.Cut(base, "_")
		if !strings.HasPrefix(id, prefix) {
			if h, err := readHeader(f); err != nil || !strings.HasPrefix(h.ID, prefix) {
				continue
			}
		}
		out = append(out, f)
	}
	return out, nil
}

// Info describes a session file for `pi sessions` and the resume picker.
type Info struct {
	Path          string
	ID            string
	Cwd           string
	Name          string // from the latest session_info entry
	ParentSession string
	Created       time.Time // from the header
	Modified      time.Time // the file's mtime
	Size          int64
	MessageCount  int    // message entries
	FirstPrompt   string // text of the first user message, "" if none
}

// List describes the sessions in dir, newest first. Files that are not sessions are skipped.
func List(ctx context.Context, dir string) ([]Info, error) {
	files, err := sessionFiles(dir)
	if err != nil {
		return nil, err
	}
	var out []Info
	for _, f := range files {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		info, err := Describe(ctx, f)
		if errors.Is(err, ErrNotSession) {
			continue
		}
		if err != nil {
			return nil, err
		}
		out = append(out, info)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Modified.After(out[j].Modified) })
	return out, nil
}

// Describe reads one session file's Info without keeping its entries.
func Describe(ctx context.Context, path string) (Info, error) {
	f, err := os.Open(path)
	if err != nil {
		return Info{}, fmt.Errorf("describe session: %w", err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return Info{}, fmt.Errorf("describe session: %w", err)
	}
	info := Info{Path: path, Size: st.Size(), Modified: st.ModTime()}
	err = eachLine(ctx, f, func(first bool, line []byte) error {
		if first {
			var h Header
			if err := json.Unmarshal(line, &h); err != nil {
				return fmt.Errorf("%w: %v", ErrNotSession, err)
			}
			info.ID, info.Cwd, info.ParentSession = h.ID, h.Cwd, h.ParentSession
			info.Created, _ = time.Parse(time.RFC3339Nano, h.Timestamp)
			return nil
		}
		info.addLine(line)
		return nil
	})
	if err != nil {
		return Info{}, fmt.Errorf("describe session %s: %w", path, err)
	}
	return info, nil
}

func (info *Info) addLine(line []byte) {
	m, err := scanMeta(line)
	if err != nil {
		return
	}
	switch {
	case m.typ == TypeSessionInfo:
		var e Entry
		if json.Unmarshal(line, &e) == nil && e.Name != nil && *e.Name != "" {
			info.Name = *e.Name
		}
	case m.typ == TypeMessage:
		info.MessageCount++
		if info.FirstPrompt == "" && (m.role == "user" || m.role == "") {
			var e Entry
			if json.Unmarshal(line, &e) == nil && e.Message != nil && e.Message.Role == provider.RoleUser {
				info.FirstPrompt = e.Message.TextContent()
			}
		}
	}
}

func eachLine(ctx context.Context, r io.Reader, fn func(first bool, line []byte) error) error {
	lr := newLineReader(r)
	for i := 0; ; i++ {
		if i%1024 == 0 {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		line, _, _, err := lr.next()
		if err == io.EOF {
			if i == 0 {
				return fmt.Errorf("%w: the file is empty", ErrNotSession)
			}
			return nil
		}
		if err != nil {
			return err
		}
		if err := fn(i == 0, line); err != nil {
			return err
		}
	}
}

// ForkFile copies the session at src into a new session of cwd in dir (pi's --fork): a new
// header naming src as its parent, then src's entries line for line (migrated first if src is
// older than v3; unreadable and torn lines stay behind). The new session is open for
// appending, with the leaf on the last entry.
func ForkFile(ctx context.Context, src, dir, cwd string) (*Session, error) {
	in, err := os.Open(src)
	if err != nil {
		return nil, fmt.Errorf("fork: %w", err)
	}
	defer in.Close()
	sc, err := scanFile(ctx, in)
	if err != nil {
		return nil, fmt.Errorf("fork %s: %w", src, err)
	}
	if sc.header.Version < CurrentVersion {
		migrateEntries(&sc.header, sc.nodes)
	}
	h := newHeader(time.Now(), cwd, src)
	dst := filepath.Join(dir, fileName(h.Timestamp, h.ID))
	if err := writeCopy(in, sc.nodes, dst, h); err != nil {
		_ = os.Remove(dst)
		return nil, fmt.Errorf("fork %s: %w", src, err)
	}
	return Open(ctx, dst)
}

func writeCopy(in *os.File, nodes []node, dst string, h Header) error {
	if err := os.MkdirAll(filepath.Dir(dst), 0o700); err != nil {
		return err
	}
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return err
	}
	w := bufio.NewWriterSize(out, 1<<20)
	err = writeLine(w, h)
	var buf []byte
	for i := 0; err == nil && i < len(nodes); i++ {
		n := &nodes[i]
		if n.entry != nil && n.off < 0 { // migrated: written anew
			err = writeLine(w, n.entry)
			continue
		}
		buf = append(buf[:0], make([]byte, n.size)...)
		if _, err = in.ReadAt(buf, n.off); err == nil {
			_, err = w.Write(append(buf, '\n'))
		}
	}
	if err == nil {
		err = w.Flush()
	}
	if err == nil {
		err = out.Sync()
	}
	if cerr := out.Close(); err == nil {
		err = cerr
	}
	return err
}

func writeLine(w io.Writer, v json.Marshaler) error {
	line, err := encodeLine(v)
	if err == nil {
		_, err = w.Write(line)
	}
	return err
}
