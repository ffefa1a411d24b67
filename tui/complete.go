package tui

import (
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"pi/internal/gitwalk"
	"pi/tui/theme"
)

// Command is a slash command offered for completion: built-in, Lua, skill or template.
type Command struct {
	Name        string // without the slash
	Description string
	ArgHint     string // e.g. "<file>" or "[instructions]"
	// Complete, when set, returns completions for the argument text typed so far.
	Complete func(arg string) []string
}

// suggestion is one line of the completion popup; insert replaces the completed range.
type suggestion struct{ label, detail, insert string }

const popupRows = 8

// fileListAge is how long the @file list is kept: files created since are offered after it.
const fileListAge = 2 * time.Second

// completer keeps the popup for the editor: /commands with argument hints and @files.
type completer struct {
	cwd      string
	files    []string
	loaded   bool
	loadedAt time.Time // files are listed again once older than fileListAge
	items    []suggestion
	sel      int
	from, to int    // rune range of the editor text the selection replaces
	hint     string // usage line for a command whose name is complete
	pathMode bool   // the popup lists paths (Tab on a path) and follows the typing
	moved    bool   // the user moved the selection with Up/Down since the popup opened
}

// update recomputes the popup from the editor's text before the cursor. The best match is
// selected; only a selection the user moved with Up/Down stays on its item while that item
// is still offered, so Tab never inserts a file the typed letters no longer rank first.
func (c *completer) update(e *Editor, cmds []Command) {
	prev := ""
	if c.moved && c.sel < len(c.items) {
		prev = c.items[c.sel].label
	}
	defer func() {
		c.keepSelection(prev)
		c.moved = c.moved && len(c.items) > 0
	}()
	c.items, c.hint, c.sel = nil, "", 0
	if c.pathMode {
		c.paths(e)
		c.pathMode = len(c.items) > 0
		return
	}
	before := string(e.buf[:e.cursor])
	if strings.HasPrefix(string(e.buf), "/") {
		c.commands(before, cmds)
		return
	}
	start := strings.LastIndexAny(before, " \t\n") + 1
	if tok := before[start:]; strings.HasPrefix(tok, "@") {
		c.fileItems(tok[1:])
		c.from, c.to = len([]rune(before[:start])), e.cursor
	}
}

func (c *completer) keepSelection(label string) {
	for i, it := range c.items {
		if it.label == label {
			c.sel = i
			return
		}
	}
}

func (c *completer) commands(before string, cmds []Command) {
	sp := strings.IndexAny(before, " \t\n")
	if sp < 0 {
		prefix := strings.ToLower(before[1:])
		for _, cmd := range cmds {
			if strings.HasPrefix(strings.ToLower(cmd.Name), prefix) {
				c.items = append(c.items, suggestion{"/" + cmd.Name, cmd.Description, "/" + cmd.Name + " "})
			}
		}
		c.from, c.to = 0, len([]rune(before))
		return
	}
	name := before[1:sp]
	for _, cmd := range cmds {
		if cmd.Name != name {
			continue
		}
		c.hint = strings.TrimSpace("/" + cmd.Name + " " + cmd.ArgHint + "  " + cmd.Description)
		if cmd.Complete != nil {
			arg := strings.TrimLeft(before[sp:], " ")
			for _, s := range cmd.Complete(arg) {
				c.items = append(c.items, suggestion{label: s, insert: s})
			}
			c.from, c.to = len([]rune(before))-len([]rune(arg)), len([]rune(before))
		}
	}
}

func (c *completer) fileItems(query string) {
	if !c.loaded || time.Since(c.loadedAt) > fileListAge {
		c.files, c.loaded, c.loadedAt = listFiles(c.cwd, 20000), true, time.Now()
	}
	type scored struct {
		path  string
		score int
	}
	var hits []scored
	for _, f := range c.files {
		if s, ok := fuzzyScore(f, query); ok {
			hits = append(hits, scored{f, s})
		}
	}
	sort.SliceStable(hits, func(i, j int) bool { return hits[i].score > hits[j].score })
	for i := 0; i < len(hits) && i < 50; i++ {
		p := hits[i].path
		ins := "@" + p
		if strings.ContainsRune(p, ' ') {
			ins = `@"` + p + `"`
		}
		if !strings.HasSuffix(p, "/") {
			ins += " "
		}
		c.items = append(c.items, suggestion{label: p, insert: ins})
	}
}

