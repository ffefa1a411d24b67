package export

import (
	"encoding/json"
	"fmt"
	"html/template"
	"strings"

	"pi/internal/atfile"
	"pi/provider"
	"pi/session"
)

// entryItem is how an entry shows; false for bookkeeping (labels, settings, script state).
func entryItem(e *session.Entry) (item, bool) {
	it := item{ID: "e-" + e.ID}
	switch e.Type {
	case session.TypeMessage:
		if e.Message == nil {
			return it, false
		}
		return messageItem(it, e.Message), true
	case session.TypeCompaction:
		it.Class, it.Label = "summary", "Summary of the conversation before"
	case session.TypeBranchSummary:
		it.Class, it.Label = "summary", "Summary of a branch left behind"
	case session.TypeCustomMessage:
		if !e.Display {
			return it, false
		}
		it.Class, it.Label = "custom", e.CustomType
		it.Parts = contentParts(e.Content)
		return it, true
	case session.TypeModelChange:
		it.Class, it.Label = "note", "Model changed to "+e.Provider+"/"+e.ModelID
		return it, true
	default:
		return it, false
	}
	it.Parts = []part{{Kind: "markdown", HTML: markdown(e.Summary)}}
	return it, true
}

func messageItem(it item, m *provider.Message) item {
	it.Class = string(m.Role)
	switch m.Role {
	case provider.RoleUser:
		it.Label = "You"
		blocks := m.Content
		if len(blocks) > 0 && blocks[0].Type == provider.BlockText && strings.HasPrefix(blocks[0].Text, "<context>") {
			blocks = blocks[1:] // the context block pi adds to a conversation's first message
		}
		it.Parts = userParts(blocks)
	case provider.RoleAssistant:
		it.Label = "Assistant"
		if m.Model != "" {
			it.Label += " · " + m.Model
		}
		it.Parts = contentParts(m.Content)
		if m.ErrorMessage != "" {
			it.Parts = append(it.Parts, part{Kind: "error", Text: string(m.StopReason) + ": " + m.ErrorMessage})
		}
	case provider.RoleToolResult:
		it.Label = "Result of " + m.ToolName
		it.Parts = resultParts(m)
		if m.IsError {
			it.Class += " error"
		}
	case session.RoleBashExecution:
		it.Label = "Shell"
		var cmd, out string
		_ = json.Unmarshal(m.Extra["command"], &cmd)
		_ = json.Unmarshal(m.Extra["output"], &out)
		it.Parts = []part{{Kind: "result", Summary: "$ " + cmd, Text: out}}
	case session.RoleBranchSummary, session.RoleCompactionSummary:
		it.Class, it.Label = "summary", "Summary of earlier conversation"
		it.Parts = []part{{Kind: "markdown", HTML: markdown(session.Summary(m))}}
	default:
		it.Label = string(m.Role)
		it.Parts = contentParts(m.Content)
	}
	return it
}

// contentParts shows a message's blocks: text as markdown, thinking and tool calls
// collapsed, images inline.
func contentParts(blocks []provider.Block) []part {
	var parts []part
	for _, b := range blocks {
		switch b.Type {
		case provider.BlockText:
			if strings.TrimSpace(b.Text) != "" {
				parts = append(parts, part{Kind: "markdown", HTML: markdown(b.Text)})
			}
		case provider.BlockThinking:
			if strings.TrimSpace(b.Thinking) != "" {
				parts = append(parts, part{Kind: "thinking", Summary: "Thinking", HTML: markdown(b.Thinking)})
			}
		case provider.BlockToolCall:
			args, _ := json.MarshalIndent(b.Arguments, "", "  ") // decoded JSON always encodes
			parts = append(parts, part{Kind: "call", Summary: callSummary(b), Text: string(args)})
		case provider.BlockImage:
			parts = append(parts, imagePart(b))
		}
	}
	return parts
}

// userParts shows a user message as contentParts does, but each file an @file attached as
// its name and size, its text folded under them.
func userParts(blocks []provider.Block) []part {
	var parts []part
	for _, b := range blocks {
		if b.Type != provider.BlockText {
			parts = append(parts, contentParts([]provider.Block{b})...)
			continue
		}
		for _, p := range atfile.Split(b.Text) {
			if f := p.File; f != nil {
				parts = append(parts, part{Kind: "result", Summary: f.Label() + " " + f.Path, Text: f.Body})
			} else {
				parts = append(parts, contentParts([]provider.Block{provider.Text(p.Text)})...)
			}
		}
	}
	return parts
}

// resultParts shows a tool result: its text collapsed under a one-line summary, its images
// inline below.
func resultParts(m *provider.Message) []part {
	var text strings.Builder
	var imgs []part
	for _, b := range m.Content {
		switch b.Type {
		case provider.BlockText:
			text.WriteString(b.Text)
		case provider.BlockImage:
			imgs = append(imgs, imagePart(b))
		}
	}
	s := strings.TrimRight(text.String(), "\n")
	lines := strings.Count(s, "\n") + 1
	summary := fmt.Sprintf("%s · %d lines", m.ToolName, lines)
	if lines == 1 {
		summary = m.ToolName + " · " + provider.OneLine(s, 80)
	}
	if m.IsError {
		summary = "failed: " + summary
	}
	return append([]part{{Kind: "result", Summary: summary, Text: s, Open: m.IsError}}, imgs...)
}

// callSummary is a tool call in one line: the tool and its main argument.
func callSummary(b provider.Block) string {
	for _, k := range []string{"command", "path", "file_path", "pattern", "query"} {
		if v, ok := b.Arguments[k].(string); ok {
			return b.Name + " " + provider.OneLine(v, 100)
		}
	}
	return b.Name
}

// imageMIMEs are the types a page shows inline; anything else is named, not embedded.
var imageMIMEs = map[string]bool{"image/png": true, "image/jpeg": true, "image/gif": true, "image/webp": true}

// imagePart embeds an image as a data: URL, after checking that it can be nothing else.
func imagePart(b provider.Block) part {
	if !imageMIMEs[b.MimeType] || !isBase64(b.Data) {
		return part{Kind: "text", Text: "[image " + b.MimeType + " not shown]"}
	}
	return part{Kind: "image", Src: template.URL("data:" + b.MimeType + ";base64," + b.Data), Summary: b.MimeType}
}

func isBase64(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '+' || c == '/' || c == '=') {
			return false
		}
	}
	return true
}
