//go:build unix

package proc

import (
	"context"
	"io"
	"syscall"
	"testing"

	"pi/internal/testwait"
)

func TestStart(t *testing.T) {
	tests := []struct {
		name, prog string
		args       []string
		stdin      string
		signal     syscall.Signal // sent once started; 0: none
		wantOut    string
		wantErr    string
		want       Exit
	}{
		{"pipes", "sh", []string{"-c", "cat; echo err >&2; exit 4"}, "in\n", 0, "in\n", "err\n", Exit{Code: 4}},
		{"signal to the group", "sh", []string{"-c", "sleep 100 & echo started; wait"}, "", syscall.SIGTERM, "started\n", "", Exit{Code: -1, Signal: "terminated"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r, err := Start(context.Background(), StartSpec{Name: tc.prog, Args: tc.args})
			if err != nil {
				t.Fatal(err)
			}
			io.WriteString(r.Stdin, tc.stdin)
			r.Stdin.Close()
			var out []byte
			if tc.signal != 0 { // once the shell says its background child is started
				out = make([]byte, len(tc.wantOut))
				if _, err := io.ReadFull(r.Stdout, out); err != nil {
					t.Fatalf("before the signal: %q, %v", out, err)
				}
				if err := r.Signal(tc.signal); err != nil {
					t.Fatal(err)
				}
			}
			rest, _ := io.ReadAll(r.Stdout)
			out = append(out, rest...)
			errOut, _ := io.ReadAll(r.Stderr)
			exit, err := r.Wait()
			if err != nil || exit != tc.want || string(out) != tc.wantOut || string(errOut) != tc.wantErr {
				t.Errorf("got %+v %v, out %q err %q", exit, err, out, errOut)
			}
		})
	}
	if _, err := Start(context.Background(), StartSpec{Name: "/nonexistent"}); err == nil {
		t.Error("want an error for a missing program")
	}
}

// Ending ctx kills the whole group.
func TestStartCancelKillsGroup(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	r, err := Start(ctx, StartSpec{Name: "sh", Args: []string{"-c", "sleep 100 & echo $!; wait"}})
	if err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 32)
	n, _ := r.Stdout.Read(buf)
	cancel()
	io.Copy(io.Discard, r.Stdout)
	io.Copy(io.Discard, r.Stderr)
	if exit, _ := r.Wait(); exit.Signal != "killed" {
		t.Errorf("exit %+v", exit)
	}
	var pid int
	for _, c := range buf[:n] {
		if c >= '0' && c <= '9' {
			pid = pid*10 + int(c-'0')
		}
	}
	if !testwait.Within(testwait.Deadline, func() bool { return !processAlive(pid) }) {
		t.Errorf("grandchild %d outlived the cancel", pid)
	}
}
