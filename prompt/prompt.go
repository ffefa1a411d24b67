// Package prompt builds what the model reads before the user's words: the system prompt (pi's
// base text or SYSTEM.md, the tools' one-liners and guidelines, AGENTS.md/CLAUDE.md files) and
// the context block that opens a conversation. It reads those files but runs nothing and
// holds no state; the root package decides when to build.
package prompt

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"strings"
	"time"

	"pi/internal/safefile"
	"pi/provider"
	"pi/tools"
)

// The system prompt is kept short on purpose: a small local model re-reads it on every turn,
// and every 1,000 tokens cost seconds of prefill on a laptop CPU.
const basePrompt = `You are pi, a coding agent in the user's project. Read files before you change them, make focused edits, and run commands to check your work when that helps.`

// closingGuideline ends every guideline list.
const closingGuideline = "Be brief. Show file paths clearly when you mention files."

// ContextFile is an instruction file (AGENTS.md or CLAUDE.md) added to the system prompt.
type ContextFile struct {
	Path    string
	Content string
}

// Parts are the inputs of the system prompt. The same parts always give the same bytes,
// so a model server can keep the prompt prefix cached.
type Parts struct {
	Tools        []tools.Tool  // the active tools
	Body         string        // replaces basePrompt: --system-prompt or .pi/SYSTEM.md
	Append       []string      // --append-system-prompt, APPEND_SYSTEM.md
	ContextFiles []ContextFile // global first, then from the filesystem root down to the cwd
}

// WithTools is p listing ts as the active tools.
func (p Parts) WithTools(ts []tools.Tool) Parts {
	p.Tools = ts
	return p
}

// Build assembles the system prompt. What changes between sessions (date, working
// directory) is deliberately left out: see ContextBlock.
func Build(p Parts) string {
	var b strings.Builder
	body := strings.TrimSpace(p.Body)
	if body == "" {
		body = basePrompt
	}
	b.WriteString(body)
	if p.Body == "" {
		writeToolList(&b, p.Tools)
		b.WriteString("\n\nGuidelines:")
		for _, g := range guidelines(p.Tools) {
			b.WriteString("\n- ")
			b.WriteString(g)
		}
	}
	for _, extra := range p.Append {
		if extra = strings.TrimSpace(extra); extra != "" {
			b.WriteString("\n\n")
			b.WriteString(strings.TrimRight(extra, "\n"))
		}
	}
	if len(p.ContextFiles) > 0 {
		b.WriteString("\n\n# Project instructions\n")
		for _, f := range p.ContextFiles {
			fmt.Fprintf(&b, "\n## %s\n\n%s\n", f.Path, strings.TrimSpace(f.Content))
		}
	}
	return strings.TrimRight(b.String(), "\n")
}

// writeToolList lists the tools that have a prompt snippet, as pi does. The built-ins have none:
// their definitions, sent with every request, already name and describe them, and saying it
// twice costs a small model prefill time for nothing. With no tools at all it says so.
func writeToolList(b *strings.Builder, active []tools.Tool) {
	if len(active) == 0 {
		b.WriteString("\n\nTools: (none)")
		return
	}
	listed := 0
	for _, t := range active {
		info := t.Info()
		if snippet := strings.TrimSpace(info.Snippet); snippet != "" {
			if listed == 0 {
				b.WriteString("\n\nTools:")
			}
			fmt.Fprintf(b, "\n- %s: %s", info.Name, firstLine(snippet))
			listed++
		}
	}
}

// guidelines collects the active tools' guidelines, trimmed and without repeats, in order.
func guidelines(active []tools.Tool) []string {
	seen := map[string]bool{}
	var out []string
	add := func(g string) {
		g = strings.TrimSpace(g)
		if g != "" && !seen[g] {
			seen[g] = true
			out = append(out, g)
		}
	}
	for _, t := range active {
		for _, g := range t.Info().Guidelines {
			add(g)
		}
	}
	add(closingGuideline)
	return out
}

func firstLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i]
	}
	return s
}

// ContextBlock is placed at the start of the first user message of a conversation. Chat
// templates render the system prompt before the tool schemas, so putting the date and folder
// there would make every new folder re-process the tools; here they cost only their own tokens.
func ContextBlock(cwd string, now time.Time) string {
	return fmt.Sprintf("<context>\nDate: %s\nWorking directory: %s\n</context>", now.Format("2006-01-02"), cwd)
}

