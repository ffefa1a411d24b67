package server

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// startRPCServer is a server whose sessions are rpcRuntimes; the last one opened is kept.
func startRPCServer(t *testing.T) (*harnessKit, func() *rpcRuntime) {
	var last chan *rpcRuntime = make(chan *rpcRuntime, 16)
	k := startServer(t, slowReply("a reply", time.Millisecond), func(o *Options) {
		open := o.Open
		o.Open = func(ctx context.Context, req OpenRequest) (Runtime, error) {
			rt, err := open(ctx, req)
			r := &rpcRuntime{fakeRuntime: rt.(*fakeRuntime)}
			last <- r
			return r, err
		}
	})
	return k, func() *rpcRuntime {
		select {
		case r := <-last:
			return r
		case <-time.After(5 * time.Second):
			t.Fatal("no session was opened")
			return nil
		}
	}
}

// piLine waits for a pi_event whose line contains want and returns the line decoded.
func piLine(t *testing.T, c *Client, want string) map[string]any {
	t.Helper()
	timeout := time.After(10 * time.Second)
	for {
		select {
		case ev, ok := <-c.Events():
			if !ok {
				t.Fatalf("the connection ended before a pi_event with %s", want)
			}
			if line, _ := ev["line"].(string); ev["type"] == evPiEvent && strings.Contains(line, want) {
				var m map[string]any
				if err := json.Unmarshal([]byte(line), &m); err != nil {
					t.Fatal(err)
				}
				return m
			}
		case <-timeout:
			t.Fatalf("no pi_event with %s", want)
		}
	}
}

// answerUI answers the request req of session id through pi_rpc; the answer has no response
// line of its own.
func answerUI(t *testing.T, c *Client, id string, req, fields map[string]any) {
	t.Helper()
	fields["type"], fields["id"] = "extension_ui_response", req["id"]
	line, _ := json.Marshal(fields)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if resp, _, err := c.RPC(ctx, id, line); err != nil || len(resp) != 0 {
		t.Fatalf("answering: %q %v", resp, err)
	}
}

