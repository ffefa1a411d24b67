package main

import (
	"context"
	"strings"
	"testing"

	"pi/internal/pitest"
	"pi/provider/faux"
)

// TestTreeOverRPC lists the tree, moves to a user message on the other branch with a summary,
// and checks the answer, the new leaf and the transcript the client then sees.
func TestTreeOverRPC(t *testing.T) {
	sm := &pitest.SummaryModel{}
	a, ids := treeApp(t, faux.Reply(sm.Reply))
	c, _, stop := startInProcess(t, context.Background(), a)
	defer stop()

	tree := c.mustCall(map[string]any{"type": "get_tree"}).data()
	entries, _ := tree["entries"].([]any)
	all, _, err := a.Tree()
	if err != nil {
		t.Fatal(err)
	}
	if tree["leafId"] != ids["a5"] || len(entries) != len(all) {
		t.Fatalf("get_tree: leaf %v, %d entries of %d", tree["leafId"], len(entries), len(all))
	}
	byID := map[string]map[string]any{}
	for _, e := range entries {
		m := e.(map[string]any)
		byID[m["id"].(string)] = m
	}
	if u1 := byID[ids["u1"]]; u1["role"] != "user" || u1["preview"] != "plan the cache" || u1["label"] != "start" {
		t.Fatalf("get_tree entry of u1 = %v", u1)
	}
	if first := entries[0].(map[string]any); first["parentId"] != nil {
		t.Fatalf("get_tree: the first entry's parentId is %v, want null", first["parentId"])
	}
	if u3 := byID[ids["u3"]]; u3["parentId"] != ids["a1"] || u3["type"] != "message" {
		t.Fatalf("get_tree entry of u3 = %v", u3)
	}

	r := c.mustCall(map[string]any{"type": "navigate_tree", "targetId": ids["u2"], "summarize": true,
		"customInstructions": "what was measured"}).data()
	if r["editorText"] != "try redis" || r["leafId"] != a.State().Leaf {
		t.Fatalf("navigate_tree answered %v", r)
	}
	sm.CheckRequest(t, []string{"try memcached", "what was measured"}, []string{"try redis"})
	if got := messageRoles(c.messages()); strings.Join(got, ",") != "user,assistant,branchSummary" {
		t.Fatalf("transcript roles after the move: %v", got)
	}
	if r := c.call(map[string]any{"type": "navigate_tree"}); r["success"] != false {
		t.Fatalf("navigate_tree without a target: %v", r)
	}
}

// TestRPCSetLabel labels an entry, sees the label in get_tree, and clears it.
func TestRPCSetLabel(t *testing.T) {
	a, ids := treeApp(t)
	c, _, stop := startInProcess(t, context.Background(), a)
	defer stop()
	labelOf := func(id string) any {
		for _, e := range c.mustCall(map[string]any{"type": "get_tree"}).data()["entries"].([]any) {
			if e := e.(map[string]any); e["id"] == id {
				return e["label"]
			}
		}
		return "entry missing"
	}
	c.mustCall(map[string]any{"type": "set_label", "entryId": ids["u3"], "label": "the memcached try"})
	if got := labelOf(ids["u3"]); got != "the memcached try" {
		t.Fatalf("label after set_label: %v", got)
	}
	c.mustCall(map[string]any{"type": "set_label", "entryId": ids["u3"]})
	if got := labelOf(ids["u3"]); got != nil {
		t.Fatalf("label after clearing: %v", got)
	}
	if r := c.call(map[string]any{"type": "set_label", "entryId": "nope", "label": "x"}); r["success"] != false {
		t.Fatalf("a label on a missing entry: %v", r)
	}
}
