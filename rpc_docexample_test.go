package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// TestRPCWorkedExampleRuns feeds docs/rpc.md's worked example, read from the doc itself, to
// `pi --mode rpc` through a pipe: each `>` line is written once the lines before it have come
// back, and each `<` line must match the next line pi writes (a `< …` line stands for any
// number of them). So the doc shows what pi really sends, in the order it sends it.
func TestRPCWorkedExampleRuns(t *testing.T) {
	doc, err := os.ReadFile("docs/rpc.md")
	if err != nil {
		t.Fatal(err)
	}
	script, steps := workedExample(t, string(doc))
	bin := buildPi(t)
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("buy milk\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	c, stop := startPiRPC(t, bin, dir, strings.TrimPrefix(script, "testdata/faux/"))
	r := &docReader{c: c}
	for _, st := range steps {
		switch st.kind {
		case stepSend:
			c.sendRaw(st.text + "\n")
		case stepClose:
			stop() // pi's output is read to its end
		case stepExpect:
			r.expect(t, st)
		}
	}
	if code, stderr := stop(); code != 0 {
		t.Fatalf("exit code %d; stderr %s", code, stderr)
	}
	if extra := c.types(r.seen); len(extra) > 0 {
		t.Fatalf("pi sent lines the example does not show, after its end: %v", extra)
	}
}

type stepKind int

const (
	stepSend   stepKind = iota // a `>` line
	stepExpect                 // a `<` line
	stepClose                  // the client closes pi's standard input
)

type exampleStep struct {
	kind    stepKind
	text    string
	pattern any  // a `<` line as a pattern (docPattern); nil with gap
	gap     bool // `< …`: any number of lines may come before the next `<` line
}

// workedExample finds the faux script the example ran against and its lines.
func workedExample(t *testing.T, doc string) (script string, steps []exampleStep) {
	t.Helper()
	_, section, ok := strings.Cut(doc, "## A worked example")
	if !ok {
		t.Fatal(`docs/rpc.md has no "## A worked example"`)
	}
	m := regexp.MustCompile("(?s)--faux-script (\\S+?)`.*?```\n(.*?)```").FindStringSubmatch(section)
	if m == nil {
		t.Fatal("the worked example names no faux script or has no code block")
	}
	for _, line := range strings.Split(m[2], "\n") {
		switch {
		case strings.HasPrefix(line, "> "):
			steps = append(steps, exampleStep{kind: stepSend, text: line[2:]})
		case strings.HasPrefix(line, "< …"):
			steps = append(steps, exampleStep{kind: stepExpect, text: line, gap: true})
		case strings.HasPrefix(line, "< "):
			var p any
			if err := json.Unmarshal([]byte(docPattern(line[2:])), &p); err != nil {
				t.Fatalf("the example's line %s does not read as a pattern (%s): %v", line, docPattern(line[2:]), err)
			}
			steps = append(steps, exampleStep{kind: stepExpect, text: line, pattern: p})
		case strings.Contains(line, "closes pi's standard input"):
			steps = append(steps, exampleStep{kind: stepClose, text: line})
		}
	}
	return m[1], steps
}

// docReader walks pi's output along the example.
type docReader struct {
	c    *rpcClient
	seen int  // lines of c.history already matched or skipped
	gap  bool // lines may be skipped before the next one matches
}

// expect reads pi's lines up to the one st shows; after a gap, lines before it are skipped.
func (r *docReader) expect(t *testing.T, st exampleStep) {
	t.Helper()
	c := r.c
	if st.gap {
		r.gap = true
		return
	}
	deadline := time.After(30 * time.Second)
	for {
		for r.seen < len(c.history) {
			got := c.history[r.seen]
			r.seen++
			if matchesDoc(st.pattern, map[string]any(got)) {
				r.gap = false
				return
			}
			if !r.gap {
				raw, _ := json.Marshal(got)
				t.Fatalf("the doc shows\n%s\npi sent\n%s", st.text, raw)
			}
		}
		select {
		case l, ok := <-c.lines:
			if !ok {
				t.Fatalf("pi's output ended before %s", st.text)
			}
			c.history = append(c.history, l)
		case <-deadline:
			t.Fatalf("timed out waiting for %s; seen %v", st.text, c.types(0))
		}
	}
}

// docPattern turns a line of the doc into JSON: `…` where an object's member would be becomes
// the member "…" (more members may follow), and `…` where a value would be becomes the string
// "…" (any value). A `…` inside a string stays there (any text).
func docPattern(line string) string {
	var out strings.Builder
	var stack []byte // the open '{' and '['
	inString, escaped := false, false
	last := byte(0) // the last structural character written outside strings
	rs := []rune(line)
	for i := 0; i < len(rs); i++ {
		r := rs[i]
		switch {
		case inString:
			out.WriteRune(r)
			if escaped {
				escaped = false
			} else if r == '\\' {
				escaped = true
			} else if r == '"' {
				inString = false
			}
			continue
		case r == '…':
			for i+1 < len(rs) && !strings.ContainsRune(",}]", rs[i+1]) {
				i++ // the words after an elision say what was left out
			}
			inObject := len(stack) > 0 && stack[len(stack)-1] == '{'
			if inObject && (last == '{' || last == ',') {
				out.WriteString(`"…":0`)
			} else {
				out.WriteString(`"…"`)
			}
			continue
		case r == '"':
			inString = true
		case r == '{' || r == '[':
			stack = append(stack, byte(r))
		case r == '}' || r == ']':
			if len(stack) > 0 {
				stack = stack[:len(stack)-1]
			}
		}
		if strings.ContainsRune("{}[],:", r) {
			last = byte(r)
		}
		out.WriteRune(r)
	}
	return out.String()
}

// matchesDoc reports whether got has the shape pattern shows: the same members (more where
// the pattern has "…"), the same values, strings with `…` matching any text there.
func matchesDoc(pattern, got any) bool {
	switch p := pattern.(type) {
	case map[string]any:
		g, ok := got.(map[string]any)
		if !ok {
			return false
		}
		_, more := p["…"]
		for k, pv := range p {
			if gv, ok := g[k]; k != "…" && (!ok || !matchesDoc(pv, gv)) {
				return false
			}
		}
		return more || len(g) == len(p)
	case []any:
		g, ok := got.([]any)
		if !ok {
			return false
		}
		if len(p) > 0 && p[len(p)-1] == "…" {
			p = p[:len(p)-1]
			if len(g) < len(p) {
				return false
			}
			g = g[:len(p)]
		}
		if len(g) != len(p) {
			return false
		}
		for i := range p {
			if !matchesDoc(p[i], g[i]) {
				return false
			}
		}
		return true
	case string:
		return p == "…" || globMatch(p, fmt.Sprint(got)) && isString(got)
	}
	return fmt.Sprint(pattern) == fmt.Sprint(got)
}

func isString(v any) bool { _, ok := v.(string); return ok }

// globMatch matches s against p, where `…` stands for any text.
func globMatch(p, s string) bool {
	parts := strings.Split(p, "…")
	if len(parts) == 1 {
		return p == s
	}
	first, last := parts[0], parts[len(parts)-1]
	if len(s) < len(first)+len(last) || !strings.HasPrefix(s, first) || !strings.HasSuffix(s, last) {
		return false
	}
	s = s[len(first) : len(s)-len(last)]
	for _, part := range parts[1 : len(parts)-1] {
		i := strings.Index(s, part)
		if i < 0 {
			return false
		}
		s = s[i+len(part):]
	}
	return true
}

// TestDocPattern checks the reading of the doc's elisions.
func TestDocPattern(t *testing.T) {
	cases := []struct {
		pattern, line string
		want          bool
	}{
		{`{"type":"agent_start"}`, `{"type":"agent_start"}`, true},
		{`{"type":"agent_start"}`, `{"type":"agent_start","x":1}`, false},
		{`{"message":{"role":"user",…}}`, `{"message":{"role":"user","content":[]}}`, true},
		{`{"message":{"role":"user",…}}`, `{"message":{"role":"assistant"}}`, false},
		{`{"messages":[…the four messages of the run…]}`, `{"messages":[1,2,3,4]}`, true},
		{`{"t":…}`, `{"t":1796035269724}`, true},
		{`{"a":{…},"b":1}`, `{"a":{"x":[1]},"b":1}`, true},
		{`{"s":"<context>…</context>"}`, `{"s":"<context>\nDate: x\n</context>"}`, true},
		{`{"s":"<context>…</context>"}`, `{"s":"<context> no end"}`, false},
		{`{"c":[],…}`, `{"c":[1],"d":2}`, false},
		{`{"e":"unknown command \"dance\""}`, `{"e":"unknown command \"dance\""}`, true},
		{`{"n":4}`, `{"n":5}`, false},
		{`{"r":[{"role":"toolResult",…}]}`, `{"r":[{"role":"toolResult","x":1},{"role":"toolResult"}]}`, false},
	}
	for _, tc := range cases {
		var p, g any
		if err := json.Unmarshal([]byte(docPattern(tc.pattern)), &p); err != nil {
			t.Fatalf("%s reads as %s: %v", tc.pattern, docPattern(tc.pattern), err)
		}
		if err := json.Unmarshal([]byte(tc.line), &g); err != nil {
			t.Fatal(err)
		}
		if got := matchesDoc(p, g); got != tc.want {
			t.Errorf("%s against %s: %v, want %v", tc.pattern, tc.line, got, tc.want)
		}
	}
}