// accept replaces the completed range with the selection; it reports false with no popup.
func (c *completer) accept(e *Editor) bool {
	if len(c.items) == 0 {
		return false
	}
	it := c.items[c.sel]
	e.snapshot("complete")
	rest := append([]rune(it.insert), e.buf[c.to:]...)
	e.buf = append(e.buf[:c.from:c.from], rest...)
	e.cursor = c.from + len([]rune(it.insert))
	c.items, c.pathMode, c.moved = nil, false, false
	return true
}

func (c *completer) move(d int) {
	if n := len(c.items); n > 0 {
		c.sel = (c.sel + d + n) % n
		c.moved = true
	}
}

// render draws the popup below the editor.
func (c *completer) render(th *theme.Theme, width int) []string {
	var out []string
	first := max(0, c.sel-popupRows+1)
	for i := first; i < len(c.items) && i < first+popupRows; i++ {
		it := c.items[i]
		line := it.label
		if it.detail != "" {
			line += "  " + paint(th.Muted, it.detail)
		}
		line = Truncate(line, max(width-2, 1), "…")
		if i == c.sel {
			out = append(out, paint(th.Accent, "› ")+paint(sBold, line))
		} else {
			out = append(out, "  "+line)
		}
	}
	if c.hint != "" {
		out = append(out, paint(th.Muted, Truncate(c.hint, width, "…")))
	}
	return out
}

// fuzzyScore matches query as a subsequence of path, case-insensitively. Matches at the
// start of a path component and runs of consecutive letters score higher; long paths lower.
func fuzzyScore(path, query string) (int, bool) {
	p, q := strings.ToLower(path), strings.ToLower(query)
	score, j, prev := 0, 0, -2
	for i := 0; i < len(p) && j < len(q); i++ {
		if p[i] != q[j] {
			continue
		}
		score += 10
		if i == prev+1 {
			score += 15
		}
		if i == 0 || p[i-1] == '/' || p[i-1] == '_' || p[i-1] == '-' || p[i-1] == '.' {
			score += 20
		}
		prev = i
		j++
	}
	if j < len(q) {
		return 0, false
	}
	// Greedy matching finds the leftmost letters, not the best run: reward the query as a
	// whole substring, more at the start of a path component.
	bonus := 0
	for off := 0; q != ""; {
		i := strings.Index(p[off:], q)
		if i < 0 {
			break
		}
		i += off
		b := 30
		if i == 0 || strings.IndexByte("/_-.", p[i-1]) >= 0 {
			b = 50
		}
		bonus = max(bonus, b)
		off = i + 1
	}
	return score + bonus - len(p)/4, true
}

// listFiles walks root for the @file popup: directories (with a trailing slash) and files,
// relative, as git sees the tree (nested .gitignore files, negations, .git skipped), at most
// limit entries.
func listFiles(root string, limit int) []string {
	var out []string
	gitwalk.Walk(context.Background(), root, func(rel string, d fs.DirEntry) error {
		if d.IsDir() {
			rel += "/"
		}
		out = append(out, rel)
		if len(out) >= limit {
			return gitwalk.ErrStop
		}
		return nil
	})
	sort.SliceStable(out, func(i, j int) bool {
		di, dj := strings.HasSuffix(out[i], "/"), strings.HasSuffix(out[j], "/")
		return di && !dj
	})
	return out
}

// paths offers the entries of a directory for the path before the cursor (Tab on "./src/ma",
// "../", "~/notes"): directories first, with a trailing slash, names that start with what is
// typed.
func (c *completer) paths(e *Editor) {
	before := string(e.buf[:e.cursor])
	start := strings.LastIndexAny(before, " \t\n") + 1
	tok := before[start:]
	if !strings.ContainsRune(tok, '/') && !strings.HasPrefix(tok, "~") {
		return
	}
	dir, prefix := filepath.Split(tok)
	real := dir
	if strings.HasPrefix(real, "~") {
		if home, err := os.UserHomeDir(); err == nil {
			real = home + real[1:]
		}
	}
	if real == "" {
		real = "."
	}
	if !filepath.IsAbs(real) {
		real = filepath.Join(c.cwd, real)
	}
	entries, err := os.ReadDir(real)
	if err != nil {
		return
	}
	var dirs, files []suggestion
	for _, en := range entries {
		name := en.Name()
		if !strings.HasPrefix(name, prefix) || (strings.HasPrefix(name, ".") && !strings.HasPrefix(prefix, ".")) {
			continue
		}
		if en.IsDir() {
			dirs = append(dirs, suggestion{label: dir + name + "/", insert: dir + name + "/"})
		} else {
			files = append(files, suggestion{label: dir + name, insert: dir + name + " "})
		}
	}
	c.items = append(dirs, files...)
	c.from, c.to = len([]rune(before[:start])), e.cursor
	c.pathMode = len(c.items) > 1
}
