package tools

import (
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"
)

// mustCompile compiles a schema written as JSON text.
func mustCompile(t testing.TB, schema string) *Schema {
	t.Helper()
	s, err := CompileSchema(json.RawMessage(schema))
	if err != nil {
		t.Fatalf("CompileSchema(%s): %v", schema, err)
	}
	return s
}

// decode reads test arguments written as JSON text.
func decode(t testing.TB, text string) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal([]byte(text), &m); err != nil {
		t.Fatalf("bad test arguments %s: %v", text, err)
	}
	return m
}

func canonical(t testing.TB, v any) string {
	t.Helper()
	data, err := json.Marshal(v)
	if err != nil {
		t.Fatalf("marshal %v: %v", v, err)
	}
	return string(data)
}

const editSchema = `{
	"type": "object",
	"properties": {
		"path": {"type": "string", "minLength": 1},
		"edits": {"type": "array", "minItems": 1, "items": {
			"type": "object",
			"properties": {"oldText": {"type": "string"}, "newText": {"type": "string"}},
			"required": ["oldText", "newText"],
			"additionalProperties": false
		}},
		"dryRun": {"type": "boolean"}
	},
	"required": ["path", "edits"]
}`

func TestCompileSchemaErrors(t *testing.T) {
	tests := []struct{ schema, want string }{
		{`{`, "not valid JSON"},
		{`5`, "must be an object or a boolean"},
		{`{"type": "strin"}`, `#/type: unknown type string "strin"`},
		{`{"type": 3}`, "expected a type name"},
		{`{"properties": []}`, "#/properties: expected an object"},
		{`{"properties": {"a": 7}}`, "#/properties/a: a schema must be"},
		{`{"required": "a"}`, "#/required: expected an array of strings"},
		{`{"required": [1]}`, "found number 1"},
		{`{"minLength": -1}`, "#/minLength: expected a non-negative integer"},
		{`{"maxItems": 1.5}`, "#/maxItems: expected a non-negative integer"},
		{`{"minimum": "3"}`, "#/minimum: expected a number"},
		{`{"multipleOf": 0}`, "must be greater than 0"},
		{`{"pattern": "(?=x)"}`, "not a regular expression Go accepts"},
		{`{"anyOf": []}`, "#/anyOf: expected a non-empty array"},
		{`{"oneOf": [{"type": "nope"}]}`, "#/oneOf/0/type: unknown type"},
		{`{"enum": "a"}`, "#/enum: expected an array"},
		{`{"items": [{}, {}]}`, "tuple form"},
		{`{"$ref": "#/$defs/missing", "$defs": {}}`, `no member "missing"`},
		{`{"$ref": "other.json#/a"}`, "only references inside this schema"},
		{`{"$ref": "#/$defs/x", "$defs": {"x": 3}}`, "not a schema"},
	}
	for _, tt := range tests {
		_, err := CompileSchema(json.RawMessage(tt.schema))
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("CompileSchema(%s) error = %v, want it to contain %q", tt.schema, err, tt.want)
		}
	}
}

func TestCompileSchemaEmptyAcceptsAnything(t *testing.T) {
	for _, raw := range []string{"", "  ", "null", "true", "{}"} {
		s, err := CompileSchema(json.RawMessage(raw))
		if err != nil {
			t.Fatalf("CompileSchema(%q): %v", raw, err)
		}
		args := map[string]any{"x": 1.0, "y": []any{"z"}}
		got, err := s.Prepare(args)
		if err != nil || !reflect.DeepEqual(got, args) {
			t.Errorf("schema %q: Prepare = %v, %v; want the arguments unchanged", raw, got, err)
		}
	}
}

// problem is an expected validation problem: the path exactly, and words the message contains.
type problem struct {
	path string
	says []string
}

