package session

import (
	"bytes"
	"encoding/json"
	"strconv"
	"strings"
	"unicode/utf8"
)

// The single-pass decoder for session lines.
//
// encoding/json validates a line, then each nested UnmarshalJSON (entry → message → content →
// block) validates and scans its part again, so a long tool output is read about eight times;
// on a never-compacted 100 MB session that was 6 s of CPU. The decoder here reads each byte
// about twice (finding a string's end, then copying it out in runs found eight bytes at a
// time). It handles the shapes pi writes and gives up (returns false) on anything else —
// escaped keys, \u escapes of UTF-16 surrogates, repeated keys, numbers that are not plain
// integers where an integer is due, unknown block or usage fields, invalid JSON — so that
// encoding/json, the reference, decides those lines. Raw values it keeps (details, data,
// unknown fields) are checked with json.Valid and copied. Nothing it returns shares memory
// with the line.
//
// It mirrors provider.Message.UnmarshalJSON, provider.Block.UnmarshalJSON and encoding/json's
// decoding of provider.Usage field by field; TestFastDecoderKnowsProviderFields fails when
// those types gain a field, and the differential fuzz target FuzzLine checks that both
// decoders agree.

type field struct {
	key []byte // the key's bytes in the line (plainKey: no escapes)
	val []byte
}

// objectFields splits a JSON object into its fields without decoding the values, appending
// them to out (callers pass a small array of their own, so that nothing is allocated).
// Repeated keys and escaped keys make it give up.
func objectFields(b []byte, out []field) ([]field, bool) {
	i := skipWS(b, 0)
	if i >= len(b) || b[i] != '{' {
		return nil, false
	}
	i = skipWS(b, i+1)
	if i < len(b) && b[i] == '}' {
		return out, skipWS(b, i+1) == len(b)
	}
	for {
		if i >= len(b) || b[i] != '"' {
			return nil, false
		}
		end := stringEnd(b, i+1)
		if end < 0 || !plainKey(b[i+1:end]) {
			return nil, false
		}
		key := b[i+1 : end]
		for _, f := range out {
			if string(f.key) == string(key) {
				return nil, false
			}
		}
		i = skipWS(b, end+1)
		if i >= len(b) || b[i] != ':' {
			return nil, false
		}
		i = skipWS(b, i+1)
		vend := skipValue(b, i)
		if vend < 0 {
			return nil, false
		}
		out = append(out, field{key, b[i:vend]})
		i = skipWS(b, vend)
		if i < len(b) && b[i] == ',' {
			i = skipWS(b, i+1)
			continue
		}
		if i < len(b) && b[i] == '}' {
			return out, skipWS(b, i+1) == len(b)
		}
		return nil, false
	}
}

// plainKey accepts a key without escapes or control bytes, in valid UTF-8.
func plainKey(k []byte) bool {
	for _, c := range k {
		if c < 0x20 || c == '\\' {
			return false
		}
	}
	return utf8.Valid(k)
}

// arrayElems splits a JSON array into its elements without decoding them.
func arrayElems(b []byte) ([][]byte, bool) {
	if len(b) < 2 || b[0] != '[' {
		return nil, false
	}
	out := [][]byte{}
	i := skipWS(b, 1)
	if i < len(b) && b[i] == ']' {
		return out, i == len(b)-1
	}
	for {
		end := skipValue(b, i)
		if end < 0 {
			return nil, false
		}
		out = append(out, b[i:end])
		i = skipWS(b, end)
		if i < len(b) && b[i] == ',' {
			i = skipWS(b, i+1)
			continue
		}
		return out, i == len(b)-1 && b[i] == ']'
	}
}

func skipWS(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}

// skipValue returns the index just past the value starting at b[i], or -1. It checks only
// the structure; values that are kept or decoded are checked by whoever decodes them.
func skipValue(b []byte, i int) int {
	if i >= len(b) {
		return -1
	}
	switch c := b[i]; {
	case c == '"':
		if end := stringEnd(b, i+1); end >= 0 {
			return end + 1
		}
		return -1
	case c == '{' || c == '[':
		depth := 0
		for j := i; j < len(b); j++ {
			switch b[j] {
			case '{', '[':
				depth++
			case '}', ']':
				if depth--; depth == 0 {
					return j + 1
				}
			case '"':
				if j = stringEnd(b, j+1); j < 0 {
					return -1
				}
			}
		}
		return -1
	default:
		j := i
		for j < len(b) && bytes.IndexByte([]byte("+-.0123456789eEtruefalsn"), b[j]) >= 0 {
			j++
		}
		if j == i {
			return -1
		}
		return j
	}
}

func isNullVal(v []byte) bool { return string(v) == "null" }

