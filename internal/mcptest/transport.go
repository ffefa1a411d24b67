package mcptest

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"sync"
)

// ServeStdio serves newline-delimited JSON-RPC on in and out until in ends. The crash tool
// exits the process with code 3.
func (s *Server) ServeStdio(in io.Reader, out io.Writer) error {
	var mu sync.Mutex
	send := func(m message) {
		data, _ := json.Marshal(m)
		mu.Lock()
		defer mu.Unlock()
		out.Write(append(data, '\n'))
	}
	sc := bufio.NewScanner(in)
	sc.Buffer(make([]byte, 64<<10), 16<<20)
	var wg sync.WaitGroup
	for sc.Scan() {
		var m message
		if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
			fmt.Fprintf(os.Stderr, "mcptest: bad message %q: %v\n", sc.Text(), err)
			continue
		}
		wg.Add(1)
		go func() { // tools run in parallel; slow waits for its cancellation
			defer wg.Done()
			s.handle(m, send, func() {
				fmt.Fprintln(os.Stderr, "mcptest: crashing as asked")
				os.Exit(3)
			}, nil)
		}()
	}
	wg.Wait()
	return sc.Err()
}

// Handler serves the streamable HTTP transport at any path: a POSTed request is answered as
// an event stream (initialize, and tools/call with its progress notifications before the
// response) or as JSON (everything else); notifications get 202. initialize hands out a session id that
// later requests must carry.
func (s *Server) Handler() http.Handler {
	const session = "mcptest-session-1"
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost {
			http.Error(w, "POST only", http.StatusMethodNotAllowed)
			return
		}
		var m message
		if err := json.NewDecoder(io.LimitReader(r.Body, 16<<20)).Decode(&m); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		if m.Method != "initialize" && r.Header.Get("Mcp-Session-Id") != session {
			http.Error(w, "missing or unknown Mcp-Session-Id", http.StatusBadRequest)
			return
		}
		if m.ID == nil || m.Method == "" {
			s.handle(m, func(message) {}, func() {}, r.Context().Done())
			w.WriteHeader(http.StatusAccepted)
			return
		}
		if m.Method == "initialize" {
			w.Header().Set("Mcp-Session-Id", session)
		}
		if m.Method != "tools/call" && m.Method != "initialize" {
			w.Header().Set("Content-Type", "application/json")
			s.handle(m, func(reply message) { json.NewEncoder(w).Encode(reply) }, func() {}, r.Context().Done())
			return
		}
		w.Header().Set("Content-Type", "text/event-stream")
		flusher, _ := w.(http.Flusher)
		s.handle(m, func(out message) {
			data, _ := json.Marshal(out)
			fmt.Fprintf(w, "event: message\ndata: %s\n\n", data)
			if flusher != nil {
				flusher.Flush()
			}
		}, func() {}, r.Context().Done())
	})
}
