package session

// html.go writes a conversation as one self-contained HTML page: no scripts, no outside
// resources, every text escaped. The page's markup is export.html beside it.

import (
	_ "embed"
	"encoding/json"
	"fmt"
	"html/template"
	"io"
	"strings"

	"pi/provider"
)

// WriteHTML writes msgs as a page titled title, naming the model.
func WriteHTML(w io.Writer, title, model string, msgs []provider.Message) error {
	page := exportPage{Title: title, Model: model, Items: exportItems(msgs)}
	if err := exportTemplate().Execute(w, page); err != nil {
		return fmt.Errorf("writing the HTML page: %w", err)
	}
	return nil
}

type exportPage struct {
	Title, Model string
	Items        []exportItem
}

// exportItem is one message as the page shows it: a heading and its parts.
type exportItem struct {
	Class, Label string
	Parts        []exportPart
}

type exportPart struct{ Class, Text string }

func exportItems(msgs []provider.Message) []exportItem {
	out := make([]exportItem, 0, len(msgs))
	for i := range msgs {
		out = append(out, exportItemFor(&msgs[i]))
	}
	return out
}

func exportItemFor(m *provider.Message) exportItem {
	it := exportItem{Class: string(m.Role), Label: string(m.Role)}
	switch m.Role {
	case provider.RoleUser:
		it.Label = "You"
		it.Parts = blockParts(m.Content)
		if len(it.Parts) > 0 && strings.HasPrefix(it.Parts[0].Text, "<context>") {
			it.Parts = it.Parts[1:]
		}
	case provider.RoleAssistant:
		it.Label = "Assistant · " + m.Model
		it.Parts = blockParts(m.Content)
		if m.ErrorMessage != "" {
			it.Parts = append(it.Parts, exportPart{"error", string(m.StopReason) + ": " + m.ErrorMessage})
		}
	case provider.RoleToolResult:
		it.Label = "Result of " + m.ToolName
		it.Parts = blockParts(m.Content)
		if m.IsError {
			it.Class += " error"
		}
	case RoleBashExecution:
		it.Label = "Shell"
		var cmd, out string
		_ = json.Unmarshal(m.Extra["command"], &cmd)
		_ = json.Unmarshal(m.Extra["output"], &out)
		it.Parts = []exportPart{{"tool-call", "$ " + cmd}, {"text", out}}
	case RoleCompactionSummary, RoleBranchSummary:
		it.Label = "Summary of earlier conversation"
		it.Parts = []exportPart{{"text", Summary(m)}}
	default:
		it.Parts = blockParts(m.Content)
	}
	return it
}

func blockParts(blocks []provider.Block) []exportPart {
	var parts []exportPart
	for _, b := range blocks {
		switch b.Type {
		case provider.BlockText:
			parts = append(parts, exportPart{"text", b.Text})
		case provider.BlockThinking:
			parts = append(parts, exportPart{"thinking", b.Thinking})
		case provider.BlockToolCall:
			args, _ := json.MarshalIndent(b.Arguments, "", "  ") // decoded JSON always encodes
			parts = append(parts, exportPart{"tool-call", b.Name + " " + string(args)})
		default:
			parts = append(parts, exportPart{"note", "[" + string(b.Type) + "]"})
		}
	}
	return parts
}

// exportTemplate escapes every text it inserts (html/template). It is parsed per export, which
// is rare, rather than kept in a package variable.
func exportTemplate() *template.Template {
	return template.Must(template.New("export").Parse(exportPageHTML))
}

//go:embed export.html
var exportPageHTML string
