// Package chattest is a fake of Ollama's native chat API (GET /api/tags, POST /api/chat with
// one JSON object a line, POST /api/show with a fixed answer, GET /api/ps) on 127.0.0.1, for the tests of the provider written in Lua
// (testdata/lua/ollama-chat-provider.lua): each chat request gets the next scripted reply,
// and the server keeps the request bodies. Only tests import it.
package chattest

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
)

// Reply is one scripted answer: its lines, then, when Stall, a wait until the client goes.
// With Hold, nothing is written before Hold is closed (or the client goes).
type Reply struct {
	Lines []string
	Stall bool
	Hold  chan struct{}
}

// Server is a running fake.
type Server struct {
	URL     string
	mu      sync.Mutex
	replies []Reply
	bodies  []map[string]any
	gone    chan struct{} // closed when a stalled reply's client went away
	running []string      // the models /api/ps lists as loaded
}

// SetRunning sets the models /api/ps lists as loaded.
func (s *Server) SetRunning(models ...string) {
	s.mu.Lock()
	s.running = models
	s.mu.Unlock()
}

// Start serves models and the replies, in order, until the test ends.
func Start(t testing.TB, models []string, replies ...Reply) *Server {
	s := &Server{replies: replies, gone: make(chan struct{})}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /api/tags", func(w http.ResponseWriter, _ *http.Request) {
		list := []map[string]string{}
		for _, m := range models {
			list = append(list, map[string]string{"name": m})
		}
		json.NewEncoder(w).Encode(map[string]any{"models": list})
	})
	mux.HandleFunc("POST /api/chat", s.chat)
	mux.HandleFunc("GET /api/ps", func(w http.ResponseWriter, _ *http.Request) {
		s.mu.Lock()
		list := []map[string]string{}
		for _, m := range s.running {
			list = append(list, map[string]string{"name": m, "model": m})
		}
		s.mu.Unlock()
		json.NewEncoder(w).Encode(map[string]any{"models": list})
	})
	mux.HandleFunc("POST /api/show", func(w http.ResponseWriter, _ *http.Request) { // for pi's own Ollama provider
		fmt.Fprint(w, `{"capabilities":["completion","tools"],"model_info":{"general.architecture":"t","t.context_length":32768}}`)
	})
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	s.URL = srv.URL
	return s
}

func (s *Server) chat(w http.ResponseWriter, r *http.Request) {
	var body map[string]any
	if err := json.NewDecoder(r.Body).Decode(&body); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	s.mu.Lock()
	s.bodies = append(s.bodies, body)
	var reply Reply
	if len(s.replies) > 0 {
		reply, s.replies = s.replies[0], s.replies[1:]
	} else {
		reply = Reply{Lines: []string{Done("no more scripted replies", 0, 0)}}
	}
	s.mu.Unlock()
	if reply.Hold != nil {
		select {
		case <-reply.Hold:
		case <-r.Context().Done():
			return
		}
	}
	w.Header().Set("Content-Type", "application/x-ndjson")
	for _, l := range reply.Lines {
		fmt.Fprintln(w, l)
		w.(http.Flusher).Flush()
	}
	if reply.Stall {
		<-r.Context().Done()
		close(s.gone)
	}
}

// Bodies are the chat requests' bodies so far.
func (s *Server) Bodies() []map[string]any {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]map[string]any(nil), s.bodies...)
}

// Gone is closed once the client of a stalled reply has gone away.
func (s *Server) Gone() <-chan struct{} { return s.gone }

// Text is a line with a piece of the reply's text and thinking.
func Text(content, thinking string) string {
	return line(map[string]any{"message": map[string]any{"role": "assistant", "content": content, "thinking": thinking}, "done": false})
}

// ToolCall is a line with one tool call.
func ToolCall(name string, args map[string]any) string {
	return line(map[string]any{"message": map[string]any{"role": "assistant", "content": "",
		"tool_calls": []any{map[string]any{"function": map[string]any{"name": name, "arguments": args}}}}, "done": false})
}

// Done is the last line: a last piece of text and the token counts.
func Done(content string, prompt, eval int) string {
	return line(map[string]any{"message": map[string]any{"role": "assistant", "content": content}, "done": true,
		"done_reason": "stop", "prompt_eval_count": prompt, "eval_count": eval})
}

func line(x any) string {
	data, _ := json.Marshal(x)
	return string(data)
}
