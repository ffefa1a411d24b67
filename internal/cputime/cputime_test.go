package cputime

import (
	"runtime"
	"testing"
)

func TestUsedGrowsWithWork(t *testing.T) {
	if runtime.GOOS == "windows" || runtime.GOOS == "plan9" {
		t.Skip("not measured on this platform")
	}
	before := Used()
	x := 0
	for i := range 50_000_000 {
		x += i % 7
	}
	if after := Used(); after <= before || x == 0 {
		t.Fatalf("CPU time went from %v to %v after a busy loop", before, after)
	}
}
