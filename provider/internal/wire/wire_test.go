package wire

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"testing"
	"testing/iotest"
	"time"
)

func readAllSSE(t testing.TB, r io.Reader) ([]Event, error) {
	t.Helper()
	sr := NewSSEReader(r)
	var evs []Event
	for {
		ev, err := sr.Next()
		if err == io.EOF {
			return evs, nil
		}
		if err != nil {
			return evs, err
		}
		evs = append(evs, ev)
	}
}

func TestSSEReader(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want []Event
	}{
		{"plain", "data: a\n\ndata: b\n\n", []Event{{Data: "a"}, {Data: "b"}}},
		{"crlf", "event: x\r\ndata: a\r\n\r\n", []Event{{Name: "x", Data: "a"}}},
		{"lone cr", "data: a\r\rdata: b\r\r", []Event{{Data: "a"}, {Data: "b"}}},
		{"comments and keep-alives", ": ping\n\n:\n\ndata: a\n\n", []Event{{Data: "a"}}},
		{"multi-line data", "data: a\ndata: b\n\n", []Event{{Data: "a\nb"}}},
		{"no space after colon", "data:a\n\n", []Event{{Data: "a"}}},
		{"only one space stripped", "data:  a\n\n", []Event{{Data: " a"}}},
		{"retry and id", "retry: 10\nid: 7\ndata: a\n\n", []Event{{ID: "7", Data: "a"}}},
		{"event without data skipped", "event: ping\n\ndata: a\n\n", []Event{{Data: "a"}}},
		{"unterminated last event", "data: a\n\ndata: [DONE]", []Event{{Data: "a"}, {Data: "[DONE]"}}},
		{"empty", "", nil},
		{"field without colon", "data\n\n", []Event{{Data: ""}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := readAllSSE(t, strings.NewReader(tt.in))
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("got %+v, want %+v", got, tt.want)
			}
			// The same bytes one at a time: "\r\n" split across reads is one line end.
			got, err = readAllSSE(t, iotest.OneByteReader(strings.NewReader(tt.in)))
			if err != nil || !reflect.DeepEqual(got, tt.want) {
				t.Errorf("one byte at a time: got %+v, %v", got, err)
			}
		})
	}
}

func TestSSEReaderLineTooLong(t *testing.T) {
	in := "data: " + strings.Repeat("x", 2000) + "\n\n"
	if _, err := newSSEReader(strings.NewReader(in), 1024).Next(); err == nil {
		t.Fatal("want an error for an over-long line")
	}
}

func TestNDJSONReader(t *testing.T) {
	r := NewNDJSONReader(strings.NewReader("{\"a\":1}\r\n\n  \n{\"b\":2}"))
	var got []string
	for {
		line, err := r.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, string(line))
	}
	if want := []string{`{"a":1}`, `{"b":2}`}; !reflect.DeepEqual(got, want) {
		t.Errorf("got %q, want %q", got, want)
	}
}

// A line cut off by a failed read is not handed on as a line (it would read as malformed JSON,
// hiding the error); one cut off by the end of the stream is.
func TestNDJSONReaderCutLine(t *testing.T) {
	broken := errors.New("connection reset")
	tests := []struct {
		name    string
		in      io.Reader
		want    []string
		wantErr error
	}{
		{"read error inside a line", io.MultiReader(strings.NewReader("{\"a\":1}\n{\"b\""), iotest.ErrReader(broken)), []string{`{"a":1}`}, broken},
		{"read error after a line end", io.MultiReader(strings.NewReader("{\"a\":1}\n"), iotest.ErrReader(broken)), []string{`{"a":1}`}, broken},
		{"end inside a line", strings.NewReader("{\"a\":1}\n{\"b\":2}"), []string{`{"a":1}`, `{"b":2}`}, io.EOF},
	}
	for _, tt := range tests {
		r := NewNDJSONReader(tt.in)
		var got []string
		var err error
		for {
			var line []byte
			if line, err = r.Next(); err != nil {
				break
			}
			got = append(got, string(line))
		}
		if !reflect.DeepEqual(got, tt.want) || !errors.Is(err, tt.wantErr) {
			t.Errorf("%s: got %q, %v; want %q, %v", tt.name, got, err, tt.want, tt.wantErr)
		}
	}
}

