package provider

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite golden files in testdata")

// TestMessageJSONRoundTrip loads pi-shaped messages and checks that writing them back gives
// the same JSON value, and the same bytes as the golden file.
func TestMessageJSONRoundTrip(t *testing.T) {
	files, err := filepath.Glob("../testdata/messages/*.json")
	if err != nil || len(files) == 0 {
		t.Fatalf("no samples: %v", err)
	}
	for _, file := range files {
		if strings.HasSuffix(file, ".golden.json") {
			continue
		}
		t.Run(filepath.Base(file), func(t *testing.T) {
			orig, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			var m Message
			if err := json.Unmarshal(orig, &m); err != nil {
				t.Fatalf("decode: %v", err)
			}
			out, err := json.Marshal(m)
			if err != nil {
				t.Fatalf("encode: %v", err)
			}
			var want, got any
			json.Unmarshal(orig, &want)
			json.Unmarshal(out, &got)
			if !reflect.DeepEqual(want, got) {
				t.Fatalf("round trip changed the message:\n in: %s\nout: %s", compact(orig), out)
			}
			golden := strings.TrimSuffix(file, ".json") + ".golden.json"
			if *update {
				os.WriteFile(golden, append(out, '\n'), 0o644)
			}
			wantBytes, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (run go test ./provider -update)", err)
			}
			if !bytes.Equal(bytes.TrimSpace(wantBytes), out) {
				t.Fatalf("bytes differ from %s:\n got %s\nwant %s", golden, out, wantBytes)
			}
		})
	}
}

func compact(b []byte) []byte {
	var buf bytes.Buffer
	json.Compact(&buf, b)
	return buf.Bytes()
}

func TestMessageFieldsDecoded(t *testing.T) {
	data, err := os.ReadFile("../testdata/messages/assistant_blocks.json")
	if err != nil {
		t.Fatal(err)
	}
	var m Message
	if err := json.Unmarshal(data, &m); err != nil {
		t.Fatal(err)
	}
	calls := m.ToolCalls()
	if m.Role != RoleAssistant || m.StopReason != StopToolUse || len(m.Content) != 3 || len(calls) != 1 {
		t.Fatalf("decoded %+v", m)
	}
	if calls[0].Arguments["path"] != "parser.go" || calls[0].Arguments["limit"] != float64(40) {
		t.Errorf("arguments %v", calls[0].Arguments)
	}
	if m.Usage.CacheRead != 12000 || m.Usage.Cost.Total != 0.0115065 || m.Timestamp != 1746612675123 {
		t.Errorf("usage %+v timestamp %d", m.Usage, m.Timestamp)
	}
	if m.Content[0].ThinkingSignature == "" {
		t.Errorf("thinking signature lost")
	}
}

func TestUserStringContentStaysAString(t *testing.T) {
	out, err := json.Marshal(UserText("hi", 5))
	if err != nil {
		t.Fatal(err)
	}
	if string(out) != `{"role":"user","content":"hi","timestamp":5}` {
		t.Fatalf("got %s", out)
	}
}

func TestBadBlocksAreRefused(t *testing.T) {
	for _, in := range []string{
		`{"role":"user","content":[{"type":"video","url":"x"}]}`,
		`{"role":"user","content":7}`,
		`{"role":"assistant","content":[{"type":"toolCall","id":"1","name":"x","arguments":[1]}]}`,
	} {
		var m Message
		if err := json.Unmarshal([]byte(in), &m); err == nil {
			t.Errorf("accepted %s", in)
		}
	}
}

func FuzzMessageJSON(f *testing.F) {
	files, _ := filepath.Glob("../testdata/messages/*.json")
	for _, file := range files {
		if data, err := os.ReadFile(file); err == nil {
			f.Add(data)
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var m Message
		if json.Unmarshal(data, &m) != nil {
			return
		}
		out, err := json.Marshal(m)
		if err != nil {
			return // e.g. a block type we refuse to write
		}
		var again Message
		if err := json.Unmarshal(out, &again); err != nil {
			t.Fatalf("cannot re-read our own output %s: %v", out, err)
		}
	})
}
