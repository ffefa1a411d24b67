package config

import "testing"

// [subagents] scheduling is off unless a file turns it on; a later file (the project's) has
// the last word, as for enabled.
func TestConfigSubagentsScheduling(t *testing.T) {
	cases := []struct {
		name, user, project string
		want                bool
	}{
		{"unset", "[subagents]\nenabled = true\n", "", false},
		{"user on", "[subagents]\nscheduling = true\n", "", true},
		{"project off over user on", "[subagents]\nscheduling = true\n", "[subagents]\nscheduling = false\n", false},
		{"project on", "", "[subagents]\nscheduling = true\n", true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c := fixture(t, tc.user, tc.project, nil)
			if got := c.Subagents.SchedulingOn(); got != tc.want {
				t.Errorf("scheduling = %v, want %v (warnings %q)", got, tc.want, c.Warnings)
			}
		})
	}
}