// FirstUserMessage builds a user message, leading with the context block when it opens the
// conversation.
func FirstUserMessage(text string, images []provider.Block, opensConversation bool, cwd string, now time.Time) provider.Message {
	msg := provider.Message{Role: provider.RoleUser, Timestamp: now.UnixMilli()}
	if opensConversation {
		msg.Content = append(msg.Content, provider.Text(ContextBlock(cwd, now)))
	}
	msg.Content = append(msg.Content, provider.Text(text))
	msg.Content = append(msg.Content, images...)
	if len(msg.Content) == 1 {
		msg.StringContent = true
	}
	return msg
}

// LoadContextFiles finds AGENTS.md (or CLAUDE.md) in piHome, then in every directory from the
// filesystem root down to cwd; at most one file per directory.
func LoadContextFiles(piHome, cwd string) ([]ContextFile, error) {
	var dirs []string
	for dir := filepath.Clean(cwd); ; dir = filepath.Dir(dir) {
		dirs = append(dirs, dir)
		if filepath.Dir(dir) == dir {
			break
		}
	}
	var files []ContextFile
	seen := map[string]bool{}
	visit := func(dir string) error {
		f, err := readContextFile(dir)
		if err != nil || f == nil || seen[f.Path] {
			return err
		}
		seen[f.Path] = true
		files = append(files, *f)
		return nil
	}
	if piHome != "" {
		if err := visit(piHome); err != nil {
			return nil, err
		}
	}
	for i := len(dirs) - 1; i >= 0; i-- {
		if err := visit(dirs[i]); err != nil {
			return nil, err
		}
	}
	return files, nil
}

func readContextFile(dir string) (*ContextFile, error) {
	for _, name := range []string{"AGENTS.md", "AGENTS.MD", "CLAUDE.md", "CLAUDE.MD"} {
		path := filepath.Join(dir, name)
		data, err := safefile.ReadFile(context.Background(), path, safefile.MaxTextFile)
		if errors.Is(err, fs.ErrNotExist) || errors.Is(err, fs.ErrPermission) {
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("reading context file %s: %w", path, err)
		}
		return &ContextFile{Path: path, Content: string(data)}, nil
	}
	return nil, nil
}

// PromptFiles are SYSTEM.md and APPEND_SYSTEM.md as they apply to one run.
type PromptFiles struct {
	Body   string // replaces the base prompt: the project's .pi/SYSTEM.md if trusted, else $PI_HOME's
	Append string // added after the prompt: an untrusted project's SYSTEM.md, then APPEND_SYSTEM.md
	// Demoted is the path of an untrusted project's SYSTEM.md, added after pi's prompt as its
	// AGENTS.md is instead of replacing it: an untrusted folder must not drop pi's own text.
	Demoted string
}

// LoadPromptFiles reads .pi/SYSTEM.md and APPEND_SYSTEM.md, the project's first, then those
// in piHome. A missing file is not an error. An untrusted project's SYSTEM.md does not replace
// the prompt's body (the user's $PI_HOME/SYSTEM.md still may); it is appended instead.
func LoadPromptFiles(piHome, cwd string, projectTrusted bool) (PromptFiles, error) {
	project := filepath.Join(cwd, ".pi")
	read := func(name string, dirs ...string) (string, error) {
		for _, dir := range dirs {
			if dir == "" {
				continue
			}
			data, err := safefile.ReadFile(context.Background(), filepath.Join(dir, name), safefile.MaxTextFile)
			if err == nil {
				return string(data), nil
			}
			if !errors.Is(err, fs.ErrNotExist) {
				return "", fmt.Errorf("reading %s: %w", filepath.Join(dir, name), err)
			}
		}
		return "", nil
	}
	var f PromptFiles
	var err error
	bodyDirs := []string{project, piHome}
	if !projectTrusted {
		if f.Append, err = read("SYSTEM.md", project); err != nil {
			return f, err
		}
		if strings.TrimSpace(f.Append) != "" {
			f.Demoted = filepath.Join(project, "SYSTEM.md")
		}
		bodyDirs = []string{piHome}
	}
	if f.Body, err = read("SYSTEM.md", bodyDirs...); err != nil {
		return f, err
	}
	appendText, err := read("APPEND_SYSTEM.md", project, piHome)
	f.Append = strings.TrimSpace(strings.TrimSpace(f.Append) + "\n\n" + strings.TrimSpace(appendText))
	return f, err
}
