package main

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"pi/internal/chattest"
	"pi/internal/pitest"
	"pi/live"
	"pi/provider/faux"
)

// notice waits for the first notify request whose message starts with prefix, and returns
// the message.
func (c *rpcClient) notice(from int, prefix string) string {
	c.t.Helper()
	l := c.await(from, "a notice "+prefix, func(l rpcLine) bool {
		m, _ := l["message"].(string)
		return l["method"] == "notify" && strings.HasPrefix(m, prefix)
	})
	return l["message"].(string)
}

// The script functions and tool fields the other RPC tests leave out: each case loads src as
// the user's script over a scripted model, drives an RPC client as a front end would, and
// checks what the client sees.
func TestRPCScriptFunctionsAndToolFields(t *testing.T) {
	cases := []struct {
		name  string
		steps []faux.Step
		src   string
		drive func(t *testing.T, c *rpcClient)
	}{
		{"pi.editor asks the client", nil, `pi.register_command{name = "ed", run = function()
  pi.notify("got " .. tostring(pi.editor("Plan", "draft")), "info") end}`,
			func(t *testing.T, c *rpcClient) {
				from := c.mark()
				c.sendRaw(`{"type":"prompt","message":"/ed","id":"p"}` + "\n")
				req := c.await(from, "the editor request", func(l rpcLine) bool { return l["method"] == "editor" })
				if req["title"] != "Plan" || req["prefill"] != "draft" {
					t.Fatalf("request %v", req)
				}
				c.sendRaw(fmt.Sprintf(`{"type":"extension_ui_response","id":%q,"value":"final"}`+"\n", req["id"]))
				if got := c.notice(from, "got "); got != "got final" {
					t.Fatalf("notice %q", got)
				}
			}},
		{"pi.all_tools and pi.commands", []faux.Step{faux.Text("ok")}, `
pi.register_tool{name = "peek", label = "Peek", read_only = true, description = "looks", execute = function() return "x" end}
pi.register_command{name = "list", description = "lists", run = function()
  local out = {}
  for _, t in ipairs(pi.all_tools()) do out[#out+1] = t.name .. ":" .. tostring(t.active) .. ":" .. tostring(t.read_only) end
  for _, c in ipairs(pi.commands()) do out[#out+1] = "/" .. c.name .. ":" .. c.source end
  pi.notify("list " .. table.concat(out, " "), "info") end}`,
			func(t *testing.T, c *rpcClient) {
				c.prompt("hi")
				from := c.mark()
				c.mustCall(map[string]any{"type": "prompt", "message": "/list"})
				if got := c.notice(from, "list "); got != "list read:true:true bash:true:false edit:true:false write:true:false grep:false:true find:false:true ls:false:true peek:true:true /list:extension /redo:extension /undo:extension" { // the bundled checkpoints script adds /undo and /redo
					t.Fatalf("notice %q", got)
				}
			}},
		{"pi.compact with on_done", []faux.Step{faux.Text("one"), faux.Text("A summary.")}, `
pi.register_command{name = "squeeze", run = function()
  pi.compact("the plan", {on_done = function(err) pi.notify("compacted " .. tostring(err), "info") end}) end}`,
			func(t *testing.T, c *rpcClient) {
				c.prompt("hello")
				from := c.mark()
				c.mustCall(map[string]any{"type": "prompt", "message": "/squeeze"})
				if got := c.notice(from, "compacted "); got != "compacted nil" {
					t.Fatalf("notice %q", got)
				}
				if roles := messageRoles(c.messages()); roles[0] != "compactionSummary" {
					t.Fatalf("roles %v", roles)
				}
			}},
		{"pi.abort from a tool ends the run", []faux.Step{faux.Blocks(faux.Call("c1", "stop", map[string]any{})), faux.Text("never")}, `
pi.register_tool{name = "stop", description = "stops", execute = function() pi.abort() return "stopping" end}`,
			func(t *testing.T, c *rpcClient) {
				c.prompt("go")
				if text := c.lastText(); text == "never" {
					t.Fatalf("the run went on after pi.abort: %v", messageRoles(c.messages()))
				}
			}},
		{"prepare_arguments, render_call and render_result", []faux.Step{faux.Blocks(faux.Call("c1", "greet", map[string]any{"who": "Ada"})), faux.Text("done")}, `
pi.register_tool{name = "greet", description = "d",
  parameters = {type = "object", properties = {name = {type = "string"}}, required = {"name"}},
  prepare_arguments = function(args) if args.who then return {name = args.who} end end,
  render_call = function(args) return "greet " .. args.name end,
  render_result = function(res) return "said " .. #res.content[1].text .. " chars" end,
  execute = function(args) return "hello " .. args.name end}`,
			func(t *testing.T, c *rpcClient) {
				from := c.mark()
				c.prompt("hi")
				end := c.awaitEvent(from, "tool_execution_end")
				b, _ := json.Marshal(end["result"])
				if end["isError"] != false || !strings.Contains(string(b), `"text":"hello Ada"`) ||
					!strings.Contains(string(b), `"pi_render_call":"greet Ada"`) || !strings.Contains(string(b), `"pi_render_result":"said 9 chars"`) {
					t.Fatalf("tool_execution_end %v", end)
				}
			}},
		{"pi.send_message steering a run", []faux.Step{faux.Blocks(faux.Call("c1", "nudge", map[string]any{})), faux.Text("done")}, `
pi.register_tool{name = "nudge", description = "d", execute = function()
  pi.send_message({custom_type = "hint", content = "look at tests too"}, {deliver_as = "steer"}) return "ok" end}`,
			func(t *testing.T, c *rpcClient) {
				c.prompt("go")
				if roles := messageRoles(c.messages()); strings.Join(roles, " ") != "user assistant toolResult custom assistant" {
					t.Fatalf("roles %v", roles)
				}
			}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			a := newLiveApp(t, liveSetup{initLua: tc.src, allTools: true}, pitest.FauxModel(false), tc.steps...) // bash and every script tool
			c, _, stop := startInProcess(t, context.Background(), a)
			defer stop()
			tc.drive(t, c)
		})
	}
}

