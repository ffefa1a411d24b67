package provider

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
)

func TestParseArguments(t *testing.T) {
	tests := []struct {
		name string
		raw  string
		want map[string]any
	}{
		{"empty", "", map[string]any{}},
		{"blank", "  \n", map[string]any{}},
		{"null", "null", map[string]any{}},
		{"strict", `{"path":"a.txt","limit":5}`, map[string]any{"path": "a.txt", "limit": 5.0}},
		{"trailing comma in object", `{"a":1,"b":2,}`, map[string]any{"a": 1.0, "b": 2.0}},
		{"trailing comma in array", `{"a":[1,2,],}`, map[string]any{"a": []any{1.0, 2.0}}},
		{"single quotes", `{'path': 'it"s.txt', 'n': 'x\'y'}`, map[string]any{"path": `it"s.txt`, "n": "x'y"}},
		{"bare keys", `{path: "a.txt", old_text: "x"}`, map[string]any{"path": "a.txt", "old_text": "x"}},
		{"python literals", `{'a': True, 'b': False, 'c': None}`, map[string]any{"a": true, "b": false, "c": nil}},
		{"object as JSON string", `"{\"a\":1}"`, map[string]any{"a": 1.0}},
		{"object as doubly encoded string", `"\"{\\\"a\\\":1}\""`, map[string]any{"a": 1.0}},
		{"lenient object inside string", `"{'a': 1,}"`, map[string]any{"a": 1.0}},
		{"code fence with language", "```json\n{\"a\": 1}\n```", map[string]any{"a": 1.0}},
		{"code fence without language", "```\n{\"a\": 1}```", map[string]any{"a": 1.0}},
		{"code fence on one line", "```{\"a\": 1}```", map[string]any{"a": 1.0}},
		{"code fence never closed", "```json\n{\"a\": 1}", map[string]any{"a": 1.0}},
		{"raw newline in string", "{\"content\": \"line1\nline2\"}", map[string]any{"content": "line1\nline2"}},
		{"unknown escape kept", `{"pattern": "\d+\.go"}`, map[string]any{"pattern": `\d+\.go`}},
		{"unicode escapes", `{'s': '\u00e9\ud83d\ude00'}`, map[string]any{"s": "é😀"}},
		{"lone surrogate", `{'s': '\ud83d!'}`, map[string]any{"s": "\uFFFD!"}},
		{"truncated string", `{"path": "a.txt", "content": "hello wor`, map[string]any{"path": "a.txt", "content": "hello wor"}},
		{"truncated after colon", `{"path": "a.txt", "content":`, map[string]any{"path": "a.txt"}},
		{"truncated in key", `{"path": "a.txt", "cont`, map[string]any{"path": "a.txt"}},
		{"truncated after key", `{"path": "a.txt", "content"`, map[string]any{"path": "a.txt"}},
		{"truncated nested", `{"edits": [{"oldText": "a", "newText": "b"}, {"oldText": "c"`, map[string]any{
			"edits": []any{map[string]any{"oldText": "a", "newText": "b"}, map[string]any{"oldText": "c"}}}},
		{"truncated after comma", `{"a": [1, 2,`, map[string]any{"a": []any{1.0, 2.0}}},
		{"truncated literal", `{"a": 1, "b": tr`, map[string]any{"a": 1.0}},
		{"truncated number exponent", `{"a": 1, "b": 2e`, map[string]any{"a": 1.0}},
		{"truncated escape", `{"a": "x\`, map[string]any{"a": "x"}},
		{"truncated unicode escape", `{"a": "x\u00`, map[string]any{"a": "x"}},
		{"truncated only brace", `{`, map[string]any{}},
		{"lenient numbers", `{'a': +1, 'b': .5, 'c': 007}`, map[string]any{"a": 1.0, "b": 0.5, "c": 7.0}},
		{"empty key", `{"": 1,}`, map[string]any{"": 1.0}},
		{"invalid UTF-8 replaced", "{'a': 'x\xffy'}", map[string]any{"a": "x\uFFFDy"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ParseArguments(tt.raw)
			if err != nil {
				t.Fatalf("ParseArguments(%q) error: %v", tt.raw, err)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("ParseArguments(%q) = %#v, want %#v", tt.raw, got, tt.want)
			}
		})
	}
}

func TestParseArgumentsFailures(t *testing.T) {
	tests := []struct {
		name, raw string
		wantInErr []string
	}{
		{"array", `[1,2]`, []string{"array, not an object", `"[1,2]"`}},
		{"number", `42`, []string{"number, not an object"}},
		{"plain string", `"hello"`, []string{"string, not an object"}},
		{"missing colon", `{"a" 1}`, []string{"expected ':' after key \"a\"", "offset 5"}},
		{"missing comma", `{"a": 1 "b": 2}`, []string{"expected ',' or '}'"}},
		{"garbage word", `{"a": yes}`, []string{`unexpected word "yes"`}},
		{"two objects", `{"a":1}{"b":2}`, []string{"after the value"}},
		{"double comma", `{"a":1,,"b":2}`, []string{"expected a key"}},
		{"prose", `I will call the tool now`, []string{"unexpected word"}},
		{"bad number", `{"a": 1.2.3}`, []string{`invalid number "1.2.3"`}},
		{"huge number", `{"a": 1e999 `, []string{"invalid number"}},
		{"too deep", strings.Repeat("[", 1200), []string{"nest more than 1000 deep"}},
		{"fence only", "```json\n```", []string{"no JSON value"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ParseArguments(tt.raw)
			if err == nil {
				t.Fatalf("ParseArguments(%q) = %v, want an error", tt.raw, got)
			}
			if got == nil || len(got) != 0 {
				t.Errorf("ParseArguments(%q) map = %#v, want an empty non-nil map", tt.raw, got)
			}
			for _, want := range tt.wantInErr {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("error %q does not mention %q", err, want)
				}
			}
		})
	}
}

func TestParseArgumentsQuotesLongInputBriefly(t *testing.T) {
	raw := "{" + strings.Repeat("é", 500) + "}"
	_, err := ParseArguments(raw)
	if err == nil {
		t.Fatal("want an error")
	}
	if len(err.Error()) > 400 || !strings.Contains(err.Error(), "bytes in all") {
		t.Errorf("error should quote only the start of the input: %q", err)
	}
}

func TestParseLenientValues(t *testing.T) {
	tests := []struct {
		raw  string
		want any
	}{
		{`[1, 'two', [3,],]`, []any{1.0, "two", []any{3.0}}},
		{`"[1,2]"`, []any{1.0, 2.0}},
		{`"not json"`, "not json"},
		{`"{broken"`, map[string]any{}}, // a string holding cut-off JSON is still unwrapped
		{`None`, nil},
		{`'x'`, "x"},
	}
	for _, tt := range tests {
		got, err := ParseLenient(tt.raw)
		if err != nil {
			t.Errorf("ParseLenient(%q) error: %v", tt.raw, err)
			continue
		}
		if !reflect.DeepEqual(got, tt.want) {
			t.Errorf("ParseLenient(%q) = %#v, want %#v", tt.raw, got, tt.want)
		}
	}
}

// checkParseArguments holds the invariants every input must keep: no panic, a non-nil map, and
// strict JSON objects decoded exactly as encoding/json decodes them.
func checkParseArguments(t *testing.T, raw string) {
	t.Helper()
	got, err := ParseArguments(raw)
	if got == nil {
		t.Fatalf("ParseArguments(%q) returned a nil map", raw)
	}
	if err != nil && len(got) != 0 {
		t.Fatalf("ParseArguments(%q) returned both %v and error %v", raw, got, err)
	}
	var strict map[string]any
	if json.Unmarshal([]byte(raw), &strict) == nil && strict != nil && !reflect.DeepEqual(got, strict) {
		t.Fatalf("ParseArguments(%q) = %v, want the strict decoding %v", raw, got, strict)
	}
	data, err := json.Marshal(got)
	if err != nil {
		t.Fatalf("ParseArguments(%q) = %#v, which does not encode: %v", raw, got, err)
	}
	var back map[string]any
	if err := json.Unmarshal(data, &back); err != nil || !reflect.DeepEqual(back, got) {
		t.Fatalf("ParseArguments(%q) = %#v does not survive a JSON round trip: %s", raw, got, data)
	}
}

func FuzzParseArguments(f *testing.F) {
	for _, seed := range []string{
		``, `{}`, `{"a":1}`, `{"a":[1,2,],}`, `{'a':'b'}`, `"{\"a\":1}"`, "```json\n{\"a\":1}\n```",
		`{"a":"x\u00e9\ud83d\ude00"}`, `{"a": "cut`, `{"a": [{"b": tr`, `{a: None}`, `[1,2]`, `{"a":1e5,"b":-0.5}`,
		`{"a":"\d"}`, `"\"{}\""`, `{"a":{"b":{"c":[[[`, "{'a': 'x\xffy'}", `{"a": 1e999`,
	} {
		f.Add(seed)
	}
	f.Fuzz(checkParseArguments)
}

func BenchmarkParseArguments(b *testing.B) {
	for _, bc := range []struct{ name, raw string }{
		{"strict", `{"path": "src/main.go", "offset": 10, "limit": 50}`},
		{"repaired", `{'path': 'src/main.go', 'offset': 10, 'limit': 50,}`},
		{"truncated", `{"path": "src/main.go", "content": "package main\n\nfunc main() {`},
	} {
		b.Run(bc.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := ParseArguments(bc.raw); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
