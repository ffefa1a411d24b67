package provider

import (
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"
)

// ParseArguments decodes the JSON text a model produced for a tool call's arguments. Empty text
// or null means no arguments. Text that is not strict JSON is read by ParseLenient, because
// small local models often send almost-JSON whose meaning is still plain. On failure it returns
// an empty map and an error naming the problem and quoting the start of the input.
func ParseArguments(raw string) (map[string]any, error) {
	args := map[string]any{}
	if strings.TrimSpace(raw) == "" {
		return args, nil
	}
	if err := json.Unmarshal([]byte(raw), &args); err == nil {
		if args == nil { // the text was null
			args = map[string]any{}
		}
		return args, nil
	}
	v, err := ParseLenient(raw)
	if err != nil {
		return map[string]any{}, fmt.Errorf("tool arguments %s are not a JSON object: %w", quoteStart(raw), err)
	}
	switch v := v.(type) {
	case map[string]any:
		return v, nil
	case nil:
		return map[string]any{}, nil
	default:
		return map[string]any{}, fmt.Errorf("tool arguments %s are a JSON %s, not an object", quoteStart(raw), jsonKind(v))
	}
}

// maxUnwrap bounds how many times a JSON value that is a string holding JSON is unwrapped.
const maxUnwrap = 3

// ParseLenient decodes one JSON value, repairing what models commonly get wrong when the intent
// is unambiguous: code fences around the value, trailing commas, single-quoted strings, bare
// keys, Python's True/False/None, raw control characters and unknown escapes inside strings, a
// value sent as a JSON string holding JSON, and text cut off mid-value (open strings, arrays and
// objects are closed; a member whose value is missing is dropped). Strict JSON is tried first, so
// valid input decodes exactly as encoding/json decodes it into an any.
func ParseLenient(raw string) (any, error) {
	return parseLenient(raw, maxUnwrap)
}

// parseLenient is ParseLenient with a budget of string unwrappings left.
func parseLenient(raw string, unwrap int) (any, error) {
	var v any
	if err := json.Unmarshal([]byte(raw), &v); err != nil {
		text := stripFences(strings.TrimSpace(raw))
		if text == "" {
			return nil, errors.New("no JSON value found")
		}
		p := lenientParser{s: text}
		if v, err = p.document(); err != nil {
			return nil, err
		}
	}
	if s, ok := v.(string); ok && unwrap > 0 && looksLikeJSON(s) {
		if inner, err := parseLenient(s, unwrap-1); err == nil {
			return inner, nil
		}
	}
	return v, nil
}

// looksLikeJSON reports whether a string value plausibly holds a JSON object or array (maybe
// encoded once more as a string), so only such strings are unwrapped.
func looksLikeJSON(s string) bool {
	s = strings.TrimLeft(s, "\"' \t\r\n")
	return strings.HasPrefix(s, "{") || strings.HasPrefix(s, "[") || strings.HasPrefix(s, "```")
}

// stripFences removes a Markdown code fence (```json … ```) around the text; a missing closing
// fence is tolerated because the reply may have been cut off.
func stripFences(s string) string {
	if !strings.HasPrefix(s, "```") {
		return s
	}
	s = s[3:]
	if nl := strings.IndexByte(s, '\n'); nl >= 0 && isFenceInfo(s[:nl]) {
		s = s[nl+1:]
	} else {
		s = strings.TrimLeft(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ")
	}
	s = strings.TrimSpace(s)
	s = strings.TrimSuffix(s, "```")
	return strings.TrimSpace(s)
}

// isFenceInfo reports whether the rest of a fence's first line is just a language tag.
func isFenceInfo(s string) bool {
	for _, r := range strings.TrimSpace(s) {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_') {
			return false
		}
	}
	return true
}

// quoteStart quotes the start of raw for an error message, so huge inputs stay readable.
func quoteStart(raw string) string {
	const limit = 120
	if len(raw) <= limit {
		return strconv.Quote(raw)
	}
	cut := limit
	for cut > 0 && !utf8.RuneStart(raw[cut]) {
		cut--
	}
	return strconv.Quote(raw[:cut]) + fmt.Sprintf(" (%d bytes in all)", len(raw))
}

// jsonKind names the JSON type of a decoded value for messages.
func jsonKind(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case bool:
		return "boolean"
	case float64:
		return "number"
	case string:
		return "string"
	case []any:
		return "array"
	case map[string]any:
		return "object"
	}
	return fmt.Sprintf("%T", v)
}
