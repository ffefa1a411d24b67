package tools

import (
	"encoding/json"
	"errors"
	"reflect"
	"testing"

	"pi/provider"
)

// FuzzPrepare feeds arbitrary schemas and argument text through compilation, lenient parsing,
// repair and validation. Beyond not panicking, it checks that the input map is left untouched,
// that failures are *ValidationError and format cleanly, and that prepared arguments are a fixed
// point: preparing them again changes nothing.
func FuzzPrepare(f *testing.F) {
	seeds := []struct{ schema, args string }{
		{smallSchema, `{"path": "a.txt", "limit": "5"}`},
		{editSchema, `{"path": "a", "edits": "[{'oldText': 'x', 'newText': 'y'},]"}`},
		{editSchema, `{"path": "a", "edits": {"oldText": "x"}, "dryRun": null}`},
		{`{"properties": {"a": {"anyOf": [{"type": "integer"}, {"type": "array", "items": {"type": "boolean"}}]}}}`, `{"a": "true"}`},
		{`{"properties": {"a": {"oneOf": [{"minimum": 5}, {"maximum": 1}]}}, "required": ["a"]}`, `{"a": "3"}`},
		{`{"$defs": {"t": {"type": "object", "properties": {"k": {"type": "array", "items": {"$ref": "#/$defs/t"}}}}}, "$ref": "#/$defs/t"}`, `{"k": "{\"k\": []}"}`},
		{`{"additionalProperties": {"type": ["integer", "null"]}, "minProperties": 1}`, `{"x": "1", "y": null}`},
		{`{"properties": {"s": {"type": "string", "pattern": "^a", "maxLength": 3}, "e": {"enum": [1, "1", null]}}}`, `{"s": 12, "e": "1"}`},
		{`{"$ref": "#"}`, `{}`},
		{`{"allOf": [{"properties": {"n": {"type": "number", "exclusiveMaximum": 3}}}, {"not": {"required": ["z"]}}]}`, `{"n": "2.9", "z": 1}`},
	}
	for _, s := range seeds {
		f.Add(s.schema, s.args)
	}
	f.Fuzz(func(t *testing.T, schema, raw string) {
		s, err := CompileSchema(json.RawMessage(schema))
		if err != nil {
			return
		}
		args, _ := provider.ParseArguments(raw)
		before, _ := json.Marshal(args)
		got, err := s.Prepare(args)
		if after, _ := json.Marshal(args); string(after) != string(before) {
			t.Fatalf("Prepare modified its input: %s became %s", before, after)
		}
		if err != nil {
			var ve *ValidationError
			if !errors.As(err, &ve) || len(ve.Problems) == 0 || got != nil {
				t.Fatalf("failure should be a non-empty *ValidationError with a nil map, got %v, %#v", got, err)
			}
			_ = FormatValidationError("fuzz", err, args)
			return
		}
		again, err := s.Prepare(got)
		if err != nil {
			t.Fatalf("prepared arguments %v do not validate again: %v", got, err)
		}
		if !reflect.DeepEqual(again, got) {
			t.Fatalf("preparing twice changed the arguments: %v then %v", got, again)
		}
	})
}
