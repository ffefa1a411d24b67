package wire

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"pi/provider"
)

func TestProgressScanner(t *testing.T) {
	tests := []struct {
		name     string
		in       string
		data     int
		comments bool
		blank    int
	}{
		{"an SSE event", "data: ab\n\n", 8, false, 1},
		{"comments only", ": ping\n\n: ping\r\n", 0, true, 1},
		{"comment after data", "data: a\n\n: ping\n", 7, true, 1},
		{"data after comment", ": ping\ndata: a\n", 7, false, 0},
		{"crlf is one line end", "data: a\r\n\r\n", 7, false, 1},
		{"lone cr ends lines", "a\r\rb\r\r", 2, false, 1},
		{"ndjson", "{\"a\": \" \"}\n{\"b\":2}\n", 17, false, 0},
		{"blank lines", "\n \n\t\n", 0, false, 3},
		{"colon after blanks", "  : x\n", 0, true, 0},
		{"colon inside data", "data: a:b\n", 9, false, 0},
		{"empty", "", 0, false, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var whole, bytewise progressScanner
			n := whole.scan([]byte(tt.in))
			m := 0
			for i := range len(tt.in) {
				m += bytewise.scan([]byte{tt.in[i]})
			}
			if n != tt.data || whole.comments != tt.comments || whole.blankLines != tt.blank {
				t.Errorf("data %d comments %v blank lines %d, want %d %v %d", n, whole.comments, whole.blankLines, tt.data, tt.comments, tt.blank)
			}
			if m != n || bytewise != whole {
				t.Errorf("byte by byte: %d %+v, whole: %d %+v", m, bytewise, n, whole)
			}
		})
	}
}

func FuzzProgressScanner(f *testing.F) {
	for _, s := range []string{"data: a\n\n", ": ping\r\n\r\n", "{\"a\":1}\n\n", " \t:\r\r\n"} {
		f.Add(s, 3)
	}
	f.Fuzz(func(t *testing.T, in string, cut int) {
		var whole, parts progressScanner
		n := whole.scan([]byte(in))
		cut = min(max(cut, 0), len(in))
		m := parts.scan([]byte(in[:cut])) + parts.scan([]byte(in[cut:]))
		if n != m || whole != parts {
			t.Fatalf("cutting at %d changed the count: %d %+v vs %d %+v", cut, n, whole, m, parts)
		}
		if n > len(in)-strings.Count(in, "\n")-strings.Count(in, "\r") {
			t.Fatalf("%d data bytes in %q, more than it has outside line ends", n, in)
		}
		if n > 0 && (whole.comments || whole.blankLines > 0) && !strings.ContainsAny(in, "\r\n:") {
			t.Fatalf("keep-alives counted in %q", in)
		}
	})
}

// stall serves one request: headers unless noHeaders, then body, then nothing until the client
// or the test goes.
func stall(t *testing.T, noHeaders bool, body string) *httptest.Server {
	t.Helper()
	done := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !noHeaders {
			io.WriteString(w, body)
			w.(http.Flusher).Flush()
		}
		select {
		case <-r.Context().Done():
		case <-done:
		}
	}))
	t.Cleanup(srv.Close)
	t.Cleanup(func() { close(done) })
	return srv
}

func TestWatchTimeouts(t *testing.T) {
	tests := []struct {
		name      string
		noHeaders bool
		body      string
		want      string
	}{
		{"no headers", true, "", "sent no response headers within 150ms (stream.first_byte_timeout)"},
		{"headers only", false, "", "sent response headers but no data within 150ms (stream.first_byte_timeout)"},
		{"comments only", false, ": ping\n\n", "sent only keep-alive comments for 150ms (stream.first_byte_timeout)"},
		{"blank lines only", false, "\n\n\n", "sent only blank lines for 150ms (stream.first_byte_timeout)"},
		{"silent after data", false, "data: a\n\n", "went silent for 100ms after 9 bytes (stream.idle_timeout)"},
		{"comments after data", false, "data: a\n\n: ping\n\n", "sent only keep-alive comments for 100ms after 17 bytes (stream.idle_timeout)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := stall(t, tt.noHeaders, tt.body)
			c := Watch(srv.Client(), srv.URL+"/v1?key=secret", provider.StreamTimeouts{FirstByte: 150 * time.Millisecond, Idle: 100 * time.Millisecond})
			start := time.Now()
			err := postAndRead(c, srv.URL)
			var serr *StreamError
			if !errors.As(err, &serr) || !serr.Timeout || err.Error() != "timed out: "+srv.URL+"/v1 "+tt.want {
				t.Errorf("got %v, want the StreamError %q", err, tt.want)
			}
			if d := time.Since(start); d > 5*time.Second { // the server stalls for good: only the timeout ends it
				t.Errorf("took %v", d)
			}
		})
	}
}

func postAndRead(c *http.Client, url string) error {
	resp, err := Post(context.Background(), c, url, nil, nil)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	_, err = io.ReadAll(resp.Body)
	return err
}

// A reply whose data keeps coming outlives both timeouts; an aborted one is not a timeout.
// Its gaps are a fifth of the timeouts, so a loaded machine's late wake-up is not a silence.
func TestWatchProgressAndAbort(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		for i := range 8 {
			fmt.Fprintf(w, ": ping\n\ndata: %d\n\n", i)
			w.(http.Flusher).Flush()
			time.Sleep(100 * time.Millisecond)
		}
	}))
	defer srv.Close()
	c := Watch(nil, srv.URL, provider.StreamTimeouts{FirstByte: 500 * time.Millisecond, Idle: 500 * time.Millisecond})
	if err := postAndRead(c, srv.URL); err != nil {
		t.Errorf("a steady stream failed: %v", err)
	}
	hung := stall(t, true, "")
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(20*time.Millisecond, cancel)
	_, err := Post(ctx, Watch(nil, hung.URL, provider.StreamTimeouts{}), hung.URL, nil, nil)
	var serr *StreamError
	if err == nil || errors.As(err, &serr) || !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: got %v, want context.Canceled", err)
	}
}

func TestLimitReply(t *testing.T) {
	limit := budgetSlack + 2*bytesPerToken
	tests := []struct {
		size int
		want string // "" : read to the end
	}{
		{limit, ""},
		{limit + 1, "stream overran: http://x/v1 sent 1.0 MiB without ending the reply, more than 2 output tokens can take (the output budget)"},
	}
	for _, tt := range tests {
		r := LimitReply(strings.NewReader(strings.Repeat("x", tt.size)), "http://x/v1?key=secret", 2)
		n, err := io.Copy(io.Discard, r)
		got := ""
		if err != nil {
			got = err.Error()
		}
		if got != tt.want || n != int64(min(tt.size, limit)) {
			t.Errorf("%d bytes: read %d, error %q, want %q", tt.size, n, got, tt.want)
		}
	}
}

func TestFailNamesTheTimeout(t *testing.T) {
	m := provider.Model{ID: "m"}
	b := provider.NewBuilder(&m, func(provider.Event) {})
	b.Start()
	serr := &StreamError{Server: "http://h", Did: "went silent for 2s after 5 bytes", Bound: "stream.idle_timeout", Timeout: true}
	msg := Fail(context.Background(), b, fmt.Errorf("reading event stream: %w", serr))
	if msg.StopReason != provider.StopError || msg.ErrorMessage != serr.Error() || !provider.IsRetryable(&msg) {
		t.Errorf("got %s %q", msg.StopReason, msg.ErrorMessage)
	}
}
