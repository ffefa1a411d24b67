package lua

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

func TestHTTP(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/echo":
			body, _ := io.ReadAll(r.Body)
			w.Header().Set("X-Seen", r.Header.Get("X-Test"))
			fmt.Fprintf(w, "%s %s", r.Method, body)
		case "/missing":
			http.Error(w, "no", http.StatusNotFound)
		case "/chunks":
			for i := range 3 {
				fmt.Fprintf(w, "part%d;", i)
				w.(http.Flusher).Flush()
				time.Sleep(10 * time.Millisecond)
			}
		case "/huge":
			io.Copy(w, io.LimitReader(zeros{}, httpMaxBody+1))
		case "/stall":
			select {
			case <-r.Context().Done():
			case <-time.After(3 * time.Second):
			}
		}
	}))
	defer srv.Close()
	e := newEnv(t)
	r := e.start(t, `
pi.register_tool{name = "http", execute = function(args)
  local req = pi.json_decode(args.req)
  local parts = {}
  if args.stream then req.stream = function(c) parts[#parts + 1] = c end end
  local res, err = pi.http(req)
  if not res then return "error: " .. err end
  return res.status .. " " .. (res.headers["x-seen"] or "") .. " " .. res.body .. table.concat(parts, "|")
end}`)
	tests := []struct {
		name, req string
		stream    bool
		want      string // the start of the result
	}{
		{"get", `{"url":"URL/echo"}`, false, "200  GET "},
		{"post with a header", `{"url":"URL/echo","method":"post","body":"hi","headers":{"X-Test":"yes"}}`, false, "200 yes POST hi"},
		{"status", `{"url":"URL/missing"}`, false, "404  no\n"},
		{"stream", `{"url":"URL/chunks"}`, true, "200  part0;"},
		{"too big", `{"url":"URL/huge"}`, false, "error: pi.http GET " + srv.URL + "/huge: the response body is larger than 16 MiB"},
		{"timeout", `{"url":"URL/stall","timeout":0.2}`, false, "error: pi.http GET " + srv.URL + "/stall: "},
		{"not a url", `{"url":"ftp://x"}`, false, "Tool \"http\" failed: "},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			args := map[string]any{"req": strings.ReplaceAll(tc.req, "URL", srv.URL), "stream": tc.stream}
			if got := text(execTool(t, r, "http", args)); !strings.HasPrefix(got, tc.want) {
				t.Errorf("got %q, want it to start with %q", got, tc.want)
			}
		})
	}
	if got := text(execTool(t, r, "http", map[string]any{"req": `{"url":"` + srv.URL + `/chunks"}`, "stream": true})); !strings.Contains(got, "part2;") {
		t.Errorf("stream lost a chunk: %q", got)
	}
}

type zeros struct{}

func (zeros) Read(p []byte) (int, error) {
	clear(p)
	return len(p), nil
}

// With the host check set (the sandbox denies the network), pi.http reaches only the hosts it
// allows, a redirect's target included, and the refusal says why.
func TestHTTPHostCheck(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/away" {
			http.Redirect(w, r, "http://elsewhere.invalid/x", http.StatusFound)
			return
		}
		io.WriteString(w, "near")
	}))
	defer srv.Close()
	e := newEnv(t)
	e.opts.HTTPAllowed = func(host string) error {
		if host == "127.0.0.1" {
			return nil
		}
		return fmt.Errorf("%s is not reachable", host)
	}
	r := e.start(t, `
pi.register_tool{name = "get", execute = function(args)
  local res, err = pi.http{url = args.url}
  if not res then return "error: " .. err end
  return res.body
end}`)
	for url, want := range map[string]string{
		srv.URL + "/":                "near",
		srv.URL + "/away":            "error: pi.http GET " + srv.URL + "/away: Get \"http://elsewhere.invalid/x\": elsewhere.invalid is not reachable",
		"http://elsewhere.invalid/y": "error: pi.http GET http://elsewhere.invalid/y: Get \"http://elsewhere.invalid/y\": elsewhere.invalid is not reachable",
	} {
		if got := text(execTool(t, r, "get", map[string]any{"url": url})); got != want {
			t.Errorf("%s: got %q, want %q", url, got, want)
		}
	}
}
