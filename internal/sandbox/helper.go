package sandbox

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"path/filepath"
)

// helperArg0 is the argv[0] that starts pi's binary as the helper. Nobody starts pi by that
// name by accident, and unlike a variable in the environment it is not inherited by the
// command the helper runs.
const helperArg0 = "pi-sandbox-exec"

// helperFailed is the helper's exit code when it could not confine itself or start the
// command, as a shell's 126 for a command found but not run.
const helperFailed = 126

// policy is what the helper enforces; it travels as the helper's first argument.
type policy struct {
	Write       []string `json:"write"` // absolute folders writable beside the devices
	DenyNetwork bool     `json:"denyNetwork,omitempty"`
}

// IsHelper reports whether args (os.Args) start pi as the sandbox helper.
func IsHelper(args []string) bool { return len(args) > 0 && args[0] == helperArg0 }

// RunHelper is the helper's main: it confines the process as args say, then replaces it with
// the command. It returns only when that failed, with the exit code; why goes to stderr.
func RunHelper(args []string, stderr io.Writer) int {
	pol, path, argv, err := parseHelperArgs(args)
	if err == nil {
		err = confineAndExec(pol, path, argv)
	}
	fmt.Fprintln(stderr, "pi sandbox:", err)
	return helperFailed
}

// parseHelperArgs reads [helperArg0, policy JSON, path, argv...] as Confine wrote them.
func parseHelperArgs(args []string) (pol policy, path string, argv []string, err error) {
	if len(args) < 4 || args[0] != helperArg0 {
		return policy{}, "", nil, errors.New("want: " + helperArg0 + " POLICY PATH ARGV0 [ARG...]")
	}
	if err := json.Unmarshal([]byte(args[1]), &pol); err != nil {
		return policy{}, "", nil, fmt.Errorf("reading the policy %q: %w", args[1], err)
	}
	for _, dir := range pol.Write {
		if !filepath.IsAbs(dir) {
			return policy{}, "", nil, fmt.Errorf("policy: writable folder %q is not absolute", dir)
		}
	}
	if args[2] == "" {
		return policy{}, "", nil, errors.New("policy: no command to run")
	}
	return pol, args[2], args[3:], nil
}