func TestScriptQuestionsGoToPiClients(t *testing.T) {
	k, opened := startRPCServer(t)
	pi := k.dial()
	id := snapshotOf(request(t, pi, map[string]any{"command": "create"}))["id"].(string)
	rt := opened()
	asker := rt.ui.Load()
	if asker == nil {
		t.Fatal("the runtime was given no Asker")
	}
	v1 := rawHello(t, k.socket) // keeps the session live whatever pi's client does
	writeRequest(t, v1, "a", map[string]any{"command": "attach", "sessionId": id})
	readResponse(t, v1, "a")
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()

	// A question reaches pi's client, and its answer comes back through pi_rpc.
	got := make(chan bool, 1)
	go func() { yes, _ := asker.Confirm(ctx, "Delete?", "for good"); got <- yes }()
	req := piLine(t, pi, `"method":"confirm"`)
	if req["title"] != "Delete?" || req["message"] != "for good" {
		t.Fatalf("request %v", req)
	}
	answerUI(t, pi, id, req, map[string]any{"confirmed": true})
	if yes := <-got; !yes {
		t.Fatal("the answer did not reach the script")
	}
	if closed := piLine(t, pi, UIClosed); closed["id"] != req["id"] {
		t.Fatalf("closed %v, asked %v", closed, req["id"])
	}

	// A status set now is shown to a pi client that attaches later.
	asker.SetStatus("lint", "3 warnings")
	late := k.dial()
	request(t, late, map[string]any{"command": "attach", "sessionId": id})
	if st := piLine(t, late, "setStatus"); st["statusKey"] != "lint" || st["statusText"] != "3 warnings" {
		t.Fatalf("replayed status %v", st)
	}

	// An open question is cancelled when the last pi client leaves.
	open := make(chan bool, 1)
	go func() { _, ok, _ := asker.Select(ctx, "Pick", []string{"a", "b"}); open <- ok }()
	piLine(t, pi, `"method":"select"`)
	request(t, late, map[string]any{"command": "detach", "sessionId": id})
	request(t, pi, map[string]any{"command": "detach", "sessionId": id})
	select {
	case ok := <-open:
		if ok {
			t.Fatal("a question nobody answered got a value")
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the question outlived its last client")
	}

	// With only a v1 client attached, a question is cancelled at once.
	start := time.Now()
	if yes, err := asker.Confirm(ctx, "Anyone?", ""); yes || err != nil || time.Since(start) > time.Second {
		t.Fatalf("a question with no pi client: %v %v after %v", yes, err, time.Since(start))
	}
}

func TestRPCLaterResponsesFollowAsEvents(t *testing.T) {
	k, _ := startRPCServer(t)
	pi := k.dial()
	id := snapshotOf(request(t, pi, map[string]any{"command": "create"}))["id"].(string)
	other := k.dial()
	request(t, other, map[string]any{"command": "attach", "sessionId": id})
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	resp, _, err := pi.RPC(ctx, id, []byte(`{"type":"twice"}`))
	if err != nil || !strings.Contains(string(resp), `"echo"`) {
		t.Fatalf("first response %s %v", resp, err)
	}
	if again := piLine(t, pi, `"again"`); again["type"] != "response" {
		t.Fatalf("second response %v", again)
	}
	// The other client gets the events of the session, not the asker's responses.
	request(t, other, map[string]any{"command": "detach", "sessionId": id})
	for {
		select {
		case ev := <-other.Events():
			if line, _ := ev["line"].(string); strings.Contains(line, "again") {
				t.Fatalf("another client got %v", ev)
			}
			continue
		default:
		}
		break
	}
}

// removedAndListed waits for session_removed{id} and then the next server snapshot, and says
// whether that snapshot still lists id.
func removedAndListed(t *testing.T, c *Client, id string) bool {
	t.Helper()
	timeout := time.After(10 * time.Second)
	removed := false
	for {
		select {
		case ev := <-c.Events():
			switch {
			case ev["type"] == "session_removed" && ev["sessionId"] == id:
				removed = true
			case ev["type"] == "server_snapshot" && removed:
				for _, s := range snapshotOfEvent(ev)["sessions"].([]any) {
					if s.(map[string]any)["id"] == id {
						return true
					}
				}
				return false
			}
		case <-timeout:
			t.Fatalf("no session_removed for %s (or no server snapshot after it)", id)
		}
	}
}

// A disposed session is announced as removed and stays listed from its file; once its file
// has gone it is removed again and leaves the list.
func TestSessionRemoved(t *testing.T) {
	k := startServer(t, slowReply("x", 0), nil)
	id := "01a2b3c4-0000-7000-8000-000000000002"
	dir := filepath.Join(k.srv.opts.PiHome, "sessions", "--work--")
	os.MkdirAll(dir, 0o700)
	file := filepath.Join(dir, "2026-01-02T03-04-05-000Z_"+id+".jsonl")
	header := `{"type":"session","version":3,"id":"` + id + `","timestamp":"2026-01-02T03:04:05.000Z","cwd":"/work"}` + "\n"
	if err := os.WriteFile(file, []byte(header), 0o600); err != nil {
		t.Fatal(err)
	}
	watcher, c := k.dial(), k.dial()
	request(t, c, map[string]any{"command": "attach", "sessionId": id})
	request(t, c, map[string]any{"command": "detach", "sessionId": id})
	if !removedAndListed(t, watcher, id) {
		t.Fatal("a disposed session whose file is there left the list")
	}
	os.Remove(file)
	if _, err := c.Request(context.Background(), map[string]any{"command": "attach", "sessionId": id}); err == nil {
		t.Fatal("attached to a session whose file has gone")
	}
	if removedAndListed(t, watcher, id) {
		t.Fatal("a session whose file has gone is still listed")
	}
}

// A session file deleted while its session is not live leaves the next list and the next
// hello's snapshot, and the clients are told session_removed, without anyone attaching.
func TestDeletedFileLeavesTheList(t *testing.T) {
	k := startServer(t, slowReply("x", 0), nil)
	listed := func(list []any, id string) bool {
		for _, s := range list {
			if s.(map[string]any)["id"] == id {
				return true
			}
		}
		return false
	}
	ids := []string{"01a2b3c4-0000-7000-8000-000000000004", "01a2b3c4-0000-7000-8000-000000000005"}
	dir := filepath.Join(k.srv.opts.PiHome, "sessions", "--work--")
	os.MkdirAll(dir, 0o700)
	var files []string
	for _, id := range ids {
		file := filepath.Join(dir, "2026-01-02T03-04-05-000Z_"+id+".jsonl")
		header := `{"type":"session","version":3,"id":"` + id + `","timestamp":"2026-01-02T03:04:05.000Z","cwd":"/work"}` + "\n"
		if err := os.WriteFile(file, []byte(header), 0o600); err != nil {
			t.Fatal(err)
		}
		files = append(files, file)
	}
	k.srv.refreshStored(context.Background()) // as at start, with both files there
	watcher := k.dial()
	if !listed(watcher.Hello["snapshot"].(map[string]any)["sessions"].([]any), ids[0]) {
		t.Fatalf("the hello does not list %s: %v", ids[0], watcher.Hello)
	}

	os.Remove(files[0]) // by list
	list, _ := request(t, k.dial(), map[string]any{"command": "list"})["sessions"].([]any)
	if listed(list, ids[0]) || !listed(list, ids[1]) {
		t.Fatalf("the list after %s's file was deleted: %v", ids[0], list)
	}
	if removedAndListed(t, watcher, ids[0]) {
		t.Fatal("the server snapshot after the removal still lists it")
	}

	os.Remove(files[1]) // by hello
	if hello := k.dial().Hello["snapshot"].(map[string]any); listed(hello["sessions"].([]any), ids[1]) {
		t.Fatalf("the hello after %s's file was deleted: %v", ids[1], hello)
	}
	if removedAndListed(t, watcher, ids[1]) {
		t.Fatal("the server snapshot after the second removal still lists it")
	}
}