func TestValidationKeywords(t *testing.T) {
	tests := []struct {
		name, schema, args string
		want               []problem // nil: valid
	}{
		{"string ok", `{"properties": {"a": {"type": "string"}}}`, `{"a": "x"}`, nil},
		{"string wrong", `{"properties": {"a": {"type": "string"}}}`, `{"a": {}}`,
			[]problem{{"a", []string{"expected string", "got an object"}}}},
		{"integer ok with 5.0", `{"properties": {"a": {"type": "integer"}}}`, `{"a": 5.0}`, nil},
		{"integer fraction", `{"properties": {"a": {"type": "integer"}}}`, `{"a": 5.5}`,
			[]problem{{"a", []string{"expected integer", "got number 5.5"}}}},
		{"number wrong", `{"properties": {"a": {"type": "number"}}}`, `{"a": [1]}`,
			[]problem{{"a", []string{"expected number", "got an array of 1 items"}}}},
		{"boolean wrong", `{"properties": {"a": {"type": "boolean"}}}`, `{"a": "yes"}`,
			[]problem{{"a", []string{"expected boolean", `got string "yes"`}}}},
		{"object wrong", `{"properties": {"a": {"type": "object"}}}`, `{"a": 3}`,
			[]problem{{"a", []string{"expected object", "got number 3"}}}},
		{"array wrong", `{"properties": {"a": {"type": "array", "items": {"type": "object"}}}}`, `{"a": true}`,
			[]problem{{"a", []string{"expected array", "got boolean true"}}}},
		{"null ok", `{"properties": {"a": {"type": "null"}}}`, `{"a": null}`, nil},
		{"null wrong", `{"required": ["a"], "properties": {"a": {"type": "null"}}}`, `{"a": {}}`,
			[]problem{{"a", []string{"expected null"}}}},
		{"type array", `{"properties": {"a": {"type": ["string", "null"]}}}`, `{"a": null}`, nil},
		{"type array wrong", `{"properties": {"a": {"type": ["object", "null"]}}}`, `{"a": []}`,
			[]problem{{"a", []string{"expected object or null", "got an array of 0 items"}}}},
		{"nullable", `{"required": ["a"], "properties": {"a": {"type": "string", "nullable": true}}}`, `{"a": null}`, nil},
		{"required", editSchema, `{"path": "a"}`,
			[]problem{{"edits", []string{"required property is missing", "expected array"}}}},
		{"nested required and extra", editSchema, `{"path": "a", "edits": [{"oldText": "x", "new": "y"}]}`,
			[]problem{
				{"edits[0].new", []string{"unexpected property", "allowed properties are newText, oldText"}},
				{"edits[0].newText", []string{"required property is missing", "expected string"}},
			}},
		{"additionalProperties schema", `{"additionalProperties": {"type": "object"}}`, `{"x": {}, "y": []}`,
			[]problem{{"y", []string{"expected object"}}}},
		{"additionalProperties false no props", `{"additionalProperties": false}`, `{"x": 1}`,
			[]problem{{"x", []string{"no properties are allowed"}}}},
		{"odd key path", `{"additionalProperties": false}`, `{"a b": 1}`,
			[]problem{{`["a b"]`, []string{"unexpected property"}}}},
		{"min/max properties", `{"minProperties": 2}`, `{"a": 1}`,
			[]problem{{"root", []string{"at least 2 properties, got 1"}}}},
		{"maxProperties", `{"maxProperties": 1}`, `{"a": 1, "b": 2}`,
			[]problem{{"root", []string{"at most 1 properties, got 2"}}}},
		{"items", `{"properties": {"a": {"items": {"type": "string"}}}}`, `{"a": ["x", 1, {}]}`,
			[]problem{{"a[2]", []string{"expected string", "got an object"}}}}, // 1 is repaired to "1"
		{"minItems", editSchema, `{"path": "a", "edits": []}`,
			[]problem{{"edits", []string{"at least 1 items, got 0"}}}},
		{"maxItems", `{"properties": {"a": {"maxItems": 1}}}`, `{"a": [1, 2]}`,
			[]problem{{"a", []string{"at most 1 items, got 2"}}}},
		{"uniqueItems", `{"properties": {"a": {"uniqueItems": true}}}`, `{"a": [1, {"b": 2}, {"b": 2.0}]}`,
			[]problem{{"a", []string{"items 1 and 2 are equal"}}}},
		{"enum", `{"properties": {"a": {"enum": ["r", "w", 3]}}}`, `{"a": "x"}`,
			[]problem{{"a", []string{`expected one of "r", "w", 3`, `got string "x"`}}}},
		{"enum ok", `{"properties": {"a": {"enum": [{"k": [1]}]}}}`, `{"a": {"k": [1.0]}}`, nil},
		{"const", `{"properties": {"a": {"const": "go"}}}`, `{"a": "rust"}`,
			[]problem{{"a", []string{`expected exactly "go"`, `got string "rust"`}}}},
		{"minimum", `{"properties": {"a": {"minimum": 1}}}`, `{"a": 0}`,
			[]problem{{"a", []string{"expected a number >= 1, got 0"}}}},
		{"maximum", `{"properties": {"a": {"maximum": 10}}}`, `{"a": 11}`,
			[]problem{{"a", []string{"<= 10, got 11"}}}},
		{"exclusiveMinimum number", `{"properties": {"a": {"exclusiveMinimum": 1}}}`, `{"a": 1}`,
			[]problem{{"a", []string{"> 1, got 1"}}}},
		{"exclusiveMaximum number", `{"properties": {"a": {"exclusiveMaximum": 1}}}`, `{"a": 1}`,
			[]problem{{"a", []string{"< 1, got 1"}}}},
		{"exclusive draft 4", `{"properties": {"a": {"minimum": 1, "exclusiveMinimum": true}}}`, `{"a": 1}`,
			[]problem{{"a", []string{"> 1"}}}},
		{"multipleOf", `{"properties": {"a": {"multipleOf": 0.1}}}`, `{"a": 0.3}`, nil},
		{"multipleOf wrong", `{"properties": {"a": {"multipleOf": 2}}}`, `{"a": 3}`,
			[]problem{{"a", []string{"multiple of 2, got 3"}}}},
		{"minLength counts characters", `{"properties": {"a": {"minLength": 3}}}`, `{"a": "éé"}`,
			[]problem{{"a", []string{"at least 3 characters, got 2"}}}},
		{"maxLength", `{"properties": {"a": {"maxLength": 2}}}`, `{"a": "abc"}`,
			[]problem{{"a", []string{"at most 2 characters, got 3"}}}},
		{"pattern", `{"properties": {"a": {"pattern": "^[a-z]+$"}}}`, `{"a": "A1"}`,
			[]problem{{"a", []string{"matching the pattern", `got string "A1"`}}}},
		{"anyOf", `{"properties": {"a": {"anyOf": [{"type": "string"}, {"type": "array", "items": {"type": "string"}}]}}}`, `{"a": {}}`,
			[]problem{{"a", []string{"one of 2 alternatives", "(1) expected string, got an object", "(2) expected array"}}}},
		{"anyOf ok", `{"properties": {"a": {"anyOf": [{"type": "string"}, {"type": "integer"}]}}}`, `{"a": 3}`, nil},
		{"oneOf two match", `{"properties": {"a": {"oneOf": [{"type": "number"}, {"type": "integer"}]}}}`, `{"a": 3}`,
			[]problem{{"a", []string{"exactly one of 2", "2 match", "1 and 2"}}}},
		{"oneOf none", `{"properties": {"a": {"oneOf": [{"minimum": 5}, {"maximum": 1}]}}}`, `{"a": 3}`,
			[]problem{{"a", []string{"none matched", "(1) expected a number >= 5", "(2) expected a number <= 1"}}}},
		{"oneOf nested paths", `{"properties": {"a": {"oneOf": [{"required": ["x"]}, {"required": ["y"]}]}}}`, `{"a": {}}`,
			[]problem{{"a", []string{"(1) a.x: required property is missing", "(2) a.y: required"}}}},
		{"allOf", `{"allOf": [{"required": ["a"]}, {"required": ["b"]}]}`, `{}`,
			[]problem{{"a", []string{"required"}}, {"b", []string{"required"}}}},
		{"not", `{"properties": {"a": {"not": {"type": "string"}}}}`, `{"a": "x"}`,
			[]problem{{"a", []string{"excludes"}}}},
		{"false schema", `{"properties": {"a": false}}`, `{"a": 1}`,
			[]problem{{"a", []string{"no value is allowed here"}}}},
		{"ref to defs", `{"properties": {"a": {"$ref": "#/$defs/pos"}}, "$defs": {"pos": {"type": "integer", "minimum": 1}}}`, `{"a": 0}`,
			[]problem{{"a", []string{">= 1"}}}},
		{"recursive ref", `{"$defs": {"tree": {"type": "object", "properties": {"kids": {"type": "array", "items": {"$ref": "#/$defs/tree"}}, "v": {"type": "integer"}}}}, "$ref": "#/$defs/tree"}`,
			`{"kids": [{"kids": [{"v": 1.5}]}]}`, []problem{{"kids[0].kids[0].v", []string{"expected integer"}}}},
		{"endless ref", `{"$ref": "#"}`, `{}`, []problem{{"root", []string{"refers to itself endlessly"}}}},
		{"go values", `{"properties": {"a": {"type": "integer"}, "b": {"type": "string"}}}`, `{}`, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := mustCompile(t, tt.schema)
			args := decode(t, tt.args)
			_, err := s.Prepare(args)
			if tt.want == nil {
				if err != nil {
					t.Fatalf("Prepare(%s) = %v, want valid", tt.args, err)
				}
				return
			}
			var ve *ValidationError
			if !errors.As(err, &ve) {
				t.Fatalf("Prepare(%s) error = %v, want a *ValidationError", tt.args, err)
			}
			if len(ve.Problems) != len(tt.want) {
				t.Fatalf("got %d problems, want %d:\n%v", len(ve.Problems), len(tt.want), ve)
			}
			for i, w := range tt.want {
				p := ve.Problems[i]
				if p.Path != w.path {
					t.Errorf("problem %d path = %q, want %q (%v)", i, p.Path, w.path, ve)
				}
				for _, s := range w.says {
					if !strings.Contains(p.Message, s) {
						t.Errorf("problem %d message %q does not contain %q", i, p.Message, s)
					}
				}
			}
		})
	}
}

