package openai

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"reflect"
	"testing"

	"pi/provider"
)

// capture starts a fake server that records the request bodies it gets and answers "ok". Its
// client sends every request to it, whatever the host, so "api.openai.com" can be a base URL.
func capture(t *testing.T) (*http.Client, chan []byte) {
	t.Helper()
	bodies := make(chan []byte, 1)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		bodies <- b
		w.Header().Set("Content-Type", "text/event-stream")
		io.WriteString(w, "data: {\"choices\":[{\"delta\":{\"content\":\"ok\"},\"finish_reason\":\"stop\"}]}\n\ndata: [DONE]\n\n")
	}))
	t.Cleanup(srv.Close)
	target, _ := url.Parse(srv.URL)
	tr := &http.Transport{Proxy: func(*http.Request) (*url.URL, error) { return target, nil }}
	return &http.Client{Transport: tr}, bodies
}

const readSchema = `{"type":"object","properties":{"path":{"type":"string"},"offset":{"type":"integer","minimum":1},` +
	`"opts":{"type":"object","properties":{"raw":{"type":"boolean"}}}},"required":["path"]}`

func TestStrictToolsOnTheWire(t *testing.T) {
	on, off := true, false
	free := `{"type":"object","properties":{"env":{"type":"object","additionalProperties":{"type":"string"}}}}`
	for _, tc := range []struct {
		name, base string
		setting    *bool
		noTool     bool
		strict     bool
	}{
		{"OpenAI by default", "http://api.openai.com/v1", nil, false, true},
		{"OpenAI, turned off in pi.toml", "http://api.openai.com/v1", &off, false, false},
		{"OpenAI, turned off by the tool", "http://api.openai.com/v1", nil, true, false},
		{"another server by default", "http://llm.example/v1", nil, false, false},
		{"another server, asked for", "http://llm.example/v1", &on, false, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			client, bodies := capture(t)
			p := New(Config{BaseURL: tc.base, Client: client})
			m := testModel()
			m.ConstrainedSampling = tc.setting
			req := &provider.Request{Model: m, Messages: []provider.Message{provider.UserText("hi", 1)}, Tools: []provider.ToolDef{
				{Name: "read", Parameters: json.RawMessage(readSchema), NoConstrainedSampling: tc.noTool},
				{Name: "run", Parameters: json.RawMessage(free)}}}
			if msg := p.Stream(context.Background(), req, func(provider.Event) {}); msg.Failed() {
				t.Fatal(msg.ErrorMessage)
			}
			var body struct {
				Tools []struct {
					Function struct {
						Strict     bool           `json:"strict"`
						Parameters map[string]any `json:"parameters"`
					} `json:"function"`
				} `json:"tools"`
			}
			if err := json.Unmarshal(<-bodies, &body); err != nil {
				t.Fatal(err)
			}
			read, run := body.Tools[0].Function, body.Tools[1].Function
			if read.Strict != tc.strict || run.Strict {
				t.Fatalf("strict: read %v, run %v; want %v and false (a free-form object cannot be strict)", read.Strict, run.Strict, tc.strict)
			}
			if !tc.strict {
				var orig map[string]any
				json.Unmarshal([]byte(readSchema), &orig)
				if !reflect.DeepEqual(read.Parameters, orig) {
					t.Errorf("schema changed without strict: %v", read.Parameters)
				}
				return
			}
			props := read.Parameters["properties"].(map[string]any)
			want := []any{"offset", "opts", "path"}
			if !reflect.DeepEqual(read.Parameters["required"], want) || read.Parameters["additionalProperties"] != false ||
				!reflect.DeepEqual(props["offset"].(map[string]any)["type"], []any{"integer", "null"}) ||
				props["path"].(map[string]any)["type"] != "string" ||
				props["opts"].(map[string]any)["additionalProperties"] != false {
				t.Errorf("strict schema %v", read.Parameters)
			}
		})
	}
}

// FuzzStrictSchema: any schema a script registers either stays as it is or becomes valid JSON
// whose top-level object lists every property as required.
func FuzzStrictSchema(f *testing.F) {
	f.Add(readSchema)
	f.Add(`{"type":"object","properties":{"a":{"type":["string"]},"b":{"type":"array","items":{"type":"object","properties":{}}}}}`)
	f.Fuzz(func(t *testing.T, schema string) {
		out, ok := strictSchema(json.RawMessage(schema))
		if !ok {
			return
		}
		var s map[string]any
		if err := json.Unmarshal(out, &s); err != nil {
			t.Fatalf("invalid JSON %s: %v", out, err)
		}
		if req, _ := s["required"].([]any); len(req) != len(s["properties"].(map[string]any)) {
			t.Fatalf("not every property required: %s", out)
		}
	})
}
