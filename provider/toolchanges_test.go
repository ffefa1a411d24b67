package provider

import (
	"encoding/json"
	"reflect"
	"testing"
)

// A tool-change message is written as pi writes it (content "", toolsRemoved as {name}
// references) and read back, pi's references and bare names alike.
func TestToolChangesJSON(t *testing.T) {
	m := ToolChanges([]ToolDef{{Name: "todo", Description: "keep a list"}}, []string{"bash"}, 7)
	data, err := json.Marshal(&m)
	if err != nil {
		t.Fatal(err)
	}
	var fields map[string]any
	json.Unmarshal(data, &fields)
	if fields["role"] != "system" || fields["content"] != "" {
		t.Fatalf("role and content: %s", data)
	}
	if got, _ := json.Marshal(fields["toolsRemoved"]); string(got) != `[{"name":"bash"}]` {
		t.Fatalf("toolsRemoved %s", got)
	}
	cases := []struct {
		name, line string
		removed    []string
	}{
		{"as written", string(data), []string{"bash"}},
		{"pi's references", `{"role":"system","content":"","toolsRemoved":[{"name":"a"},{"name":"b"}],"timestamp":1}`, []string{"a", "b"}},
		{"bare names", `{"role":"system","content":"","toolsRemoved":["a"],"timestamp":1}`, []string{"a"}},
		{"junk is skipped", `{"role":"system","content":"","toolsRemoved":[7,{"name":""},{"x":1},"c"],"timestamp":1}`, []string{"c"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var back Message
			if err := json.Unmarshal([]byte(c.line), &back); err != nil {
				t.Fatal(err)
			}
			if _, removed := ToolsOf(&back); !reflect.DeepEqual(removed, c.removed) {
				t.Fatalf("removed %q, want %q", removed, c.removed)
			}
		})
	}
	back := Message{}
	json.Unmarshal(data, &back)
	if added, _ := ToolsOf(&back); len(added) != 1 || added[0].Name != "todo" {
		t.Fatalf("added %+v", added)
	}
}