func FuzzSSEReader(f *testing.F) {
	for _, s := range []string{"data: a\n\n", "event: x\r\ndata: {\"a\":1}\r\n\r\n", ": ping\r\r", "data:[DONE]"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		whole, err1 := readAllSSE(t, strings.NewReader(in))
		bytewise, err2 := readAllSSE(t, iotest.OneByteReader(strings.NewReader(in)))
		if (err1 == nil) != (err2 == nil) || !reflect.DeepEqual(whole, bytewise) {
			t.Fatalf("chunking changed the result: %+v (%v) vs %+v (%v)", whole, err1, bytewise, err2)
		}
		for _, ev := range whole {
			if strings.ContainsAny(ev.Name, "\r\n") || strings.ContainsAny(ev.Data, "\r") {
				t.Fatalf("line ends leaked into %+v", ev)
			}
		}
	})
}

func FuzzNDJSONReader(f *testing.F) {
	for _, s := range []string{"{\"a\":1}\n{\"b\":2}\n", "\r\n\r\n", "{\"done\":true}"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		r := NewNDJSONReader(strings.NewReader(in))
		for {
			line, err := r.Next()
			if err != nil {
				return
			}
			if len(line) == 0 || strings.ContainsAny(string(line), "\r\n") {
				t.Fatalf("bad line %q", line)
			}
		}
	})
}

func TestErrorText(t *testing.T) {
	tests := []struct{ body, want string }{
		{`{"error":"the input length exceeds the context length"}`, "the input length exceeds the context length"},
		{`{"error":{"message":"Rate limit reached","type":"requests","code":"rate_limit_exceeded"}}`, "requests: Rate limit reached"},
		{`{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}`, "overloaded_error: Overloaded"},
		{`{"error":{"code":400,"message":"request exceeds the available context size","type":"exceed_context_size_error"}}`,
			"exceed_context_size_error: request exceeds the available context size"},
		{`{"error":{"type":"server_error"}}`, "server_error"},
		{`{"message":"bad"}`, "bad"},
		{`<html>Bad Gateway</html>`, "<html>Bad Gateway</html>"},
		{``, ""},
	}
	for _, tt := range tests {
		if got := ErrorText([]byte(tt.body)); got != tt.want {
			t.Errorf("ErrorText(%s) = %q, want %q", tt.body, got, tt.want)
		}
	}
}

func TestRetryAfter(t *testing.T) {
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	tests := []struct {
		header http.Header
		want   time.Duration
	}{
		{http.Header{"Retry-After": {"3"}}, 3 * time.Second},
		{http.Header{"Retry-After": {"1.5"}}, 1500 * time.Millisecond},
		{http.Header{"Retry-After-Ms": {"250"}, "Retry-After": {"9"}}, 250 * time.Millisecond},
		{http.Header{"Retry-After": {now.Add(10 * time.Second).Format(http.TimeFormat)}}, 10 * time.Second},
		{http.Header{"Retry-After": {"soon"}}, 0},
		{http.Header{}, 0},
	}
	for _, tt := range tests {
		if got := RetryAfter(tt.header, now); got != tt.want {
			t.Errorf("RetryAfter(%v) = %v, want %v", tt.header, got, tt.want)
		}
	}
}

func TestPostErrors(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Retry-After", "2")
		w.WriteHeader(http.StatusTooManyRequests)
		io.WriteString(w, `{"error":{"message":"slow down"}}`)
	}))
	defer srv.Close()
	_, err := Post(context.Background(), srv.Client(), srv.URL+"/x?key=secret", http.Header{"Authorization": {"Bearer secret"}}, nil)
	var herr *HTTPError
	if !errors.As(err, &herr) || herr.Status != 429 || herr.RetryAfter != 2*time.Second || herr.Error() != "429 Too Many Requests: slow down" {
		t.Fatalf("got %#v", err)
	}
	_, err = Post(context.Background(), srv.Client(), "http://127.0.0.1:1/x?key=secret", nil, nil)
	if err == nil || strings.Contains(err.Error(), "secret") || !strings.Contains(err.Error(), "connection") {
		t.Fatalf("transport error %v", err)
	}
}

func TestBodyClosedOnCancel(t *testing.T) {
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(200)
		w.(http.Flusher).Flush()
		select {
		case <-release:
		case <-r.Context().Done():
		}
	}))
	defer srv.Close()
	defer close(release)
	ctx, cancel := context.WithCancel(context.Background())
	resp, err := Post(ctx, srv.Client(), srv.URL, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	time.AfterFunc(20*time.Millisecond, cancel)
	start := time.Now()
	_, _ = io.ReadAll(resp.Body)
	if d := time.Since(start); d > 5*time.Second { // a read deaf to the cancel waits for the release at the end
		t.Fatalf("read returned after %v", d)
	}
}
