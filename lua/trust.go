package lua

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"pi/internal/atomicfile"
	"pi/internal/realpath"

	lua "github.com/yuin/gopher-lua"
)

// ErrAskLater is what an AskTrust returns to leave the project's script unloaded for now,
// undecided and unsaved: the host asks in its own UI and reloads the runtime once answered.
var ErrAskLater = errors.New("the trust question is asked later")

// TrustFile is where the answers are kept.
func TrustFile(piHome string) string { return trustFile(piHome) }

func trustFile(piHome string) string { return filepath.Join(piHome, "trust.json") }

func readTrust(piHome string) (map[string]bool, error) {
	m := map[string]bool{}
	if err := atomicfile.ReadJSON(trustFile(piHome), &m); err != nil {
		return map[string]bool{}, err
	}
	return m, nil
}

// TrustDecision reports what $PI_HOME/trust.json says about dir: the entry for dir or for its
// nearest ancestor wins (trusting ~/src trusts every project below it, and a "false" for one
// of them overrides that). decided is false when no entry applies.
func TrustDecision(piHome, dir string) (trusted, decided bool, err error) {
	m, err := readTrust(piHome)
	for d := realpath.Dir(dir); ; {
		if t, ok := m[d]; ok {
			return t, true, err
		}
		parent := filepath.Dir(d)
		if parent == d {
			return false, false, err
		}
		d = parent
	}
}

// SaveTrust records the user's answer for dir in $PI_HOME/trust.json (the TUI calls it after
// asking; the runtime calls it after Options.AskTrust). The file is replaced atomically.
func SaveTrust(piHome, dir string, trusted bool) error {
	m, err := readTrust(piHome)
	if err != nil {
		return err
	}
	m[realpath.Dir(dir)] = trusted
	data, err := json.MarshalIndent(m, "", "  ")
	if err == nil {
		err = atomicfile.Replace(trustFile(piHome), append(data, '\n'))
	}
	if err != nil {
		return fmt.Errorf("saving trust for %s: %w", dir, err)
	}
	return nil
}

// TrustFolder is `pi trust [folder]` and `pi untrust [folder]`: it saves the answer for the
// folder args names (the working directory without one) and returns a sentence for the user.
func TrustFolder(piHome string, args []string, trusted bool) (string, error) {
	dir := "."
	if len(args) > 0 {
		dir = args[0]
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", fmt.Errorf("folder %q: %w", dir, err)
	}
	if fi, err := os.Stat(abs); err != nil || !fi.IsDir() {
		return "", fmt.Errorf("%s is not a folder", abs)
	}
	if err := SaveTrust(piHome, abs, trusted); err != nil {
		return "", err
	}
	word := "trusted"
	if !trusted {
		word = "not trusted"
	}
	return fmt.Sprintf("%s: %s (remembered in %s)", abs, word, TrustFile(piHome)), nil
}

// projectTrustedFn is pi.project_trusted(): whether what the project brings may run here
// (--trust, or trust.json says yes). It never asks; the bundled mcp script uses it for the
// servers a project's pi.toml names.
func (v *vm) projectTrustedFn(L *lua.LState) int {
	trusted := v.r.opts.Trust
	if !trusted && v.r.opts.Cwd != "" && v.r.opts.PiHome != "" {
		trusted, _, _ = TrustDecision(v.r.opts.PiHome, v.r.opts.Cwd)
	}
	L.Push(lua.LBool(trusted))
	return 1
}
