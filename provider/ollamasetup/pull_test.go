package ollamasetup

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// fakePull is Ollama's /api/pull: NDJSON progress lines as the real server streams them,
// flushed one by one, ending in success or in an error line.
func fakePull(t *testing.T, lines []string) (*httptest.Server, *[]string) {
	var asked []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/api/pull" || r.Method != http.MethodPost {
			http.NotFound(w, r)
			return
		}
		var req struct {
			Model  string `json:"model"`
			Stream *bool  `json:"stream"`
		}
		json.NewDecoder(r.Body).Decode(&req)
		asked = append(asked, fmt.Sprintf("%s stream=%v", req.Model, req.Stream != nil && *req.Stream))
		w.Header().Set("Content-Type", "application/x-ndjson")
		for _, l := range lines {
			fmt.Fprintln(w, l)
			w.(http.Flusher).Flush()
		}
	}))
	t.Cleanup(srv.Close)
	return srv, &asked
}

// TestPullReportsProgress: every progress line reaches the callback in order, the bar grows
// with the bytes, and an error the server reports mid-pull is the error, naming the model.
func TestPullReportsProgress(t *testing.T) {
	const digest = `"digest":"sha256:3f1a2b3c4d5e6f708192a3b4c5d6e7f8"`
	ok := []string{
		`{"status":"pulling manifest"}`,
		`{"status":"pulling 3f1a2b3c4d5e",` + digest + `,"total":2000000000,"completed":0}`,
		`{"status":"pulling 3f1a2b3c4d5e",` + digest + `,"total":2000000000,"completed":1000000000}`,
		`{"status":"pulling 3f1a2b3c4d5e",` + digest + `,"total":2000000000,"completed":2000000000}`,
		`{"status":"verifying sha256 digest"}`,
		`{"status":"success"}`,
	}
	cases := []struct {
		name    string
		lines   []string
		steps   int
		wantErr string
	}{
		{"success", ok, 6, ""},
		{"an error mid-pull", append(ok[:3:3], `{"error":"max retries exceeded: unexpected EOF"}`), 3, "pull qwen3:4b from"},
		{"no such model", []string{`{"status":"pulling manifest"}`, `{"error":"pull model manifest: file does not exist"}`}, 1, "file does not exist"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			srv, asked := fakePull(t, c.lines)
			var bars []string
			var got []Progress
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			err := Pull(ctx, srv.URL, "qwen3:4b", nil, func(p Progress) {
				got = append(got, p)
				bars = append(bars, Bar(p, 70))
			})
			if (c.wantErr == "") != (err == nil) || (err != nil && !strings.Contains(err.Error(), c.wantErr)) {
				t.Fatalf("Pull: %v, want error %q", err, c.wantErr)
			}
			if len(got) != c.steps || strings.Join(*asked, ",") != "qwen3:4b stream=true" {
				t.Fatalf("%d steps (want %d), asked %v", len(got), c.steps, *asked)
			}
			for _, b := range bars {
				if n := len([]rune(b)); n > 70 {
					t.Errorf("bar %q is %d cells wide, more than 70", b, n)
				}
			}
			if c.steps >= 3 && (!strings.Contains(bars[2], " 50% ") || strings.Count(bars[2], "█") == 0 || strings.Count(bars[1], "█") != 0) {
				t.Errorf("the bar does not follow the bytes: %q then %q", bars[1], bars[2])
			}
		})
	}
}

func TestBarFitsAnyWidth(t *testing.T) {
	p := Progress{Status: "pulling x", Digest: "sha256:abcdef0123456789", Total: 5 << 30, Completed: 7 << 30}
	for _, w := range []int{0, 1, 10, 30, 200} {
		if b := Bar(p, w); len([]rune(b)) > max(w, 0) {
			t.Errorf("width %d: %q", w, b)
		}
	}
	if b := Bar(p, 80); !strings.Contains(b, "100%") || !strings.Contains(b, "pulling abcdef012345") {
		t.Errorf("an overfull layer: %q", b)
	}
}

// TestSuggestFitsTheMemory: the model named for a machine is one it can run.
func TestSuggestFitsTheMemory(t *testing.T) {
	cases := []struct {
		memory uint64
		want   string
	}{{0, "qwen3:1.7b"}, {4 << 30, "qwen3:1.7b"}, {8 << 30, "qwen3:4b"}, {16 << 30, "qwen3:8b"}, {32 << 30, "qwen3:14b"}, {128 << 30, "qwen3:32b"}}
	for _, c := range cases {
		if got := Suggest(c.memory); got.Model != c.want {
			t.Errorf("%d GiB: %s, want %s", c.memory>>30, got.Model, c.want)
		}
	}
}

func TestParseMemInfo(t *testing.T) {
	cases := []struct {
		text string
		want uint64
		err  bool
	}{
		{"MemTotal:       16318480 kB\nMemFree:         1234 kB\n", 16318480 << 10, false},
		{"MemFree: 1 kB\n", 0, true},
		{"MemTotal: lots kB\n", 0, true},
		{"MemTotal: 12 MB\n", 0, true},
		{"MemTotal: 99999999999999999999 kB\n", 0, true},
	}
	for _, c := range cases {
		got, err := parseMemInfo(strings.NewReader(c.text))
		if got != c.want || (err != nil) != c.err {
			t.Errorf("%q: %d, %v", c.text, got, err)
		}
	}
}

func FuzzParseMemInfo(f *testing.F) {
	f.Add("MemTotal:       16318480 kB\n")
	f.Add("MemTotal: 1\n")
	f.Fuzz(func(t *testing.T, text string) {
		n, err := parseMemInfo(strings.NewReader(text))
		if err == nil && (n == 0 && !strings.Contains(text, "MemTotal") || n > 1<<54) {
			t.Fatalf("%q: %d with no error", text, n)
		}
	})
}
