package main

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"sort"
	"strings"
	"testing"
)

// The package initialisers of everything linked into pi run at every start, whether the run
// uses them or not. These budgets hold them (GODEBUG=inittrace=1, which counts each package's
// init allocations exactly) so that a new dependency cannot silently make every run slower
// and bigger. Allocations stand in for time: they are the same on every run, while the clock
// under load is not. In 1 December's build goldmark's packages were 3,500 of the ~6,000
// allocations (its linkify regexps alone 1,660), gdamore/encoding (tcell's) 1,100. Since
// internal/mdext replaced goldmark/extension the total is 3,911 allocations and 544 KB
// (goldmark's parser 935 and util 437 remain); the budgets sit just above that.
const (
	initAllocBudget = 4000
	initByteBudget  = 560 << 10
	// Our own packages build nothing at init: a regexp, a table or a parse waits until it is
	// used. A sentinel error or two is all a pi package may allocate.
	ownPackageAllocBudget = 4
)

type initCost struct {
	pkg           string
	clockMs       float64
	bytes, allocs int
}

func TestStartupInitWithinBudget(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary: skipped in -short mode")
	}
	bin := buildPi(t)
	cmd := exec.Command(bin, "--version")
	cmd.Env = append(os.Environ(), "GODEBUG=inittrace=1")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("pi --version: %v\n%s", err, stderr.String())
	}
	costs, err := parseInitTrace(stderr.String())
	if err != nil {
		t.Fatal(err)
	}
	var clock float64
	var bytes, allocs int
	for _, c := range costs {
		clock, bytes, allocs = clock+c.clockMs, bytes+c.bytes, allocs+c.allocs
		if (c.pkg == "pi" || strings.HasPrefix(c.pkg, "pi/")) && c.allocs > ownPackageAllocBudget {
			t.Errorf("%s allocates %d times (%d B) at init, budget %d: build it where it is used", c.pkg, c.allocs, c.bytes, ownPackageAllocBudget)
		}
	}
	t.Logf("init of %d packages: %.1f ms clock, %d B, %d allocations; heaviest:\n%s", len(costs), clock, bytes, allocs, heaviest(costs, 8))
	if allocs > initAllocBudget || bytes > initByteBudget {
		t.Errorf("init: %d allocations and %d B, budget %d and %d; heaviest:\n%s", allocs, bytes, initAllocBudget, initByteBudget, heaviest(costs, 8))
	}
}

// parseInitTrace reads the runtime's lines "init PKG @T ms, C ms clock, B bytes, A allocs".
func parseInitTrace(trace string) ([]initCost, error) {
	var costs []initCost
	sc := bufio.NewScanner(strings.NewReader(trace))
	for sc.Scan() {
		if !strings.HasPrefix(sc.Text(), "init ") {
			continue
		}
		var c initCost
		var at float64
		if _, err := fmt.Sscanf(sc.Text(), "init %s @%f ms, %f ms clock, %d bytes, %d allocs", &c.pkg, &at, &c.clockMs, &c.bytes, &c.allocs); err != nil {
			return nil, fmt.Errorf("inittrace line %q: %w", sc.Text(), err)
		}
		costs = append(costs, c)
	}
	if len(costs) == 0 {
		return nil, fmt.Errorf("no inittrace lines in %q", trace)
	}
	return costs, nil
}

func heaviest(costs []initCost, n int) string {
	costs = append([]initCost(nil), costs...)
	sort.Slice(costs, func(i, j int) bool { return costs[i].allocs > costs[j].allocs })
	var b strings.Builder
	for _, c := range costs[:min(n, len(costs))] {
		fmt.Fprintf(&b, "  %-45s %6d allocs %8d B %6.2f ms\n", c.pkg, c.allocs, c.bytes, c.clockMs)
	}
	return b.String()
}
