package server

import (
	"context"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"
)

// dialEnv makes the test binary a client (TestDialHelper) of the socket it names.
const dialEnv = "PI_SERVER_TEST_DIAL"

// TestDialHelper is not a test: run with dialEnv set, it dials the socket and prints the
// server's answer, so that a client can run under setpriv --no-new-privs.
func TestDialHelper(t *testing.T) {
	sock := os.Getenv(dialEnv)
	if sock == "" {
		t.Skip("only a helper process of TestServerRefusesNoNewPrivs")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	c, err := Dial(ctx, sock)
	if err != nil {
		os.Stdout.WriteString("refused: " + err.Error() + "\n")
		return
	}
	c.Close()
	os.Stdout.WriteString("served\n")
}

// needSetpriv skips unless setpriv can start a process with no_new_privs, and unless this
// test runs without it (everything it starts would have it).
func needSetpriv(t *testing.T) string {
	t.Helper()
	path, err := exec.LookPath("setpriv")
	if err != nil {
		t.Skip("setpriv (util-linux) is not installed; it starts the client with no_new_privs")
	}
	if nnp, err := noNewPrivs(os.Getpid()); err != nil || nnp {
		t.Skipf("this test runs with no_new_privs already (%v): every client would have it", err)
	}
	return path
}

// TestServerRefusesNoNewPrivs: a client started with no_new_privs, as everything inside pi's
// sandbox is, gets a hello_error saying why; the same client without it, or any client of a
// server told --allow-no-new-privs, is served.
func TestServerRefusesNoNewPrivs(t *testing.T) {
	setpriv := needSetpriv(t)
	for _, tc := range []struct {
		name        string
		nnp, allow  bool
		wantRefused bool
	}{
		{"no_new_privs", true, false, true},
		{"plain", false, false, false},
		{"no_new_privs, allowed", true, true, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			k := startServer(t, slowReply("x", 0), func(o *Options) { o.AllowNoNewPrivs = tc.allow })
			args := []string{os.Args[0], "-test.run=^TestDialHelper$"}
			if tc.nnp {
				args = append([]string{setpriv, "--no-new-privs"}, args...)
			}
			cmd := exec.Command(args[0], args[1:]...)
			cmd.Env = append(os.Environ(), dialEnv+"="+k.socket)
			out, err := cmd.Output()
			if err != nil {
				t.Fatalf("the client: %v: %s", err, out)
			}
			refused := strings.Contains(string(out), "refused: ")
			if refused != tc.wantRefused || !strings.Contains(string(out), map[bool]string{true: "refused", false: "served"}[tc.wantRefused]) {
				t.Fatalf("refused %v, want %v: %s", refused, tc.wantRefused, out)
			}
			if refused && (!strings.Contains(string(out), "invalid_request") || !strings.Contains(string(out), "no_new_privs") ||
				!strings.Contains(string(out), "--allow-no-new-privs")) {
				t.Fatalf("the refusal does not say why and what to do: %s", out)
			}
		})
	}
}

// TestNoNewPrivs reads the flag of a process that has it and of one that has not, and fails
// clearly for a process that is gone.
func TestNoNewPrivs(t *testing.T) {
	setpriv := needSetpriv(t)
	for _, tc := range []struct {
		name string
		args []string
		want bool
	}{
		{"plain", []string{"sleep", "30"}, false},
		{"setpriv --no-new-privs", []string{setpriv, "--no-new-privs", "sleep", "30"}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cmd := exec.Command(tc.args[0], tc.args[1:]...)
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			defer func() { cmd.Process.Kill(); cmd.Wait() }()
			deadline := time.Now().Add(10 * time.Second) // setpriv sets the flag, then execs sleep
			for {
				got, err := noNewPrivs(cmd.Process.Pid)
				if err == nil && got == tc.want {
					return
				}
				if time.Now().After(deadline) {
					t.Fatalf("noNewPrivs = %v, %v; want %v", got, err, tc.want)
				}
				time.Sleep(10 * time.Millisecond)
			}
		})
	}
	if _, err := noNewPrivs(0); err == nil {
		t.Error("pid 0: no error")
	}
}
