package server

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"strings"
	"testing"
	"time"

	"pi/provider"
	"pi/rpcwire"
)

// bridgeSession runs the RPC bridge against a server whose runtime has no pi commands, so
// every command takes the bridged path; it returns stdin and a reader of stdout's lines.
func bridgeSession(t *testing.T) (io.WriteCloser, *bufio.Scanner, <-chan int) {
	t.Helper()
	k := startServer(t, slowReply("Hello from the scripted model.", 0), nil)
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	code := make(chan int, 1)
	go func() {
		code <- RunRPCBridge(context.Background(), BridgeOptions{Socket: k.socket, Cwd: "/work"}, inR, outW, io.Discard)
		outW.Close()
	}()
	sc := bufio.NewScanner(outR)
	sc.Buffer(nil, 1<<20)
	t.Cleanup(func() { inW.Close(); go io.Copy(io.Discard, outR) })
	return inW, sc, code
}

// responseTo reads lines until the response with id (none: a line the bridge could not
// parse), failing on the end of output.
func responseTo(t *testing.T, sc *bufio.Scanner, id string) rpcwire.Response {
	t.Helper()
	for sc.Scan() {
		var r rpcwire.Response
		if err := json.Unmarshal(sc.Bytes(), &r); err == nil && r.Type == "response" &&
			(string(r.ID) == `"`+id+`"` || id == "" && r.ID == nil) {
			return r
		}
	}
	t.Fatalf("no response %s: %v", id, sc.Err())
	return rpcwire.Response{}
}

// The bridged commands answer with pi's typed shapes: get_messages and
// get_last_assistant_text from the transcript, set_model with the model; a command the
// session cannot run is refused under its name, a line that is no command as "parse".
func TestBridgeAnswersInPiShapes(t *testing.T) {
	in, sc, code := bridgeSession(t)
	send := func(line string) { in.Write([]byte(line + "\n")) }
	send(`{"type":"get_last_assistant_text","id":"before"}`)
	if r := responseTo(t, sc, "before"); !r.Success || string(r.Data) != `{"text":null}` {
		t.Errorf("before a reply: %+v data %s", r, r.Data)
	}
	send(`{"type":"prompt","id":"p","message":"hi"}`)
	for sc.Scan() && !strings.Contains(sc.Text(), `"agent_end"`) {
	}
	send(`{"type":"get_messages","id":"m"}`)
	var msgs rpcwire.Messages
	if r := responseTo(t, sc, "m"); json.Unmarshal(r.Data, &msgs) != nil || len(msgs.Messages) != 2 ||
		msgs.Messages[1].Role != provider.RoleAssistant || msgs.Messages[1].TextContent() != "Hello from the scripted model." {
		t.Errorf("get_messages: %s", r.Data)
	}
	send(`{"type":"get_last_assistant_text","id":"t"}`)
	if r := responseTo(t, sc, "t"); string(r.Data) != `{"text":"Hello from the scripted model."}` {
		t.Errorf("get_last_assistant_text: %s", r.Data)
	}
	send(`{"type":"set_model","id":"sm","provider":"faux","modelId":"other"}`)
	var m provider.Model
	if r := responseTo(t, sc, "sm"); !r.Success || json.Unmarshal(r.Data, &m) != nil || m.ID != "other" || m.Provider != "faux" {
		t.Errorf("set_model: %+v data %s", r, r.Data)
	}
	send(`{"type":"compact","id":"c"}`)
	if r := responseTo(t, sc, "c"); r.Success || r.Command != "compact" || r.Error == "" {
		t.Errorf("compact without pi's commands: %+v", r)
	}
	send(`{"type":"cycle_model","id":"x","step":"not a number"}`)
	if r := responseTo(t, sc, "x"); r.Success || r.Command != "cycle_model" || !strings.Contains(r.Error, "step") {
		t.Errorf("a command with a field of the wrong kind: %+v", r)
	}
	for _, line := range []string{`{"id":"y","message":5}`, `not json`} {
		send(line)
		if r := responseTo(t, sc, ""); r.Success || r.Command != "parse" {
			t.Errorf("%s: %+v", line, r)
		}
	}
	in.Close()
	select {
	case c := <-code:
		if c != 0 {
			t.Errorf("the bridge exited %d", c)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("the bridge did not end with its input")
	}
}

// get_state without pi's commands is made from the snapshot, in pi's key order, with the
// model as the server's hello lists it.
func TestBridgeStateFromTheSnapshot(t *testing.T) {
	k := startServer(t, slowReply("Hello.", 0), nil)
	c := k.dial()
	// The hello as a server with a model list writes it (the harness lists none).
	c.Hello["snapshot"] = map[string]any{"models": []any{map[string]any{"provider": "faux", "id": "faux-1",
		"api": "faux", "name": "Faux", "contextWindow": int64(8000), "input": []any{"text"}}}}
	text := "a reply"
	snap := &SessionSnapshot{ID: "s1", Name: "work", Phase: "compaction", Model: ModelRef{Provider: "faux", ID: "faux-1"},
		ThinkingLevel: "off", QueuedSteerCount: 2, Transcript: []Item{{Role: "user"}, {Role: "assistant",
			Content: []Content{{Type: "text", Text: &text}}}}}
	b := &bridge{c: c, id: snap.ID, snap: snap}
	st := b.state()
	if st.SessionID != "s1" || st.SessionName != "work" || !st.IsStreaming || !st.IsCompacting ||
		st.MessageCount != 2 || st.PendingMessageCount != 2 || st.FollowUpMode != "one-at-a-time" {
		t.Errorf("state %+v", st)
	}
	if m := st.Model; m.API != "faux" || m.Name != "Faux" || m.ContextWindow != 8000 || len(m.Input) != 1 {
		t.Errorf("the model %+v is not the hello's", m)
	}
	if got := jsonOf(t, st); !bytes.HasPrefix(got, []byte(`{"model":{"id":"faux-1"`)) {
		t.Errorf("get_state's data is %s", got)
	}
	if got := b.model(ModelRef{Provider: "none", ID: "x"}); got.ID != "x" || got.Provider != "none" || got.ContextWindow != 0 {
		t.Errorf("a model the server does not list: %+v", got)
	}
}

func jsonOf(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// Whatever line a client writes, the bridge reads a command or refuses it under a name; a
// refusal names the line's type whenever the line has one.
func FuzzBridgeParseLine(f *testing.F) {
	for _, s := range []string{`{"type":"prompt","id":"p","message":"hi"}`, `{"type":"cycle_model","step":"x"}`,
		`{"type":"prompt","images":[{"type":"image","data":1}]}`, `{"id":null,"type":7}`, `[]`, `nul`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		l, refusal, err := parseLine(line)
		if err == nil {
			if !json.Valid(line) {
				t.Fatalf("%q read as %+v", line, l.Command)
			}
			return
		}
		var head struct{ Type any }
		if refusal.Command == "" || json.Unmarshal(line, &head) == nil && head.Type != nil && head.Type != "" &&
			isString(head.Type) && refusal.Command != head.Type {
			t.Fatalf("%q refused as %+v: %v", line, refusal, err)
		}
	})
}

func isString(v any) bool { _, ok := v.(string); return ok }
