package tools

import (
	"encoding/json"
	"fmt"
	"math"
	"strconv"
)

// Arguments arrive validated, but decoded from JSON (numbers as float64) or built by hand in
// Go (int); these helpers accept both and say which argument was wrong when neither fits.

func argString(args map[string]any, name string) (string, bool, error) {
	v, ok := args[name]
	if !ok || v == nil {
		return "", false, nil
	}
	s, ok := v.(string)
	if !ok {
		return "", false, fmt.Errorf("argument %q must be a string, got %T", name, v)
	}
	return s, true, nil
}

func argInt(args map[string]any, name string) (int, bool, error) {
	v, ok := args[name]
	if !ok || v == nil {
		return 0, false, nil
	}
	switch n := v.(type) {
	case float64:
		if n != math.Trunc(n) || math.IsInf(n, 0) || math.Abs(n) > 1<<53 {
			return 0, false, fmt.Errorf("argument %q must be a whole number, got %v", name, n)
		}
		return int(n), true, nil
	case int:
		return n, true, nil
	case int64:
		return int(n), true, nil
	case json.Number:
		i, err := strconv.Atoi(string(n))
		if err != nil {
			return 0, false, fmt.Errorf("argument %q: %w", name, err)
		}
		return i, true, nil
	}
	return 0, false, fmt.Errorf("argument %q must be a number, got %T", name, v)
}

func argBool(args map[string]any, name string) (bool, error) {
	v, ok := args[name]
	if !ok || v == nil {
		return false, nil
	}
	b, ok := v.(bool)
	if !ok {
		return false, fmt.Errorf("argument %q must be true or false, got %T", name, v)
	}
	return b, nil
}

// argPath reads a path argument and resolves it against the working directory. It returns the
// path as the model wrote it (for messages) and the resolved one.
func argPath(env *Env, args map[string]any, name string, required bool) (written, resolved string, err error) {
	written, ok, err := argString(args, name)
	if err != nil {
		return "", "", err
	}
	if !ok && required {
		return "", "", fmt.Errorf("argument %q is required", name)
	}
	resolved, err = env.Resolve(written)
	return written, resolved, err
}
