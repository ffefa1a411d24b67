package subagent

import (
	"context"
	"strings"
	"sync/atomic"
	"testing"
)

// The limits are the tree's: a session at the depth limit cannot start a child, the count of
// children is shared by every session of the tree, and a child's Self carries the top-level
// session's tree, whatever the child's own settings.
func TestTreeLimits(t *testing.T) {
	var running, most atomic.Int32
	release := make(chan struct{})
	close(release)
	manager := func(tree *Tree, depth int) *Manager {
		m := fakeManager(release, &running, &most)
		m.opts.Tree, m.opts.Depth = tree, depth
		t.Cleanup(m.Close)
		return m
	}
	tree := NewTree(2, 3)
	top, mid, deepest := manager(tree, 0), manager(tree, 1), manager(tree, 2)
	ctx := context.Background()
	cases := []struct {
		name string
		m    *Manager
		want string // "" : it starts
	}{
		{"the top session starts a child", top, ""},
		{"a child at depth 1 starts one", mid, ""},
		{"a child at depth 2 is at the limit", deepest, "subagent depth limit 2 reached: this agent is at depth 2"},
		{"the third child of the tree", top, ""},
		{"the fourth is past max_children", mid, "subagent limit 3 reached"},
		{"a refusal is not counted", top, "subagent limit 3 reached"},
	}
	for _, tc := range cases {
		_, err := tc.m.Start(ctx, Spec{Prompt: "x"})
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("%s: %v", tc.name, err)
		case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
			t.Errorf("%s: error %v, want one saying %q", tc.name, err, tc.want)
		}
	}
	if n := tree.Started(); n != 3 {
		t.Errorf("the tree counted %d children, want 3", n)
	}
	child := NewSessionChild(Launch{ID: "agent-1", Type: Type{Name: "lead", Tools: []string{"Agent"}}})
	self := child.Self(&Self{Depth: 1, Tree: tree}, tree)
	if self.Tree != tree || self.Depth != 2 || (Scripted{Of: self}).Self()["max_depth"] != 2 {
		t.Errorf("a grandchild's Self %+v should carry the top session's tree at depth 2", self)
	}
	if d := NewTree(0, -1); d.MaxDepth != DefaultMaxDepth || d.MaxChildren != DefaultMaxChildren {
		t.Errorf("zero and negative limits should be the defaults: %+v", d)
	}
}
