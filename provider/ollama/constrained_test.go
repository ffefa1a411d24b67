package ollama

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"testing"
	"time"

	"pi/internal/chattest"
	"pi/provider"
	"pi/provider/internal/replay"
)

func retryOf(model provider.Model) *provider.ArgumentsRequest {
	return replay.ArgumentsRetry(model, tools(), map[string]any{"path": 7.0}, "  - path: expected string")
}

func TestConstrainedArguments(t *testing.T) {
	cases := []struct {
		name    string
		reply   chattest.Reply
		want    map[string]any
		wantErr string
	}{
		{name: "valid", reply: chattest.Reply{Lines: []string{chattest.Text(`{"path": `, ""), chattest.Done(`"README.md"}`, 30, 6)}},
			want: map[string]any{"path": "README.md"}},
		{name: "garbage", reply: chattest.Reply{Lines: []string{chattest.Done("I would rather not.", 30, 4)}}, wantErr: "not a JSON object"},
		{name: "a call instead", reply: chattest.Reply{Lines: []string{chattest.ToolCall("read", map[string]any{"path": "a.go"}), chattest.Done("", 30, 4)}},
			want: map[string]any{"path": "a.go"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			srv := chattest.Start(t, []string{"m"}, tc.reply)
			p := newProvider(t, srv.URL)
			model := testModel()
			ar := retryOf(model)
			got, err := p.ConstrainedArguments(context.Background(), ar)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("err = %v, want %q", err, tc.wantErr)
				}
				return
			}
			if err != nil || !reflect.DeepEqual(got.Arguments, tc.want) {
				t.Fatalf("got %v, %v; want %v", got.Arguments, err, tc.want)
			}
			body := srv.Bodies()[0]
			format, _ := json.Marshal(body["format"])
			var wantFormat any
			json.Unmarshal(tools()[0].Parameters, &wantFormat)
			if !reflect.DeepEqual(body["format"], wantFormat) {
				t.Errorf("format = %s, want the tool's schema", format)
			}
			msgs := body["messages"].([]any)
			last := msgs[len(msgs)-1].(map[string]any)
			if len(msgs) != 5 || last["role"] != "user" || !strings.Contains(last["content"].(string), `"read"`) {
				t.Fatalf("messages = %v, want system, the user's, the call, its error and the instruction", msgs)
			}
			if calls := msgs[2].(map[string]any)["tool_calls"].([]any); len(calls) != 1 || msgs[3].(map[string]any)["role"] != "tool" {
				t.Errorf("the retry should repeat only the call in question, then its error: %v", msgs[2:4])
			}
			if len(body["tools"].([]any)) != 3 {
				t.Errorf("the retry dropped the tools, which changes the prompt's prefix")
			}
		})
	}
}

// The retry's body is the reply's body with format and one message more: the prompt the
// server renders starts the same, so its cache holds.
func TestConstrainedArgumentsKeepsThePrefix(t *testing.T) {
	p := newProvider(t, "http://127.0.0.1:1")
	info := &modelInfo{capabilities: []string{"completion", "tools"}}
	ar := retryOf(testModel())
	var plain, retry map[string]any
	json.Unmarshal(body(t, p, ar.Request, info), &plain)
	json.Unmarshal(body(t, p, provider.ArgumentsRetryRequest(ar), info), &retry)
	retryMsgs := retry["messages"].([]any)
	if !reflect.DeepEqual(retryMsgs[:len(retryMsgs)-3], plain["messages"]) || !reflect.DeepEqual(retry["tools"], plain["tools"]) {
		t.Errorf("the retry's messages or tools differ from the reply's")
	}
	delete(retry, "messages")
	delete(retry, "format")
	delete(plain, "messages")
	if !reflect.DeepEqual(retry, plain) {
		t.Errorf("beyond messages and format the bodies differ:\n%v\n%v", retry, plain)
	}
}

func TestConstrainedArgumentsFailures(t *testing.T) {
	t.Run("server refuses", func(t *testing.T) {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if strings.HasSuffix(r.URL.Path, "/api/show") {
				w.Write([]byte(`{"capabilities":["completion","tools"]}`))
				return
			}
			http.Error(w, `{"error":"invalid format: schema not supported"}`, http.StatusBadRequest)
		}))
		defer srv.Close()
		_, err := newProvider(t, srv.URL).ConstrainedArguments(context.Background(), retryOf(testModel()))
		if err == nil || !strings.Contains(err.Error(), "schema not supported") {
			t.Fatalf("err = %v, want the server's refusal", err)
		}
	})
	t.Run("stall then cancel", func(t *testing.T) {
		srv := chattest.Start(t, []string{"m"}, chattest.Reply{Lines: []string{chattest.Text("{", "")}, Stall: true})
		ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
		defer cancel()
		_, err := newProvider(t, srv.URL).ConstrainedArguments(ctx, retryOf(testModel()))
		if err == nil {
			t.Fatal("a stalled retry returned no error")
		}
		select {
		case <-srv.Gone():
		case <-time.After(10 * time.Second):
			t.Fatal("the stalled request was not closed")
		}
	})
}
