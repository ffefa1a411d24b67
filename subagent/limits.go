package subagent

// limits.go: how deep and how wide one tree of sessions may grow. The limits are read once,
// from the top-level session's configuration, and handed down to every child with its Self,
// so a child can never raise them (nothing of a child's own configuration is read for them).

import (
	"fmt"
	"sync"
)

// Defaults of [subagents] max_depth and max_children. Depth 2 lets a lead start workers that
// start scouts; 32 children in all is more than a session needs and bounds what a runaway
// fan-out can write (a session file each).
const (
	DefaultMaxDepth    = 2
	DefaultMaxChildren = 32
)

// Tree is what the sessions of one tree share: the top-level session (depth 0) and every
// child under it (depth 1, 2, …). MaxDepth is the deepest a child may be; MaxChildren is how
// many children the whole tree may start (a schedule's run counts only while it runs), at every depth together, while the top-level
// session lives.
type Tree struct {
	MaxDepth, MaxChildren int

	mu      sync.Mutex
	started int
}

// NewTree makes the tree of a top-level session; zero or less means the default.
func NewTree(maxDepth, maxChildren int) *Tree {
	if maxDepth <= 0 {
		maxDepth = DefaultMaxDepth
	}
	if maxChildren <= 0 {
		maxChildren = DefaultMaxChildren
	}
	return &Tree{MaxDepth: maxDepth, MaxChildren: maxChildren}
}

// CanNest reports whether a session at depth may start children at all.
func (t *Tree) CanNest(depth int) bool { return depth < t.MaxDepth }

// Started is how many children the tree has started so far.
func (t *Tree) Started() int {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.started
}

// release gives back a child's place once it has ended: a schedule's runs count while they
// run, so that a repeating schedule is not stopped by the runs it made before.
func (t *Tree) release() {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.started--
}

// reserve counts one more child started by a session at depth, or says which limit stops it.
func (t *Tree) reserve(depth int) error {
	if !t.CanNest(depth) {
		return fmt.Errorf("subagent depth limit %d reached: this agent is at depth %d, and its children would be deeper "+
			"than [subagents] max_depth allows; do the task yourself", t.MaxDepth, depth)
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.started >= t.MaxChildren {
		return fmt.Errorf("subagent limit %d reached: this session and its agents have started %d agents, "+
			"all that [subagents] max_children allows; do the task yourself", t.MaxChildren, t.started)
	}
	t.started++
	return nil
}
