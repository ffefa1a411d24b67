package provider

import (
	"encoding/json"
	"fmt"
	"strings"
)

// ParseArguments decodes the JSON text a model produced for a tool call's arguments. Empty text
// means no arguments. On failure it returns an empty map and an error naming the problem.
func ParseArguments(raw string) (map[string]any, error) {
	args := map[string]any{}
	if strings.TrimSpace(raw) == "" {
		return args, nil
	}
	if err := json.Unmarshal([]byte(raw), &args); err != nil {
		return map[string]any{}, fmt.Errorf("tool arguments are not a JSON object: %w", err)
	}
	return args, nil
}
