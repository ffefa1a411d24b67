package session

// importfile.go is /import: a session written elsewhere opened as a new session of this
// folder. A pi session file is copied (as a fork is, its header naming the source); a Claude
// Code session (~/.claude/projects/*/<id>.jsonl) is converted, message by message, along the
// order of its file.

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"time"

	"pi/internal/safefile"
	"pi/provider"
)

// maxImportLine bounds one line of a file being imported; longer lines (a huge pasted image)
// are skipped with a warning rather than read whole.
const maxImportLine = 64 << 20

// ErrUnknownFormat is what Import returns for a file that is neither pi's nor Claude Code's.
var ErrUnknownFormat = errors.New("neither a pi session nor a Claude Code session")

// Import opens src as a new session in dir (for cwd) and returns it, with how many lines of a
// Claude Code file it could not use.
func Import(ctx context.Context, src, dir, cwd string) (*Session, int, error) {
	return importWith(ctx, src, func() (*Session, error) { return ForkFile(ctx, src, dir, cwd) },
		func() *Session { return Create(dir, cwd) })
}

// ImportInto is Import into the store st: a pi session is forked into it, a Claude Code
// session converted into a new session of cwd there, written in one batch (a database store
// writes it in one transaction).
func ImportInto(ctx context.Context, st Store, src, cwd string) (*Session, int, error) {
	return importWith(ctx, src, func() (*Session, error) { return st.Fork(ctx, src, cwd) },
		func() *Session { return st.New(cwd, "") })
}

// importWith reads src's first line to tell pi's format from Claude Code's, then forks a pi
// session, or converts a Claude Code one into the session create makes.
func importWith(ctx context.Context, src string, fork func() (*Session, error), create func() *Session) (*Session, int, error) {
	f, err := safefile.OpenFile(src, os.O_RDONLY)
	if err != nil {
		return nil, 0, fmt.Errorf("import: %w", err)
	}
	defer f.Close()
	first, err := firstLine(f)
	if err != nil {
		return nil, 0, fmt.Errorf("import %s: %w", src, err)
	}
	var head struct {
		Type    string          `json:"type"`
		Message json.RawMessage `json:"message"`
	}
	if json.Unmarshal(first, &head) == nil && head.Type == "session" {
		s, err := fork()
		if err != nil {
			return nil, 0, fmt.Errorf("import %s: %w", src, err)
		}
		return s, 0, nil
	}
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return nil, 0, fmt.Errorf("import %s: %w", src, err)
	}
	msgs, skipped, err := claudeCodeMessages(ctx, f)
	if err != nil {
		return nil, skipped, fmt.Errorf("import %s: %w", src, err)
	}
	s := create()
	if err := s.appendMessages(msgs); err != nil {
		s.Close()
		return nil, skipped, fmt.Errorf("import %s: %w", src, err)
	}
	return s, skipped, nil
}

func firstLine(r io.Reader) ([]byte, error) {
	br := bufio.NewReaderSize(r, 64<<10)
	for {
		line, err := br.ReadSlice('\n')
		if t := bytes.TrimSpace(line); len(t) > 0 || err != nil {
			if len(t) == 0 {
				return nil, fmt.Errorf("the file is empty: %w", ErrUnknownFormat)
			}
			return t, nil
		}
	}
}

// ccLine is one line of a Claude Code session: a user or assistant message in Anthropic's
// shape, or something else (a summary, a file snapshot), which is left out.
type ccLine struct {
	Type        string     `json:"type"`
	IsSidechain bool       `json:"isSidechain"`
	IsMeta      bool       `json:"isMeta"`
	Timestamp   string     `json:"timestamp"`
	Message     *ccMessage `json:"message"`
}

type ccMessage struct {
	ID      string          `json:"id"`
	Role    string          `json:"role"`
	Model   string          `json:"model"`
	Content json.RawMessage `json:"content"`
	Usage   *struct {
		Input      int `json:"input_tokens"`
		Output     int `json:"output_tokens"`
		CacheRead  int `json:"cache_read_input_tokens"`
		CacheWrite int `json:"cache_creation_input_tokens"`
	} `json:"usage"`
}

type ccBlock struct {
	Type      string          `json:"type"`
	Text      string          `json:"text"`
	Thinking  string          `json:"thinking"`
	Signature string          `json:"signature"`
	ID        string          `json:"id"`
	Name      string          `json:"name"`
	Input     map[string]any  `json:"input"`
	ToolUseID string          `json:"tool_use_id"`
	Content   json.RawMessage `json:"content"`
	IsError   bool            `json:"is_error"`
	Source    *struct {
		Type      string `json:"type"`
		MediaType string `json:"media_type"`
		Data      string `json:"data"`
	} `json:"source"`
}

