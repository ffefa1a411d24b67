package openai

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"pi/provider"
	"pi/provider/internal/replay"
)

// sseServer answers each chat request with status and the given SSE data lines, or stalls
// until the client goes when stall; it keeps the bodies.
type sseServer struct {
	mu     sync.Mutex
	bodies []map[string]any
}

func (s *sseServer) start(t *testing.T, status int, stall bool, data ...string) string {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var body map[string]any
		json.NewDecoder(r.Body).Decode(&body)
		s.mu.Lock()
		s.bodies = append(s.bodies, body)
		s.mu.Unlock()
		if status != http.StatusOK {
			http.Error(w, `{"error":{"message":"response_format json_schema is not supported"}}`, status)
			return
		}
		w.Header().Set("Content-Type", "text/event-stream")
		for _, d := range data {
			fmt.Fprintf(w, "data: %s\n\n", d)
			w.(http.Flusher).Flush()
		}
		if stall {
			<-r.Context().Done()
		}
	}))
	t.Cleanup(srv.Close)
	return srv.URL + "/v1"
}

func delta(content string) string {
	return fmt.Sprintf(`{"choices":[{"index":0,"delta":{"content":%q}}]}`, content)
}

const finish = `{"choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}`

func argumentsRetry() *provider.ArgumentsRequest {
	m := testModel()
	m.ID = "qwen3-coder"
	return replay.ArgumentsRetry(m, tools(), map[string]any{}, "  - path: required property is missing")
}

func TestConstrainedArguments(t *testing.T) {
	cases := []struct {
		name    string
		status  int
		data    []string
		want    map[string]any
		wantErr string
	}{
		{name: "valid", status: 200, data: []string{delta(`{"path"`), delta(`: "README.md"}`), finish, "[DONE]"},
			want: map[string]any{"path": "README.md"}},
		{name: "garbage", status: 200, data: []string{delta("Sure! Here you go."), finish, "[DONE]"}, wantErr: "not a JSON object"},
		{name: "cut off", status: 200, data: []string{delta(`{"path": "REA`), `{"choices":[{"index":0,"delta":{},"finish_reason":"length"}]}`, "[DONE]"},
			wantErr: "output limit"},
		{name: "server refuses", status: 400, wantErr: "not supported"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s := &sseServer{}
			p := New(Config{BaseURL: s.start(t, tc.status, false, tc.data...)})
			got, err := p.ConstrainedArguments(context.Background(), argumentsRetry())
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("err = %v, want %q", err, tc.wantErr)
				}
				return
			}
			if err != nil || !reflect.DeepEqual(got.Arguments, tc.want) {
				t.Fatalf("got %v, %v; want %v", got.Arguments, err, tc.want)
			}
			body := s.bodies[0]
			rf, _ := body["response_format"].(map[string]any)
			js, _ := rf["json_schema"].(map[string]any)
			var schema any
			json.Unmarshal(tools()[0].Parameters, &schema)
			if rf["type"] != "json_schema" || !reflect.DeepEqual(js["schema"], schema) || body["tool_choice"] != "none" {
				t.Errorf("response_format %v, tool_choice %v", rf, body["tool_choice"])
			}
			msgs := body["messages"].([]any)
			if len(msgs) != 5 || len(body["tools"].([]any)) != 3 {
				t.Fatalf("want the reply's messages and tools, the call, its error and one instruction, got %d messages", len(msgs))
			}
			// Every call the retry repeats is answered, as these servers require.
			calls := msgs[2].(map[string]any)["tool_calls"].([]any)
			result := msgs[3].(map[string]any)
			if len(calls) != 1 || result["role"] != "tool" || result["tool_call_id"] != calls[0].(map[string]any)["id"] {
				t.Errorf("call %v, result %v", calls, result)
			}
		})
	}
}

func TestConstrainedArgumentsStall(t *testing.T) {
	s := &sseServer{}
	p := New(Config{BaseURL: s.start(t, 200, true, delta("{"))})
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	start := time.Now()
	if _, err := p.ConstrainedArguments(ctx, argumentsRetry()); err == nil {
		t.Fatal("a stalled retry returned no error")
	}
	if d := time.Since(start); d > 10*time.Second {
		t.Errorf("the stalled retry took %v to end", d)
	}
}

// A request without a reply schema carries neither response_format nor tool_choice.
func TestNoReplySchemaNoResponseFormat(t *testing.T) {
	data := requestBody(t, New(Config{BaseURL: "http://127.0.0.1:1/v1"}), argumentsRetry().Request)
	if strings.Contains(string(data), "response_format") || strings.Contains(string(data), "tool_choice") {
		t.Errorf("plain request has a reply constraint: %s", data)
	}
}
