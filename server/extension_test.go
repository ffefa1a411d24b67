package server

import (
	"context"
	"encoding/json"
	"io"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"pi/agent"
	"pi/config"
	"pi/extui"
	"pi/provider"
)

// rpcRuntime answers pi_rpc by echoing the line, for "switch" moving to another session and
// for "twice" answering again a little later; it keeps the Asker the server gives it.
type rpcRuntime struct {
	*fakeRuntime
	moved atomic.Bool
	ui    atomic.Pointer[extui.Asker]
}

func (r *rpcRuntime) RPC(_ context.Context, line []byte, out io.Writer) {
	if strings.Contains(string(line), "switch") {
		r.moved.Store(true)
	}
	out.Write(append([]byte(`{"type":"response","echo":`), append(line, '}', '\n')...))
	if strings.Contains(string(line), "twice") {
		go func() {
			time.Sleep(20 * time.Millisecond)
			out.Write([]byte(`{"type":"response","again":true}` + "\n"))
		}()
	}
}

func (r *rpcRuntime) SetUI(a *extui.Asker) { r.ui.Store(a) }

func (r *rpcRuntime) Info() Info {
	info := r.fakeRuntime.Info()
	if r.moved.Load() {
		info.ID = "moved-" + info.ID
	}
	return info
}

func TestExtensionsOnlyForClientsThatAsk(t *testing.T) {
	var k *harnessKit
	k = startServer(t, slowReply("a reply in chunks", time.Millisecond), func(o *Options) {
		open := o.Open
		o.Open = func(ctx context.Context, req OpenRequest) (Runtime, error) {
			rt, err := open(ctx, req)
			return &rpcRuntime{fakeRuntime: rt.(*fakeRuntime)}, err
		}
	})
	pi := k.dial()
	if !pi.HasPi() {
		t.Fatalf("the server's hello to a client that asked: %v", pi.Hello)
	}
	id := snapshotOf(request(t, pi, map[string]any{"command": "create"}))["id"].(string)

	// A v1 client: its hello gets no capabilities, pi_rpc is refused, and no pi_event comes.
	v1 := rawHello(t, k.socket)
	writeRequest(t, v1, "a", map[string]any{"command": "attach", "sessionId": id})
	readResponse(t, v1, "a")
	writeRequest(t, v1, "r", map[string]any{"command": cmdRPC, "sessionId": id, "line": `{"type":"get_tree"}`})
	if r := readResponse(t, v1, "r"); r["ok"] != false || !strings.Contains(errorMessage(r), "capabilities") {
		t.Errorf("pi_rpc from a v1 client: %v", r)
	}

	request(t, pi, map[string]any{"command": "prompt", "sessionId": id, "text": "go"})
	events := sessionEvents(t, pi, 10*time.Second)
	var lines []string
	for _, ev := range events {
		if ev["type"] == evPiEvent {
			lines = append(lines, ev["line"].(string))
		}
	}
	if len(lines) < 2 || !strings.Contains(lines[0], `"turn_start"`) {
		t.Errorf("pi events: %v", lines)
	}
	writeRequest(t, v1, "d", map[string]any{"command": "detach", "sessionId": id})
	for {
		m := readFrame(t, v1)
		if ev, _ := m["event"].(map[string]any); ev["type"] == evPiEvent {
			t.Fatalf("a v1 client got %v", ev)
		}
		if m["type"] == "response" && m["id"] == "d" {
			break
		}
	}

	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	resp, snap, err := pi.RPC(ctx, id, []byte(`{"type":"get_tree"}`))
	if err != nil || !strings.Contains(string(resp), `"echo":{"type":"get_tree"}`) || snap["id"] != id {
		t.Errorf("pi_rpc: %s %v %v", resp, snap["id"], err)
	}
	_, snap, err = pi.RPC(ctx, id, []byte(`{"type":"switch"}`))
	if err != nil || snap["id"] != "moved-"+id {
		t.Fatalf("pi_rpc that moved the session: %v %v", snap["id"], err)
	}
	res := request(t, pi, map[string]any{"command": "abort", "sessionId": "moved-" + id})
	if snapshotOf(res)["id"] != "moved-"+id {
		t.Errorf("the moved session answers under its new id: %v", res)
	}
}

