package tools

import (
	"fmt"
	"slices"
	"strings"
)

// Select picks the active tools of available: with an allow-list, its tools in its order
// (strict reports a name nothing provides); without, the default built-ins and every tool that
// is not a built-in (a script's) and is not deferred.
func Select(available []Tool, allowlist []string, strict bool) ([]Tool, error) {
	var active []Tool
	if len(allowlist) > 0 {
		for _, n := range allowlist {
			if i := slices.IndexFunc(available, func(t Tool) bool { return t.Info().Name == n }); i >= 0 {
				active = append(active, available[i])
			} else if strict {
				return nil, fmt.Errorf("tool %q: no built-in or script provides it (built in: %s)", n, strings.Join(AllNames(), ", "))
			}
		}
		return active, nil
	}
	for _, t := range available {
		n := t.Info().Name
		if t.Info().Deferred {
			continue
		}
		if !slices.Contains(AllNames(), n) || slices.Contains(DefaultNames(), n) {
			active = append(active, t)
		}
	}
	return active, nil
}

// Pick returns the tools of available that names names, in that order; a name none has is an
// error.
func Pick(available []Tool, names []string) ([]Tool, error) {
	var out []Tool
	for _, n := range names {
		i := slices.IndexFunc(available, func(t Tool) bool { return t.Info().Name == n })
		if i < 0 {
			return nil, fmt.Errorf("no tool named %q", n)
		}
		out = append(out, available[i])
	}
	return out, nil
}

// With is active with the tools of available that names names added at its end, in
// available's order; names already active or that nothing provides are left out.
func With(active, available []Tool, names []string) []Tool {
	out := slices.Clip(active)
	for _, t := range available {
		n := t.Info().Name
		if slices.Contains(names, n) && !slices.ContainsFunc(out, func(a Tool) bool { return a.Info().Name == n }) {
			out = append(out, t)
		}
	}
	return out
}

// Keys tell tools apart as the model sees them: each one's name and description, and whether
// it waits to be asked for.
func Keys(ts []Tool) []string {
	keys := make([]string, len(ts))
	for i, t := range ts {
		keys[i] = t.Info().Name + "\x00" + t.Info().Description
		if t.Info().Deferred {
			keys[i] += "\x00deferred"
		}
	}
	return keys
}