// claudeCodeMessages reads a Claude Code session as pi's messages: its main thread (not the
// side chains of its subagents, not its meta lines), an assistant reply split over several
// lines joined back into one message.
func claudeCodeMessages(ctx context.Context, r io.Reader) ([]provider.Message, int, error) {
	c := ccConverter{toolNames: map[string]string{}}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), maxImportLine)
	for sc.Scan() {
		if ctx.Err() != nil {
			return nil, c.skipped, ctx.Err()
		}
		c.line(sc.Bytes())
	}
	if err := sc.Err(); err != nil && !errors.Is(err, bufio.ErrTooLong) {
		return nil, c.skipped, err
	} else if err != nil {
		c.skipped++
	}
	if len(c.out) == 0 {
		return nil, c.skipped, ErrUnknownFormat
	}
	return c.out, c.skipped, nil
}

type ccConverter struct {
	out       []provider.Message
	toolNames map[string]string // tool_use id → tool name, for the results
	lastID    string            // the message id of the assistant reply being joined
	skipped   int
}

func (c *ccConverter) line(data []byte) {
	if len(bytes.TrimSpace(data)) == 0 {
		return
	}
	var l ccLine
	if err := json.Unmarshal(data, &l); err != nil {
		c.skipped++
		return
	}
	if l.Message == nil || l.IsSidechain || l.IsMeta || (l.Type != "user" && l.Type != "assistant") {
		return
	}
	ts := int64(0)
	if t, err := time.Parse(time.RFC3339Nano, l.Timestamp); err == nil {
		ts = t.UnixMilli()
	}
	blocks, text, isString := ccBlocks(l.Message.Content)
	if l.Type == "assistant" {
		c.assistant(l.Message, blocks, ts)
		return
	}
	c.lastID = ""
	if isString {
		c.out = append(c.out, provider.Message{Role: provider.RoleUser, Content: []provider.Block{provider.Text(text)},
			StringContent: true, Timestamp: ts})
		return
	}
	c.user(blocks, ts)
}

// ccBlocks decodes content: a string, or a list of blocks.
func ccBlocks(raw json.RawMessage) (blocks []ccBlock, text string, isString bool) {
	if json.Unmarshal(raw, &text) == nil {
		return nil, text, true
	}
	_ = json.Unmarshal(raw, &blocks) // an odd shape leaves nothing to import of that line
	return blocks, "", false
}

func (c *ccConverter) assistant(m *ccMessage, blocks []ccBlock, ts int64) {
	if m.ID == "" || m.ID != c.lastID || len(c.out) == 0 {
		msg := provider.Message{Role: provider.RoleAssistant, Content: []provider.Block{}, API: "anthropic-messages",
			Provider: "anthropic", Model: m.Model, StopReason: provider.StopStop, Timestamp: ts, Usage: &provider.Usage{}}
		c.out, c.lastID = append(c.out, msg), m.ID
	}
	last := &c.out[len(c.out)-1]
	if u := m.Usage; u != nil {
		last.Usage = &provider.Usage{Input: u.Input, Output: u.Output, CacheRead: u.CacheRead, CacheWrite: u.CacheWrite,
			TotalTokens: u.Input + u.Output + u.CacheRead + u.CacheWrite}
	}
	for _, b := range blocks {
		switch b.Type {
		case "text":
			last.Content = append(last.Content, provider.Text(b.Text))
		case "thinking":
			last.Content = append(last.Content, provider.Block{Type: provider.BlockThinking, Thinking: b.Thinking, ThinkingSignature: b.Signature})
		case "tool_use":
			args := b.Input
			if args == nil {
				args = map[string]any{}
			}
			last.Content = append(last.Content, provider.ToolCall(b.ID, b.Name, args))
			last.StopReason = provider.StopToolUse
			c.toolNames[b.ID] = b.Name
		}
	}
}

// user turns a user line's blocks into a user message (text, pictures) and a tool result per
// tool_result block, in the order they come.
func (c *ccConverter) user(blocks []ccBlock, ts int64) {
	var content []provider.Block
	for _, b := range blocks {
		switch b.Type {
		case "text":
			content = append(content, provider.Text(b.Text))
		case "image":
			if b.Source != nil && b.Source.Type == "base64" {
				content = append(content, provider.Image(b.Source.Data, b.Source.MediaType))
			}
		case "tool_result":
			inner, text, isString := ccBlocks(b.Content)
			res := []provider.Block{provider.Text(text)}
			if !isString {
				res = nil
				for _, ib := range inner {
					if ib.Type == "text" {
						res = append(res, provider.Text(ib.Text))
					}
				}
			}
			c.out = append(c.out, provider.Message{Role: provider.RoleToolResult, ToolCallID: b.ToolUseID,
				ToolName: c.toolNames[b.ToolUseID], Content: res, IsError: b.IsError, Timestamp: ts})
		}
	}
	if len(content) > 0 {
		c.out = append(c.out, provider.Message{Role: provider.RoleUser, Content: content, Timestamp: ts})
	}
}