func TestValidationAcceptsGoNumbers(t *testing.T) {
	s := mustCompile(t, `{"properties": {"a": {"type": "integer", "maximum": 5}, "b": {"type": "number"}}}`)
	if _, err := s.Prepare(map[string]any{"a": 3, "b": int64(7)}); err != nil {
		t.Fatalf("Go ints should validate as JSON numbers: %v", err)
	}
	if _, err := s.Prepare(map[string]any{"a": 6}); err == nil {
		t.Fatal("maximum should apply to Go ints")
	}
	_, err := s.Prepare(map[string]any{"a": struct{}{}})
	if err == nil || !strings.Contains(err.Error(), "a Go value of type struct {}") {
		t.Fatalf("a value JSON cannot hold should be named: %v", err)
	}
}

func TestValidationCapsProblems(t *testing.T) {
	s := mustCompile(t, `{"additionalProperties": {"type": "string"}}`)
	args := map[string]any{}
	for i := range 30 {
		args[string(rune('a'+i%26))+strings.Repeat("x", i/26)] = map[string]any{}
	}
	_, err := s.Prepare(args)
	var ve *ValidationError
	if !errors.As(err, &ve) {
		t.Fatalf("want a ValidationError, got %v", err)
	}
	if len(ve.Problems) != maxSchemaProblems+1 || !strings.Contains(err.Error(), "10 more problems not listed") {
		t.Fatalf("want %d problems and a count of the rest, got %d:\n%v", maxSchemaProblems+1, len(ve.Problems), err)
	}
}

