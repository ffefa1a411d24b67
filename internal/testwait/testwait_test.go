package testwait

import (
	"sync/atomic"
	"testing"
	"time"
)

func TestWithinSeesAConditionThatComesLater(t *testing.T) {
	var n atomic.Int32
	go func() {
		for range 3 {
			n.Add(1)
		}
	}()
	if !Within(Deadline, func() bool { return n.Load() == 3 }) {
		t.Fatal("the condition held, but Within reported it never did")
	}
}

func TestWithinGivesUpAfterItsDeadline(t *testing.T) {
	start := time.Now()
	if Within(20*time.Millisecond, func() bool { return false }) {
		t.Fatal("a condition that never holds was reported as held")
	}
	if d := time.Since(start); d < 20*time.Millisecond {
		t.Fatalf("gave up after %v, before its deadline", d)
	}
}

func TestReceiveTakesTheValue(t *testing.T) {
	ch := make(chan string, 1)
	go func() { ch <- "sent" }()
	if got := Receive(t, "the value", ch); got != "sent" {
		t.Fatalf("received %q", got)
	}
}
