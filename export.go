package main

// export.go writes a session as one self-contained HTML page (no scripts, no outside
// resources), for /export and RPC export_html.

import (
	"encoding/json"
	"fmt"
	"html/template"
	"os"
	"path/filepath"
	"strings"

	"pi/provider"
	"pi/session"
)

// exportHTML writes the conversation as one self-contained HTML page (no scripts, no outside
// resources) and returns its path. An empty path means pi-session-<session file>.html in the
// working directory.
func exportHTML(sess *session.Session, msgs []provider.Message, model, cwd, path string) (string, error) {
	if path == "" {
		base := strings.TrimSuffix(filepath.Base(sess.Path()), ".jsonl")
		if sess.Path() == "" {
			base = sess.ID()
		}
		path = filepath.Join(cwd, "pi-session-"+base+".html")
	}
	path, err := filepath.Abs(path)
	if err != nil {
		return "", fmt.Errorf("export to %q: %w", path, err)
	}
	page := exportPage{Title: "pi session " + sess.ID(), Model: model,
		Items: exportItems(msgs)}
	if name := sess.Name(); name != "" {
		page.Title = name
	}
	var buf strings.Builder
	if err := exportTemplate().Execute(&buf, page); err != nil {
		return "", fmt.Errorf("export to %s: %w", path, err)
	}
	if err := os.WriteFile(path, []byte(buf.String()), 0o644); err != nil {
		return "", fmt.Errorf("export to %s: %w", path, err)
	}
	return path, nil
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
	case session.RoleBashExecution:
		it.Label = "Shell"
		var cmd, out string
		_ = json.Unmarshal(m.Extra["command"], &cmd)
		_ = json.Unmarshal(m.Extra["output"], &out)
		it.Parts = []exportPart{{"tool-call", "$ " + cmd}, {"text", out}}
	case session.RoleCompactionSummary, session.RoleBranchSummary:
		it.Label = "Summary of earlier conversation"
		it.Parts = []exportPart{{"text", session.Summary(m)}}
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

const exportPageHTML = `<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{{.Title}}</title>
<style>
body{font:15px/1.5 system-ui,sans-serif;max-width:52rem;margin:2rem auto;padding:0 1rem;color:#222;background:#fafafa}
section{border-left:4px solid #bbb;background:#fff;margin:1rem 0;padding:.5rem 1rem;border-radius:4px}
section.user{border-color:#3a7bd5}section.assistant{border-color:#2e9e5b}
section.toolResult{border-color:#999}section.error{border-color:#d33}
h2{font-size:.8rem;text-transform:uppercase;letter-spacing:.05em;color:#666;margin:.2rem 0}
pre{white-space:pre-wrap;word-wrap:break-word;font:13px/1.4 ui-monospace,monospace;margin:.4rem 0}
pre.text{font:15px/1.5 system-ui,sans-serif}pre.thinking{color:#777;font-style:italic}
pre.tool-call{background:#f2f2f2;padding:.4rem}pre.error{color:#d33}
</style></head><body>
<h1>{{.Title}}</h1><p>Model: {{.Model}}</p>
{{range .Items}}<section class="{{.Class}}"><h2>{{.Label}}</h2>
{{range .Parts}}<pre class="{{.Class}}">{{.Text}}</pre>
{{end}}</section>
{{end}}</body></html>
`