func TestValidationErrorText(t *testing.T) {
	e := &ValidationError{Problems: []Problem{{"path", "expected string, got number 3"}, {"edits[0].oldText", "required property is missing"}}}
	want := "  - path: expected string, got number 3\n  - edits[0].oldText: required property is missing"
	if e.Error() != want {
		t.Errorf("Error() = %q, want %q", e.Error(), want)
	}
}

func TestRepairs(t *testing.T) {
	tests := []struct {
		name, schema, args, want string
	}{
		{"object as JSON string", editSchema,
			`{"path": "a", "edits": "[{\"oldText\": \"x\", \"newText\": \"y\"}]"}`,
			`{"edits":[{"newText":"y","oldText":"x"}],"path":"a"}`},
		{"object as lenient JSON string", `{"properties": {"o": {"type": "object"}}}`,
			`{"o": "{'a': 1,}"}`, `{"o":{"a":1}}`},
		{"array items as JSON strings", editSchema,
			`{"path": "a", "edits": ["{\"oldText\": \"x\", \"newText\": \"y\"}"]}`,
			`{"edits":[{"newText":"y","oldText":"x"}],"path":"a"}`},
		{"single object where array expected", editSchema,
			`{"path": "a", "edits": {"oldText": "x", "newText": "y"}}`,
			`{"edits":[{"newText":"y","oldText":"x"}],"path":"a"}`},
		{"single object sent as a JSON string where array expected", editSchema,
			`{"path": "a", "edits": "{\"oldText\": \"x\", \"newText\": \"y\"}"}`,
			`{"edits":[{"newText":"y","oldText":"x"}],"path":"a"}`},
		{"alternatives agreeing on one repair", `{"properties": {"a": {"anyOf": [{"type": "integer"}, {"type": "number"}]}}}`,
			`{"a": "-4"}`, `{"a":-4}`},
		{"single string where array expected", `{"properties": {"paths": {"type": "array", "items": {"type": "string"}}}}`,
			`{"paths": "a.txt"}`, `{"paths":["a.txt"]}`},
		{"single value repaired inside the wrap", `{"properties": {"n": {"type": "array", "items": {"type": "integer"}}}}`,
			`{"n": "5"}`, `{"n":[5]}`},
		{"string to integer", `{"properties": {"limit": {"type": "integer"}, "offset": {"type": "integer"}}}`,
			`{"limit": "5", "offset": " -2 "}`, `{"limit":5,"offset":-2}`},
		{"string to number", `{"properties": {"t": {"type": "number"}}}`, `{"t": "2.5e1"}`, `{"t":25}`},
		{"string to boolean", `{"properties": {"a": {"type": "boolean"}, "b": {"type": "boolean"}}}`,
			`{"a": "true", "b": "False"}`, `{"a":true,"b":false}`},
		{"number and boolean to string", `{"properties": {"s": {"type": "string"}, "t": {"type": "string"}}}`,
			`{"s": 42, "t": true}`, `{"s":"42","t":"true"}`},
		{"null optional dropped", editSchema,
			`{"path": "a", "edits": [{"oldText": "x", "newText": "y"}], "dryRun": null}`,
			`{"edits":[{"newText":"y","oldText":"x"}],"path":"a"}`},
		{"null unknown dropped when extras are refused", `{"properties": {"a": {}}, "additionalProperties": false}`,
			`{"b": null}`, `{}`},
		{"nested repairs", `{"properties": {"o": {"type": "object", "properties": {"deep": {"type": "array", "items": {"type": "object", "properties": {"n": {"type": "integer"}, "f": {"type": "boolean"}}}}}}}}`,
			`{"o": "{\"deep\": [{\"n\": \"7\", \"f\": \"true\", \"z\": null}]}"}`,
			`{"o":{"deep":[{"f":true,"n":7,"z":null}]}}`},
		{"repair through ref", `{"properties": {"a": {"$ref": "#/$defs/n"}}, "$defs": {"n": {"type": "integer"}}}`,
			`{"a": "3"}`, `{"a":3}`},
		{"repair through allOf", `{"allOf": [{"properties": {"a": {"type": "integer"}}}]}`, `{"a": "3"}`, `{"a":3}`},
		{"anyOf with one repairable alternative", `{"properties": {"a": {"anyOf": [{"type": "integer"}, {"type": "object"}]}}}`,
			`{"a": "4"}`, `{"a":4}`},
		{"additionalProperties schema repaired", `{"additionalProperties": {"type": "integer"}}`, `{"x": "1"}`, `{"x":1}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := mustCompile(t, tt.schema)
			args := decode(t, tt.args)
			before := canonical(t, args)
			got, err := s.Prepare(args)
			if err != nil {
				t.Fatalf("Prepare(%s): %v", tt.args, err)
			}
			if c := canonical(t, got); c != tt.want {
				t.Errorf("Prepare(%s) = %s, want %s", tt.args, c, tt.want)
			}
			if after := canonical(t, args); after != before {
				t.Errorf("Prepare changed its input: %s became %s", before, after)
			}
			again, err := s.Prepare(got)
			if err != nil || canonical(t, again) != canonical(t, got) {
				t.Errorf("Prepare of repaired arguments should be a no-op: %v, %v", again, err)
			}
		})
	}
}

// TestNoRepairWhenAmbiguous covers values that must be reported, not guessed at.
func TestNoRepairWhenAmbiguous(t *testing.T) {
	tests := []struct {
		name, schema, args, path string
	}{
		{"fractional string for integer", `{"properties": {"a": {"type": "integer"}}}`, `{"a": "5.5"}`, "a"},
		{"word for number", `{"properties": {"a": {"type": "number"}}}`, `{"a": "five"}`, "a"},
		{"NaN for number", `{"properties": {"a": {"type": "number"}}}`, `{"a": "NaN"}`, "a"},
		{"yes for boolean", `{"properties": {"a": {"type": "boolean"}}}`, `{"a": "yes"}`, "a"},
		{"string that is not JSON for object", `{"properties": {"a": {"type": "object"}}}`, `{"a": "path=x"}`, "a"},
		{"array in a string where object expected", `{"properties": {"a": {"type": "object"}}}`, `{"a": "[1]"}`, "a"},
		{"null for required", editSchema, `{"path": null, "edits": []}`, "edits"},
		{"wrap that would not fit the items", `{"properties": {"a": {"type": "array", "items": {"type": "object"}}}}`, `{"a": 3}`, "a"},
		{"alternatives repairing differently", `{"properties": {"a": {"anyOf": [{"type": "integer"}, {"type": "array", "items": {"type": "string"}}]}}}`, `{"a": "5"}`, "a"},
		{"unknown property kept", `{"properties": {"a": {}}, "additionalProperties": false}`, `{"b": 1}`, "b"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := mustCompile(t, tt.schema)
			_, err := s.Prepare(decode(t, tt.args))
			var ve *ValidationError
			if !errors.As(err, &ve) {
				t.Fatalf("Prepare(%s) = %v, want a ValidationError", tt.args, err)
			}
			if ve.Problems[0].Path != tt.path {
				t.Errorf("first problem at %q, want %q: %v", ve.Problems[0].Path, tt.path, ve)
			}
		})
	}
}

func TestPrepareReturnsSameMapWhenValid(t *testing.T) {
	s := mustCompile(t, editSchema)
	args := decode(t, `{"path": "a", "edits": [{"oldText": "x", "newText": "y"}]}`)
	got, err := s.Prepare(args)
	if err != nil {
		t.Fatal(err)
	}
	if reflect.ValueOf(got).Pointer() != reflect.ValueOf(args).Pointer() {
		t.Error("valid arguments should come back as the same map, not a copy")
	}
	if got, err := s.Prepare(nil); err == nil || got != nil {
		t.Errorf("nil arguments against required fields: got %v, %v", got, err)
	}
}

func TestPrepareRootNotObject(t *testing.T) {
	s := mustCompile(t, `{"type": "array"}`)
	_, err := s.Prepare(map[string]any{"a": 1.0})
	if err == nil || !strings.Contains(err.Error(), "root:") {
		t.Fatalf("a schema whose root is not an object cannot accept named arguments: %v", err)
	}
}

func TestFormatValidationError(t *testing.T) {
	s := mustCompile(t, editSchema)
	args := decode(t, `{"path": ["a", "b"], "edits": [{"oldText": "x"}]}`)
	_, err := s.Prepare(args)
	if err == nil {
		t.Fatal("want an error")
	}
	text := FormatValidationError("edit", err, args)
	for _, want := range []string{
		`The arguments for the "edit" tool are invalid:`,
		"\n  - edits[0].newText: required property is missing (expected string)\n",
		"\n  - path: expected string, got an array of 2 items\n",
		"Arguments received:\n{\n  \"edits\": [\n    {\n      \"oldText\": \"x\"\n    }\n  ],\n  \"path\": [\n    \"a\",\n    \"b\"\n  ]\n}",
		"call it again",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("message lacks %q:\n%s", want, text)
		}
	}

	other := FormatValidationError("read", errors.New("boom"), nil)
	if !strings.Contains(other, `"read" tool`) || !strings.Contains(other, "  - boom") || !strings.Contains(other, "Arguments received:\n{}") {
		t.Errorf("plain errors should be listed as one problem:\n%s", other)
	}
	weird := FormatValidationError("x", err, map[string]any{"c": make(chan int)})
	if !strings.Contains(weird, "not representable as JSON") {
		t.Errorf("arguments JSON cannot encode should still be echoed:\n%s", weird)
	}
}

// smallSchema is a typical three-parameter tool, as read has.
const smallSchema = `{"type": "object", "properties": {
	"path": {"type": "string", "description": "file to read"},
	"offset": {"type": "integer", "minimum": 1},
	"limit": {"type": "integer", "minimum": 1}
}, "required": ["path"], "additionalProperties": false}`

func TestPrepareValidDoesNotAllocate(t *testing.T) {
	tests := []struct{ name, schema, args string }{
		{"small", smallSchema, `{"path": "a.txt", "limit": 10}`},
		{"nested", editSchema, `{"path": "a", "edits": [{"oldText": "x", "newText": "y"}]}`},
		{"alternatives", `{"properties": {"a": {"anyOf": [{"type": "integer"}, {"type": "string"}]},
			"b": {"oneOf": [{"type": "string"}, {"type": "array"}]}, "c": {"not": {"type": "null"}}}}`, `{"a": "x", "b": [], "c": 1}`},
	}
	for _, tt := range tests {
		s := mustCompile(t, tt.schema)
		args := decode(t, tt.args)
		allocs := testing.AllocsPerRun(100, func() {
			if _, err := s.Prepare(args); err != nil {
				t.Fatal(err)
			}
		})
		if allocs > 0 {
			t.Errorf("%s: Prepare on valid arguments allocated %.0f times per call, want 0", tt.name, allocs)
		}
	}
}

func BenchmarkPrepare(b *testing.B) {
	s := mustCompile(b, smallSchema)
	b.Run("valid", func(b *testing.B) {
		args := map[string]any{"path": "a.txt"}
		b.ReportAllocs()
		for b.Loop() {
			if _, err := s.Prepare(args); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("repaired", func(b *testing.B) {
		args := map[string]any{"path": "a.txt", "limit": "20", "offset": nil}
		b.ReportAllocs()
		for b.Loop() {
			if _, err := s.Prepare(args); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("invalid", func(b *testing.B) {
		args := map[string]any{"path": 3.5, "limit": 0.0, "extra": true}
		b.ReportAllocs()
		for b.Loop() {
			if _, err := s.Prepare(args); err == nil {
				b.Fatal("want an error")
			}
		}
	})
	b.Run("edit", func(b *testing.B) {
		s := mustCompile(b, editSchema)
		args := decode(b, `{"path": "a.go", "edits": [{"oldText": "x", "newText": "y"}, {"oldText": "z", "newText": "w"}]}`)
		b.ReportAllocs()
		for b.Loop() {
			if _, err := s.Prepare(args); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// TestPrepareBoundsWork covers recursive schemas with alternatives, where a naive walk takes
// time exponential in the depth of the data or of the schema's self-reference.
func TestPrepareBoundsWork(t *testing.T) {
	deep := `1`
	for range 40 {
		deep = `{"a": ` + deep + `}`
	}
	tests := []struct{ name, schema, args string }{
		{"deep data", `{"type": "object", "properties": {"a": {"anyOf": [{"$ref": "#"}, {"$ref": "#"}]}}}`, deep},
		{"self reference", `{"anyOf": [{"$ref": "#"}, {"$ref": "#"}]}`, `{}`},
		{"self reference with repair", `{"type": "object", "properties": {"a": {"type": "integer"}}, "oneOf": [{"$ref": "#"}, {"$ref": "#"}]}`, `{"a": "x"}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := mustCompile(t, tt.schema)
			start := time.Now()
			_, err := s.Prepare(decode(t, tt.args))
			var ve *ValidationError
			if !errors.As(err, &ve) {
				t.Fatalf("want a ValidationError, got %v", err)
			}
			if d := time.Since(start); d > 5*time.Second {
				t.Errorf("Prepare took %v", d)
			}
		})
	}
}