func TestModelsListComesFromOptions(t *testing.T) {
	asked := make(chan struct{}, 8)
	k := startServer(t, slowReply("x", 0), func(o *Options) {
		o.Models = func(context.Context) []config.ProviderModels {
			asked <- struct{}{}
			return []config.ProviderModels{{Provider: "ollama", Models: []provider.Model{{ID: "qwen3:8b", ContextWindow: 40960}}}}
		}
	})
	<-asked
	deadline := time.Now().Add(5 * time.Second)
	for {
		c := k.dial()
		snap := c.Hello["snapshot"].(map[string]any)
		models := snap["models"].([]any)
		if len(models) == 1 {
			m := models[0].(map[string]any)
			if m["provider"] != "ollama" || m["id"] != "qwen3:8b" || m["contextWindow"] != int64(40960) {
				t.Errorf("model: %v", m)
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("models in the hello: %v", models)
		}
		time.Sleep(20 * time.Millisecond)
	}
	c := k.dial()
	id := snapshotOf(request(t, c, map[string]any{"command": "create"}))["id"].(string)
	_ = id
	for ev := range c.Events() { // the live session's model joins the list
		if ev["type"] == "server_snapshot" && len(snapshotOfEvent(ev)["models"].([]any)) == 2 {
			break
		}
	}
	if len(asked) > 0 {
		t.Errorf("the list was asked for again within a minute")
	}
}

// readResponse reads frames until the response to id.
func readResponse(t testing.TB, nc net.Conn, id string) map[string]any {
	t.Helper()
	for {
		m := readFrame(t, nc)
		if m["type"] == "response" && m["id"] == id {
			return m
		}
	}
}

func errorMessage(r map[string]any) string {
	e, _ := r["error"].(map[string]any)
	msg, _ := e["message"].(string)
	return msg
}

// A pi client forks the session a raw v1 client is attached to: the pi client follows the
// session to its new id, while the v1 client is told session_removed for the old id (so
// upstream's client drops its stale copy), is no longer attached, and can attach to the
// session left behind, opened again from its file.
func TestV1ClientOfASessionMovedByFork(t *testing.T) {
	k := startServer(t, slowReply("x", 0), func(o *Options) {
		open := o.Open
		o.Open = func(ctx context.Context, req OpenRequest) (Runtime, error) {
			rt, err := open(ctx, req)
			if err != nil {
				return nil, err
			}
			return &rpcRuntime{fakeRuntime: rt.(*fakeRuntime)}, nil
		}
	})
	id := "01a2b3c4-0000-7000-8000-000000000003"
	dir := filepath.Join(k.srv.opts.PiHome, "sessions", "--work--")
	os.MkdirAll(dir, 0o700)
	header := `{"type":"session","version":3,"id":"` + id + `","timestamp":"2026-01-02T03:04:05.000Z","cwd":"/work"}` + "\n"
	if err := os.WriteFile(filepath.Join(dir, "2026-01-02T03-04-05-000Z_"+id+".jsonl"), []byte(header), 0o600); err != nil {
		t.Fatal(err)
	}
	pi := k.dial()
	request(t, pi, map[string]any{"command": "attach", "sessionId": id})
	v1 := rawHello(t, k.socket)
	writeRequest(t, v1, "a", map[string]any{"command": "attach", "sessionId": id})
	readResponse(t, v1, "a")

	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if _, snap, err := pi.RPC(ctx, id, []byte(`{"type":"switch"}`)); err != nil || snap["id"] != "moved-"+id {
		t.Fatalf("pi_rpc that moved the session: %v %v", snap["id"], err)
	}
	for {
		ev, _ := readFrame(t, v1)["event"].(map[string]any)
		if ev["type"] == "session_removed" {
			if ev["sessionId"] != id {
				t.Fatalf("session_removed for %v, not %s", ev["sessionId"], id)
			}
			break
		}
	}
	for _, sid := range []string{id, "moved-" + id} {
		writeRequest(t, v1, "p", map[string]any{"command": "prompt", "sessionId": sid, "text": "hi"})
		if r := readResponse(t, v1, "p"); r["ok"] != false || !strings.Contains(errorMessage(r), "not attached") {
			t.Errorf("a prompt from the v1 client to %s after the move: %v", sid, r)
		}
	}
	writeRequest(t, v1, "b", map[string]any{"command": "attach", "sessionId": id})
	if r := readResponse(t, v1, "b"); r["ok"] != true || r["result"].(map[string]any)["session"].(map[string]any)["id"] != id {
		t.Fatalf("the v1 client attaching again to the session left behind: %v", r)
	}
	if res := request(t, pi, map[string]any{"command": "abort", "sessionId": "moved-" + id}); snapshotOf(res)["id"] != "moved-"+id {
		t.Errorf("the pi client did not follow the move: %v", res)
	}
	for {
		select {
		case ev := <-pi.Events():
			if ev["type"] == "session_removed" {
				t.Fatalf("the pi client that followed the move was told %v", ev)
			}
			continue
		default:
		}
		break
	}
}

// A subagent's events reach pi's clients as pi_event lines, tagged with the child's id, as
// RPC mode writes them; a v1 client gets none.
func TestSubagentEventsReachPiClients(t *testing.T) {
	rts := make(chan *fakeRuntime, 1)
	k := startServer(t, slowReply("a reply", time.Millisecond), func(o *Options) {
		open := o.Open
		o.Open = func(ctx context.Context, req OpenRequest) (Runtime, error) {
			rt, err := open(ctx, req)
			if err == nil {
				rts <- rt.(*fakeRuntime)
			}
			return rt, err
		}
	})
	pi := k.dial()
	id := snapshotOf(request(t, pi, map[string]any{"command": "create"}))["id"].(string)
	rt := <-rts
	rt.ag.Emit(agent.Event{Type: agent.EvSubagent, AgentID: "agent-7",
		Sub: &agent.Event{Type: agent.EvToolExecutionStart, ToolName: "read"}})
	deadline := time.After(5 * time.Second)
	for {
		select {
		case ev := <-pi.Events():
			if ev["type"] != evPiEvent || ev["sessionId"] != id {
				continue
			}
			var line map[string]any
			if err := json.Unmarshal([]byte(ev["line"].(string)), &line); err != nil {
				t.Fatal(err)
			}
			sub, _ := line["event"].(map[string]any)
			if line["type"] != "subagent_event" || line["agentId"] != "agent-7" || sub["type"] != "tool_execution_start" {
				t.Fatalf("pi_event line %v", line)
			}
			return
		case <-deadline:
			t.Fatal("no subagent_event reached the pi client")
		}
	}
}
