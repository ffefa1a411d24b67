//go:build unix

package proc

import (
	"context"
	"os"
	"strings"
	"testing"
	"time"
)

func TestCapture(t *testing.T) {
	tests := []struct {
		name string
		spec CaptureSpec
		want Captured
	}{
		{"streams apart", CaptureSpec{Command: "printf out; printf err >&2; exit 3"},
			Captured{Stdout: "out", Stderr: "err", Code: 3}},
		{"stdin and dir", CaptureSpec{Command: "cat; pwd", Stdin: "in:", Dir: "/"}, Captured{Stdout: "in:/\n"}},
		{"no stdin", CaptureSpec{Command: "cat; echo done"}, Captured{Stdout: "done\n"}},
		{"env", CaptureSpec{Command: `echo "$PI_X"`, Env: append(os.Environ(), "PI_X=42")}, Captured{Stdout: "42\n"}},
		{"combined", CaptureSpec{Command: "echo a; echo b >&2; echo c", Combined: true}, Captured{Stdout: "a\nb\nc\n"}},
		{"capped", CaptureSpec{Command: "head -c 100000 /dev/zero | tr '\\0' x; echo e >&2", MaxBytes: 10},
			Captured{Stdout: "xxxxxxxxxx", Stderr: "e\n"}},
		{"killed by a signal", CaptureSpec{Command: "kill -9 $$"}, Captured{Code: -1}},
		{"timeout", CaptureSpec{Command: "echo started; sleep 30", Timeout: grandchildTimeout}, // time to print "started" under load
			Captured{Stdout: "started\n", Code: -1, Killed: true}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			start := time.Now()
			got, err := Capture(context.Background(), tc.spec)
			if err != nil || got != tc.want {
				t.Fatalf("got %+v, %v; want %+v", got, err, tc.want)
			}
			if d := time.Since(start); d > 10*time.Second { // the timeout case sleeps 30 s
				t.Fatalf("took %v", d)
			}
		})
	}
}

func TestCaptureCannotRun(t *testing.T) {
	_, err := Capture(context.Background(), CaptureSpec{Command: "true", Dir: "/nonexistent"})
	if err == nil || !strings.HasPrefix(err.Error(), `running sh -c "true": `) {
		t.Fatalf("got %v", err)
	}
}

func TestCaptureCancelledBeforeStart(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	got, err := Capture(ctx, CaptureSpec{Command: "echo never"})
	if err != nil || got != (Captured{Code: -1, Killed: true}) {
		t.Fatalf("got %+v, %v", got, err)
	}
}
