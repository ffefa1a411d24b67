package live

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"
)

// TestWorkRegistryExclusion checks which kinds of work may run together: one of each kind,
// and one transcript owner at a time; a shell command runs beside a run.
func TestWorkRegistryExclusion(t *testing.T) {
	tests := []struct {
		running, want workKind
		allowed       bool
	}{
		{workRun, workRun, false},
		{workRun, workCompaction, false},
		{workCompaction, workRun, false},
		{workRun, workBranchSummary, false},
		{workSession, workRun, false},
		{workRun, workBash, true},
		{workBash, workRun, true},
		{workBash, workBash, false},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprintf("%s then %s", tt.running, tt.want), func(t *testing.T) {
			w := newWorkRegistry()
			_, end, err := w.begin(context.Background(), tt.running)
			if err != nil {
				t.Fatal(err)
			}
			defer end()
			_, end2, err := w.begin(context.Background(), tt.want)
			if (err == nil) != tt.allowed {
				t.Fatalf("begin %s while %s runs: %v, want allowed=%v", tt.want, tt.running, err, tt.allowed)
			}
			if err == nil {
				end2()
			}
		})
	}
}

// TestWorkRegistryAbortAndStop checks that cancel reaches every context the registry handed
// out, and that stop returns only once the work has ended.
func TestWorkRegistryAbortAndStop(t *testing.T) {
	w := newWorkRegistry()
	var ended sync.WaitGroup
	finished := make(chan workKind, 2)
	for _, k := range []workKind{workRun, workBash} {
		ctx, end, err := w.begin(context.Background(), k)
		if err != nil {
			t.Fatal(err)
		}
		ended.Add(1)
		go func() {
			defer ended.Done()
			<-ctx.Done()
			time.Sleep(20 * time.Millisecond) // winding down takes a moment
			finished <- k
			end()
		}()
	}
	w.stop()
	if len(finished) != 2 || w.running(workRun) || w.running(workBash) {
		t.Fatalf("stop returned with %d of 2 finished", len(finished))
	}
	ended.Wait()
	if _, end, err := w.begin(context.Background(), workRun); err != nil {
		t.Fatalf("after stop a run cannot begin: %v", err)
	} else {
		end()
	}
}
