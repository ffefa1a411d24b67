package main

import (
	"strings"
	"testing"
)

// TestServeOnATakenSocketSaysSoFirst: a second pi serve on a socket a live server holds says
// the socket is taken and exits 1, without first claiming to listen on it.
func TestServeOnATakenSocketSaysSoFirst(t *testing.T) {
	bin := buildPi(t)
	dir := t.TempDir()
	sock := startServe(t, bin, dir)
	r := runPi(t, bin, dir, "serve", "--socket", sock, "--no-extensions")
	if r.code != 1 || !strings.Contains(r.stderr, "already running") || strings.Contains(r.stderr, "listening on") {
		t.Fatalf("second pi serve: code %d, stderr %q", r.code, r.stderr)
	}
	if !serving(sock) {
		t.Fatal("the first server stopped answering")
	}
}
