package tools

import (
	"strings"
	"testing"
)

func named(names ...string) []Tool {
	out := make([]Tool, len(names))
	for i, n := range names {
		out[i] = &Func{Spec: Info{Name: n, Description: "does " + n}}
	}
	return out
}

func namesOf(ts []Tool) string {
	var out []string
	for _, t := range ts {
		out = append(out, t.Info().Name)
	}
	return strings.Join(out, ",")
}

func TestSelectPickWith(t *testing.T) {
	available := named(append(AllNames(), "todo", "lazy")...)
	available[len(available)-1].Info().Deferred = true
	tests := []struct {
		name      string
		got       func() ([]Tool, error)
		want, err string
	}{
		{"defaults and scripts' tools", func() ([]Tool, error) { return Select(available, nil, true) }, strings.Join(DefaultNames(), ",") + ",todo", ""},
		{"an allow-list in its order", func() ([]Tool, error) { return Select(available, []string{"todo", "read"}, true) }, "todo,read", ""},
		{"a deferred tool only when named", func() ([]Tool, error) { return Select(available, []string{"lazy"}, true) }, "lazy", ""},
		{"with a deferred tool", func() ([]Tool, error) { return With(named("read"), available, []string{"lazy"}), nil }, "read,lazy", ""},
		{"an unknown name, lenient", func() ([]Tool, error) { return Select(available, []string{"nope", "read"}, false) }, "read", ""},
		{"an unknown name, strict", func() ([]Tool, error) { return Select(available, []string{"nope"}, true) }, "", `tool "nope": no built-in`},
		{"pick", func() ([]Tool, error) { return Pick(available, []string{"todo", "ls"}) }, "todo,ls", ""},
		{"pick an unknown name", func() ([]Tool, error) { return Pick(available, []string{"nope"}) }, "", `no tool named "nope"`},
		{"with: new ones at the end, known and unknown ones left out", func() ([]Tool, error) {
			return With(named("read"), available, []string{"todo", "read", "nope"}), nil
		}, "read,todo", ""},
	}
	for _, tt := range tests {
		got, err := tt.got()
		if tt.err != "" {
			if err == nil || !strings.Contains(err.Error(), tt.err) {
				t.Errorf("%s: error %v, want %q", tt.name, err, tt.err)
			}
			continue
		}
		if err != nil || namesOf(got) != tt.want {
			t.Errorf("%s: %s, %v; want %s", tt.name, namesOf(got), err, tt.want)
		}
	}
	if k := Keys(named("a")); len(k) != 1 || k[0] != "a\x00does a" {
		t.Errorf("keys %q", k)
	}
}
