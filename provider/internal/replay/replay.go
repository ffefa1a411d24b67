// Package replay is test support for the adapters: an HTTP server that answers with recorded
// responses from testdata/, and a compact, comparable rendering of a stream's events.
//
// Only tests import it. It must not hold state beyond one Server.
package replay

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync"
	"testing"

	"pi/provider"
)

// Server answers the n-th request with the n-th recorded response and keeps the request bodies.
// A recorded response is a raw HTTP/1.1 response: status line, headers, blank line, body.
type Server struct {
	*httptest.Server
	mu       sync.Mutex
	bodies   [][]byte
	headers  []http.Header
	paths    []string
	fixtures []string
}

// Serve starts a server replaying the given fixture files, in order, one per request.
func Serve(t testing.TB, files ...string) *Server {
	t.Helper()
	s := &Server{fixtures: files}
	for _, f := range files {
		if _, err := os.Stat(f); err != nil {
			t.Fatalf("fixture: %v", err)
		}
	}
	s.Server = httptest.NewServer(http.HandlerFunc(s.handle))
	t.Cleanup(s.Close)
	return s
}

func (s *Server) handle(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	s.mu.Lock()
	n := len(s.bodies)
	s.bodies = append(s.bodies, body)
	s.headers = append(s.headers, r.Header.Clone())
	s.paths = append(s.paths, r.URL.Path)
	s.mu.Unlock()
	if n >= len(s.fixtures) {
		http.Error(w, "replay: no recorded response left", http.StatusTeapot)
		return
	}
	answer(w, r, s.fixtures[n])
}

// answer writes the recorded response in file.
func answer(w http.ResponseWriter, r *http.Request, file string) {
	data, err := os.ReadFile(file)
	if err != nil {
		http.Error(w, err.Error(), http.StatusTeapot)
		return
	}
	resp, err := http.ReadResponse(bufio.NewReader(bytes.NewReader(data)), r)
	if err != nil {
		http.Error(w, "replay: "+err.Error(), http.StatusTeapot)
		return
	}
	for k, v := range resp.Header {
		w.Header()[k] = v
	}
	w.WriteHeader(resp.StatusCode)
	io.Copy(w, resp.Body)
}

// Requests returns the bodies received so far.
func (s *Server) Requests() [][]byte {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([][]byte(nil), s.bodies...)
}

// Headers returns the request headers received so far.
func (s *Server) Headers() []http.Header {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]http.Header(nil), s.headers...)
}

// Paths returns the request paths received so far.
func (s *Server) Paths() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.paths...)
}

// Transcript renders a stream's events one per line, and then the final message as pi's JSON
// with its timestamp zeroed, so a whole stream compares as text.
func Transcript(events []provider.Event, final provider.Message) string {
	var b strings.Builder
	for _, e := range events {
		b.WriteString(string(e.Type))
		switch e.Type {
		case provider.EventStart:
		case provider.EventDone, provider.EventError:
			fmt.Fprintf(&b, " %s", e.Reason)
		default:
			fmt.Fprintf(&b, " %d", e.ContentIndex)
			switch e.Type {
			case provider.EventTextDelta, provider.EventThinkingDelta, provider.EventToolCallDelta:
				fmt.Fprintf(&b, " %q", e.Delta)
			case provider.EventTextEnd, provider.EventThinkingEnd:
				fmt.Fprintf(&b, " %q", e.Content)
			case provider.EventToolCallEnd:
				call, _ := json.Marshal(e.ToolCall)
				fmt.Fprintf(&b, " %s", call)
			}
		}
		b.WriteByte('\n')
	}
	final.Timestamp = 0
	data, err := json.MarshalIndent(final, "", "  ")
	if err != nil {
		data = []byte(err.Error())
	}
	b.Write(data)
	b.WriteByte('\n')
	return b.String()
}

// Golden compares got with the file at path, or writes it there when update is set.
func Golden(t testing.TB, path, got string, update bool) {
	t.Helper()
	if update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("golden file (run with -update to create it): %v", err)
	}
	if string(want) != got {
		t.Errorf("%s differs (run with -update to accept):\n--- got\n%s\n--- want\n%s", path, got, want)
	}
}
