package main

import (
	"context"
	"strings"
	"testing"

	"pi/internal/chattest"
	"pi/live"
	"pi/provider"
)

// toolsScript has a tool that makes another available (added_tools) and reports its own model
// usage, and a command that takes the other away again (pi.set_active_tools).
const toolsScript = `
pi.register_tool{name = "secret", description = "tells the secret", parameters = {type = "object", properties = {}},
  execute = function() return "42" end}
pi.register_tool{name = "unlock", description = "unlocks secret", parameters = {type = "object", properties = {}},
  execute = function() return {content = "unlocked", usage = {input = 100, output = 20, cost = 0.5}, added_tools = {"secret"}} end}
pi.register_command{name = "lock", run = function() pi.set_active_tools({"unlock"}) end}`

func toolsServer(t *testing.T) *chattest.Server {
	return chattest.Start(t, []string{"m1"},
		chattest.Reply{Lines: []string{chattest.ToolCall("unlock", map[string]any{}), chattest.Done("", 1, 1)}},
		chattest.Reply{Lines: []string{chattest.Done("done", 5, 5)}},
		chattest.Reply{Lines: []string{chattest.Done("ok", 1, 1)}})
}

// sentTools names the tools a request offered; sentText is its messages' text.
func sentTools(body map[string]any) string {
	var names []string
	for _, t := range body["tools"].([]any) {
		names = append(names, t.(map[string]any)["function"].(map[string]any)["name"].(string))
	}
	return strings.Join(names, ",")
}

func sentText(body map[string]any) string {
	var parts []string
	for _, m := range body["messages"].([]any) {
		parts = append(parts, m.(map[string]any)["content"].(string))
	}
	return strings.Join(parts, "\n")
}

// added_tools activates a tool for the next model call, which is told of it; set_active_tools
// between prompts is declared before the next prompt; the tool's own usage is in the session's
// cost, not in the context's size.
func TestToolResultsAddToolsAndUsage(t *testing.T) {
	srv := toolsServer(t)
	h := setupLuaProviderWith(t, srv, live.Options{Model: "ollama-lua/m1", Tools: []string{"unlock"}}, toolsScript)
	for _, text := range []string{"unlock it", "/lock", "again"} {
		if err := h.Send(context.Background(), live.Input{Text: text, Source: live.SourceRPC}); err != nil {
			t.Fatal(err)
		}
	}
	b := srv.Bodies()
	if len(b) != 3 || sentTools(b[0]) != "unlock" || sentTools(b[1]) != "unlock,secret" || sentTools(b[2]) != "unlock" {
		t.Fatalf("%d requests offering %v", len(b), b)
	}
	if !strings.HasSuffix(sentText(b[1]), "unlocked\n[Your tools changed.\nThese tools are now available:\n- secret: tells the secret]") {
		t.Errorf("second request:\n%s", sentText(b[1]))
	}
	if !strings.HasSuffix(sentText(b[2]), "[Your tools changed.\nThese tools are no longer available: secret.]\nagain") {
		t.Errorf("third request:\n%s", sentText(b[2]))
	}
	msgs := h.Agent().MessagesView()
	st := h.Stats()
	if st.Cost != 0.5 || st.Tokens.Input != 107 || provider.ContextTokens(msgs) != 2 {
		t.Fatalf("stats %+v, context %d", st, provider.ContextTokens(msgs))
	}
	entries, _ := sessionSnapshot(t, h).Entries()
	var roles []string
	for _, e := range entries {
		if e.Message != nil {
			roles = append(roles, string(e.Message.Role))
		}
	}
	if strings.Join(roles, " ") != "user assistant toolResult system assistant system user assistant" {
		t.Fatalf("session roles %v", roles)
	}
}

// Over RPC: the declarations are messages of get_messages, and get_session_stats counts the
// tool's own cost.
func TestRPCToolResultsAddToolsAndUsage(t *testing.T) {
	srv := toolsServer(t)
	h := setupLuaProviderWith(t, srv, live.Options{Model: "ollama-lua/m1", Tools: []string{"unlock"}}, toolsScript)
	c, _, stop := startInProcess(t, context.Background(), h)
	defer stop()
	c.prompt("unlock it")
	msgs := c.messages()
	if roles := messageRoles(msgs); strings.Join(roles, " ") != "user assistant toolResult system assistant" {
		t.Fatalf("roles %v", roles)
	}
	added := msgs[3]["toolsAdded"].([]any)
	if len(added) != 1 || added[0].(map[string]any)["name"] != "secret" || msgs[2]["usage"].(map[string]any)["input"] != 100.0 {
		t.Fatalf("declaration %v, tool result %v", msgs[3], msgs[2])
	}
	if cost := c.mustCall(map[string]any{"type": "get_session_stats"}).data()["cost"]; cost != 0.5 {
		t.Fatalf("cost %v", cost)
	}
}

// A tool_result handler's added_tools activate those tools from the next model call, as a
// tool's own do, from the harness and over RPC.
func TestToolResultHandlerAddsTools(t *testing.T) {
	const script = `
pi.register_tool{name = "secret", description = "tells the secret", parameters = {type = "object", properties = {}},
  execute = function() return "42" end}
pi.register_tool{name = "unlock", description = "unlocks", parameters = {type = "object", properties = {}},
  execute = function() return "unlocked" end}
pi.on("tool_result", function(ev) if ev.tool_name == "unlock" then return {added_tools = {"secret"}} end end)`
	for _, viaRPC := range []bool{false, true} {
		t.Run(map[bool]string{false: "harness", true: "rpc"}[viaRPC], func(t *testing.T) {
			srv := toolsServer(t)
			h := setupLuaProviderWith(t, srv, live.Options{Model: "ollama-lua/m1", Tools: []string{"unlock"}}, script)
			if viaRPC {
				c, _, stop := startInProcess(t, context.Background(), h)
				defer stop()
				c.prompt("unlock it")
			} else if err := h.Send(context.Background(), live.Input{Text: "unlock it", Source: live.SourceRPC}); err != nil {
				t.Fatal(err)
			}
			if b := srv.Bodies(); len(b) != 2 || sentTools(b[0]) != "unlock" || sentTools(b[1]) != "unlock,secret" {
				t.Fatalf("%d requests offering %v", len(b), b)
			}
		})
	}
}