// hooksScript registers Ollama's own kind of provider at the test server, marks each request
// body it sends with the status of the response before (nil for the first).
const hooksScript = `
pi.register_provider("native", {api = "ollama", base_url = pi.config("ollama-lua").base_url, models = {{id = "m1"}}})
local last
pi.on("after_provider_response", function(ev) last = ev.status end)
pi.on("before_provider_request", function(ev) ev.payload.keep_alive = "after " .. tostring(last) return ev.payload end)`

// before_provider_request changes the body the model's server gets, after_provider_response
// sees the status, from the harness and over RPC.
func TestProviderRequestEvents(t *testing.T) {
	for _, viaRPC := range []bool{false, true} {
		t.Run(map[bool]string{false: "harness", true: "rpc"}[viaRPC], func(t *testing.T) {
			srv := chattest.Start(t, []string{"m1"}, chattest.Reply{Lines: []string{chattest.Done("one", 1, 1)}},
				chattest.Reply{Lines: []string{chattest.Done("two", 1, 1)}})
			h := setupLuaProvider(t, srv, "native/m1", hooksScript)
			send := func(text string) {
				if err := h.Send(context.Background(), live.Input{Text: text, Source: live.SourceRPC}); err != nil {
					t.Fatal(err)
				}
			}
			if viaRPC {
				c, _, stop := startInProcess(t, context.Background(), h)
				defer stop()
				send = c.prompt
			}
			send("hi")
			send("again")
			b := srv.Bodies()
			if len(b) != 2 || b[0]["keep_alive"] != "after nil" || b[1]["keep_alive"] != "after 200" {
				t.Fatalf("bodies %v", b)
			}
		})
	}
}
