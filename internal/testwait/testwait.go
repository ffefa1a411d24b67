// Package testwait is how tests wait for something to happen: they poll a condition, or
// receive from a channel, until it holds or a generous deadline passes, so a busy machine
// makes a test slower, never wrong; RunCapped waits for a child process under a memory cap.
// It is for _test.go files only; it keeps no state and
// imports nothing of pi's.
package testwait

import (
	"testing"
	"time"
)

// Deadline is how long Until and Receive wait: far beyond what a loaded CI core needs, and
// still short of the test binary's own timeout, so a real hang fails with a message.
const Deadline = 15 * time.Second

// pollEvery is the pause between two looks at a condition.
const pollEvery = 5 * time.Millisecond

// Until polls cond until it holds; after Deadline it fails t, naming what it waited for.
func Until(t testing.TB, what string, cond func() bool) {
	t.Helper()
	if !Within(Deadline, cond) {
		t.Fatalf("timed out after %v waiting for %s", Deadline, what)
	}
}

// Within polls cond until it holds or d has passed, and reports whether it held. For a
// test that must go on (or clean up) when the condition never comes.
func Within(d time.Duration, cond func() bool) bool {
	for end := time.Now().Add(d); ; time.Sleep(pollEvery) {
		if cond() {
			return true
		}
		if time.Now().After(end) {
			return false
		}
	}
}

// Receive takes one value from ch; after Deadline it fails t, naming what it waited for.
// A closed channel yields its zero value, as a receive does.
func Receive[T any](t testing.TB, what string, ch <-chan T) T {
	t.Helper()
	timer := time.NewTimer(Deadline)
	defer timer.Stop()
	select {
	case v := <-ch:
		return v
	case <-timer.C:
		t.Fatalf("timed out after %v waiting for %s", Deadline, what)
		var zero T
		return zero
	}
}
