package live

import (
	"context"
	"os"
	"strings"
	"testing"
	"time"

	"pi/internal/pitest"
	"pi/internal/testwait"
	"pi/provider"
	"pi/provider/faux"
	"pi/session"
)

func TestOpsBash(t *testing.T) {
	cases := []struct {
		name, command string
		exclude       bool
		wantOutput    string
		wantCode      int // -1: killed
		inContext     bool
	}{
		{"output enters the next context", "echo from-the-shell", false, "from-the-shell\n", 0, true},
		{"excluded from context", "echo kept-private", true, "kept-private\n", 0, false},
		{"failing command", "echo oops >&2; exit 3", false, "oops\n", 3, true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var seen []provider.Message
			a := newOpsApp(t, pitest.FauxModel(false), faux.Reply(func(req *provider.Request) provider.Message {
				seen = req.Messages
				return faux.Text("noted")
			}))
			res, err := a.shell.run(context.Background(), tc.command, tc.exclude, nil)
			if err != nil || res.Output != tc.wantOutput || res.ExitCode == nil || *res.ExitCode != tc.wantCode {
				t.Fatalf("runBash = %+v, %v", res, err)
			}
			promptText(t, a, "what did it print?")
			var context strings.Builder
			for i := range seen {
				context.WriteString(seen[i].TextContent())
			}
			if got := strings.Contains(context.String(), strings.TrimSpace(tc.wantOutput)); got != tc.inContext {
				t.Fatalf("output in the model's context: %v, want %v\n%s", got, tc.inContext, context.String())
			}
			if n := len(pitest.EntriesOfType(t, a.rec.session(), session.TypeMessage)); n != 3 {
				t.Fatalf("session holds %d messages, want bash, prompt and reply", n)
			}
		})
	}
}

func TestOpsBashAbortAndTruncation(t *testing.T) {
	a := newOpsApp(t, pitest.FauxModel(false))
	done := make(chan session.BashResult)
	go func() {
		res, _ := a.shell.run(context.Background(), "echo started; sleep 30", false, nil)
		done <- res
	}()
	testwait.Until(t, "the command running", func() bool { return a.work.running(workBash) })
	a.work.cancel(workBash)
	select {
	case res := <-done:
		if !res.Cancelled || res.ExitCode != nil {
			t.Fatalf("aborted command: %+v", res)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("abortBash did not stop the command")
	}

	res, err := a.shell.run(context.Background(), "seq 1 5000", false, nil)
	if err != nil || !res.Truncated || res.FullOutputPath == "" {
		t.Fatalf("long output: %+v, %v", res, err)
	}
	defer os.Remove(res.FullOutputPath)
	full, err := os.ReadFile(res.FullOutputPath)
	if err != nil || !strings.HasPrefix(string(full), "1\n2\n") || !strings.HasSuffix(string(full), "5000\n") {
		t.Fatalf("full output file: %v, %d bytes", err, len(full))
	}
	if !strings.HasSuffix(res.Output, "5000\n") || strings.HasPrefix(res.Output, "1\n") {
		t.Fatalf("truncated output should keep the tail: %q…", res.Output[:20])
	}
}
