package ollama

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"github.com/ollama/ollama/api"

	"pi/provider"
	"pi/provider/textcalls"
)

func (p *Provider) buildRequest(req *provider.Request, info *modelInfo) (*api.ChatRequest, error) {
	stream, off := true, false
	chat := &api.ChatRequest{
		Model:     req.Model.ID,
		Stream:    &stream,
		KeepAlive: &api.Duration{Duration: p.cfg.KeepAlive},
		Options:   map[string]any{"num_ctx": p.numCtx(&req.Model, info)},
		Think:     thinkValue(req.Options.Thinking, info),
		Truncate:  &off,
		Shift:     &off,
		Format:    req.ReplySchema,
	}
	if n := req.Options.MaxTokens; n > 0 {
		chat.Options["num_predict"] = n
	} else if n := req.Model.MaxTokens; n > 0 {
		chat.Options["num_predict"] = n
	}
	if t := req.Options.Temperature; t != nil {
		chat.Options["temperature"] = *t
	}
	textTools := toolsAsText(req, info)
	if system := systemPrompt(req, textTools); system != "" {
		chat.Messages = append(chat.Messages, api.Message{Role: "system", Content: system})
	}
	images := req.Model.AcceptsImages() || info.has("vision")
	for _, m := range provider.ReplayMessages(req.Messages) {
		msg, err := convertMessage(&m, images)
		if err != nil {
			return nil, err
		}
		if textTools {
			msg = callsAsText(msg)
		}
		chat.Messages = append(chat.Messages, msg)
	}
	if textTools {
		return chat, nil
	}
	for _, t := range req.Tools {
		tool, err := convertTool(t)
		if err != nil {
			return nil, err
		}
		chat.Tools = append(chat.Tools, tool)
	}
	return chat, nil
}

// toolsAsText reports whether the tools go into the system prompt instead of the request: the
// server says the model has no tools capability (its template has no place for them, and Ollama
// would refuse the request), so the model is told to write calls as text, which
// provider/textcalls reads back. Not when that recovery is off, nor when the server lists no
// capabilities at all (an old server), nor without tools.
func toolsAsText(req *provider.Request, info *modelInfo) bool {
	return len(req.Tools) > 0 && !req.Model.NoTextToolCalls && len(info.capabilities) > 0 && !info.has("tools")
}

func systemPrompt(req *provider.Request, textTools bool) string {
	if !textTools {
		return req.SystemPrompt
	}
	if req.SystemPrompt == "" {
		return textcalls.Instructions(req.Tools)
	}
	return req.SystemPrompt + "\n\n" + textcalls.Instructions(req.Tools)
}

// callsAsText renders earlier calls and results for a model without tools: a call as the markup
// the instructions ask for, a result as a user message, since such templates often drop the tool
// role.
func callsAsText(msg api.Message) api.Message {
	switch {
	case msg.Role == "tool":
		return api.Message{Role: "user", Content: textcalls.Response(msg.ToolName, msg.Content), Images: msg.Images}
	case len(msg.ToolCalls) > 0:
		parts := []string{}
		if msg.Content != "" {
			parts = append(parts, msg.Content)
		}
		for _, c := range msg.ToolCalls {
			parts = append(parts, textcalls.Markup(c.Function.Name, c.Function.Arguments.ToMap()))
		}
		msg.Content, msg.ToolCalls = strings.Join(parts, "\n"), nil
	}
	return msg
}

// thinkValue maps pi's level onto what the model accepts: nothing for a model that cannot
// think (Ollama would refuse the request), "low"/"medium"/"high" for gpt-oss, which cannot
// switch thinking off, and a boolean for the rest. "off" is sent as false on purpose: models
// such as qwen3 think by default.
func thinkValue(level string, info *modelInfo) *api.ThinkValue {
	if !info.has("thinking") {
		return nil
	}
	if info.harmony {
		switch level {
		case "medium":
			return &api.ThinkValue{Value: "medium"}
		case "high", "xhigh", "max":
			return &api.ThinkValue{Value: "high"}
		}
		return &api.ThinkValue{Value: "low"}
	}
	return &api.ThinkValue{Value: level != "" && level != "off"}
}

func convertMessage(m *provider.Message, images bool) (api.Message, error) {
	out := api.Message{Role: string(m.Role)}
	var text, thinking strings.Builder
	for _, b := range m.Content {
		switch b.Type {
		case provider.BlockText:
			if text.Len() > 0 && m.Role == provider.RoleToolResult {
				text.WriteByte('\n')
			}
			text.WriteString(b.Text)
		case provider.BlockThinking:
			thinking.WriteString(b.Thinking)
		case provider.BlockImage:
			if !images {
				if text.Len() > 0 {
					text.WriteByte('\n')
				}
				text.WriteString("(image omitted: this model does not take images)")
				continue
			}
			data, err := base64.StdEncoding.DecodeString(b.Data)
			if err != nil {
				return api.Message{}, fmt.Errorf("image in a %s message: %w", m.Role, err)
			}
			out.Images = append(out.Images, data)
		case provider.BlockToolCall:
			out.ToolCalls = append(out.ToolCalls, api.ToolCall{ID: b.ID,
				Function: api.ToolCallFunction{Index: len(out.ToolCalls), Name: b.Name, Arguments: sortedArguments(b.Arguments)}})
		}
	}
	out.Content, out.Thinking = text.String(), thinking.String()
	if m.Role == provider.RoleToolResult {
		out.Role, out.ToolName, out.ToolCallID = "tool", m.ToolName, m.ToolCallID
	}
	return out, nil
}

// sortedArguments orders the keys, so the same call always renders the same prompt text.
func sortedArguments(args map[string]any) api.ToolCallFunctionArguments {
	out := api.NewToolCallFunctionArguments()
	keys := make([]string, 0, len(args))
	for k := range args {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		out.Set(k, args[k])
	}
	return out
}

// convertTool reads the tool's JSON Schema into Ollama's tool type, which keeps the order of
// the properties as written; it is what the server would parse the schema into anyway.
func convertTool(t provider.ToolDef) (api.Tool, error) {
	tool := api.Tool{Type: "function", Function: api.ToolFunction{Name: t.Name, Description: t.Description}}
	params := t.Parameters
	if len(params) == 0 {
		params = json.RawMessage(`{"type":"object","properties":{}}`)
	}
	if err := json.Unmarshal(params, &tool.Function.Parameters); err != nil {
		return api.Tool{}, fmt.Errorf("parameters of tool %q: %w", t.Name, err)
	}
	if tool.Function.Parameters.Properties == nil {
		tool.Function.Parameters.Properties = api.NewToolPropertiesMap()
	}
	return tool, nil
}