// decString decodes a JSON string value. It gives up on invalid UTF-8, control bytes and
// escapes it does not know (\u escapes of UTF-16 surrogates among them), leaving those to
// encoding/json. Runs of plain bytes are found eight at a time (plainRun) and copied whole.
func decString(v []byte) (string, bool) {
	if len(v) < 2 || v[0] != '"' || v[len(v)-1] != '"' {
		return "", false
	}
	body := v[1 : len(v)-1]
	i := plainRun(body, 0)
	if i == len(body) {
		return string(body), true
	}
	var out strings.Builder
	out.Grow(len(body))
	out.Write(body[:i])
	for i < len(body) {
		switch c := body[i]; {
		case c == '\\':
			r, n := unescapeAt(body[i:])
			if n == 0 {
				return "", false
			}
			out.WriteRune(r)
			i += n
		case c >= 0x80:
			r, n := utf8.DecodeRune(body[i:])
			if r == utf8.RuneError && n == 1 {
				return "", false
			}
			out.Write(body[i : i+n])
			i += n
		default: // a control byte, or a quote the caller should not have left in
			return "", false
		}
		j := plainRun(body, i)
		out.Write(body[i:j])
		i = j
	}
	return out.String(), true
}

// unescapeAt decodes the escape sequence b starts with: the rune and the sequence's length,
// 0 when it is not one decString decodes.
func unescapeAt(b []byte) (rune, int) {
	if len(b) < 2 {
		return 0, 0
	}
	switch b[1] {
	case '"', '\\', '/':
		return rune(b[1]), 2
	case 'b':
		return '\b', 2
	case 'f':
		return '\f', 2
	case 'n':
		return '\n', 2
	case 'r':
		return '\r', 2
	case 't':
		return '\t', 2
	case 'u':
		if escapeLen(b) != 6 {
			return 0, 0
		}
		var r rune
		for _, c := range b[2:6] {
			r = r<<4 | rune(hexVal(c))
		}
		if r >= 0xD800 && r < 0xE000 { // surrogates: encoding/json pairs them
			return 0, 0
		}
		return r, 6
	}
	return 0, 0
}

// setString stores a string value into dst; null leaves dst alone, as encoding/json does.
func setString(v []byte, dst *string) bool {
	if isNullVal(v) {
		return true
	}
	s, ok := decString(v)
	*dst = s
	return ok
}

func setBool(v []byte, dst *bool) bool {
	switch string(v) {
	case "true":
		*dst = true
	case "false":
		*dst = false
	case "null":
	default:
		return false
	}
	return true
}

// setInt64 accepts a plain JSON integer (no fraction, exponent, sign '+' or leading zero).
func setInt64(v []byte, dst *int64) bool {
	if isNullVal(v) {
		return true
	}
	d := v
	if len(d) > 0 && d[0] == '-' {
		d = d[1:]
	}
	if len(d) == 0 || len(d) > 1 && d[0] == '0' {
		return false
	}
	for _, c := range d {
		if c < '0' || c > '9' {
			return false
		}
	}
	n, err := strconv.ParseInt(string(v), 10, 64)
	*dst = n
	return err == nil
}

func setInt(v []byte, dst *int) bool {
	n := int64(*dst)
	if !setInt64(v, &n) || int64(int(n)) != n {
		return false
	}
	*dst = int(n)
	return true
}

// setFloat accepts a JSON number (or null, which leaves dst alone) and parses it as
// encoding/json does.
func setFloat(v []byte, dst *float64) bool {
	if isNullVal(v) {
		return true
	}
	if !isNumber(v) {
		return false
	}
	f, err := strconv.ParseFloat(string(v), 64)
	if err != nil {
		return false
	}
	*dst = f
	return true
}

// isNumber reports whether v is exactly one JSON number.
func isNumber(v []byte) bool {
	if len(v) == 0 || v[0] != '-' && (v[0] < '0' || v[0] > '9') {
		return false
	}
	end, err := (&validator{b: v}).number(0)
	return err == nil && end == len(v)
}

// rawCopy returns a validated copy of a value kept as raw JSON.
func rawCopy(v []byte) (json.RawMessage, bool) {
	if !json.Valid(v) {
		return nil, false
	}
	return append(json.RawMessage(nil), v...), true
}

// stringEnd returns the index of the quote closing a string whose body starts at i, or -1.
func stringEnd(b []byte, i int) int {
	for {
		j := bytes.IndexByte(b[i:], '"')
		if j < 0 {
			return -1
		}
		q := i + j
		k := q - 1
		for k >= i && b[k] == '\\' {
			k--
		}
		if (q-1-k)%2 == 0 { // an even run of backslashes: the quote is not escaped
			return q
		}
		i = q + 1
	}
}

// hexVal is the value of a hex digit (escapeLen has checked it is one).
func hexVal(c byte) byte {
	switch {
	case c >= 'a':
		return c - 'a' + 10
	case c >= 'A':
		return c - 'A' + 10
	}
	return c - '0'
}
