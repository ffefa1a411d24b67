package sandbox

import (
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
)

// Modes and fallbacks, as [sandbox] and --sandbox spell them.
const (
	ModeOff       = "off"       // commands run as pi does (the default)
	ModeWorkspace = "workspace" // commands write only in the project, temp and allow_write

	FallbackRefuse = "refuse" // where the kernel cannot confine, pi does not start (the default)
	FallbackWarn   = "warn"   // where it cannot, pi says so once and runs commands unconfined
)

// Settings is the [sandbox] table of pi.toml.
type Settings struct {
	Mode string `toml:"mode"` // ModeOff (also when empty) or ModeWorkspace
	// AllowWrite names more folders commands may write in: absolute, or starting with ~/.
	AllowWrite []string `toml:"allow_write"`
	// Network false denies TCP connect and bind; nil means allowed.
	Network  *bool  `toml:"network"`
	Fallback string `toml:"fallback"` // FallbackRefuse (also when empty) or FallbackWarn
	// AllowHosts names the hosts scripts' pi.http may still reach when the network is denied
	// (loopback always is).
	AllowHosts []string `toml:"allow_hosts"`
}

// HTTPAllowed says whether a script's pi.http may reach host: always, unless the sandbox is
// on and denies the network; then only loopback and AllowHosts.
func (s Settings) HTTPAllowed(host string) error {
	if s.Mode != ModeWorkspace || s.NetworkAllowed() {
		return nil
	}
	if host == "localhost" || slices.Contains(s.AllowHosts, host) {
		return nil
	}
	if ip := net.ParseIP(host); ip != nil && ip.IsLoopback() {
		return nil
	}
	return fmt.Errorf("%s is not reachable: [sandbox] network = false (name it in [sandbox] allow_hosts to allow it)", host)
}

// Modes lists the values of Settings.Mode and --sandbox.
func Modes() []string { return []string{ModeOff, ModeWorkspace} }

// CheckMode refuses a mode that is not one of Modes; the caller names the value.
func CheckMode(mode string) error {
	if !slices.Contains(Modes(), mode) {
		return errors.New(`want "off" or "workspace"`)
	}
	return nil
}

// Validate reports the first setting pi cannot use, naming the key.
func (s Settings) Validate() error {
	if err := CheckMode(s.Mode); s.Mode != "" && err != nil {
		return fmt.Errorf("sandbox.mode = %q: %w", s.Mode, err)
	}
	if s.Fallback != "" && s.Fallback != FallbackRefuse && s.Fallback != FallbackWarn {
		return fmt.Errorf("sandbox.fallback = %q: want \"refuse\" or \"warn\"", s.Fallback)
	}
	for _, p := range s.AllowWrite {
		if !filepath.IsAbs(p) && !strings.HasPrefix(p, "~/") {
			return fmt.Errorf("sandbox.allow_write: %q: want an absolute path or one starting with ~/", p)
		}
	}
	return nil
}

// NetworkAllowed is Network with its default.
func (s Settings) NetworkAllowed() bool { return s.Network == nil || *s.Network }

// Options are what New needs besides the settings.
type Options struct {
	// Mode, when set (--sandbox), replaces Settings.Mode.
	Mode string
	// Probe tells the kernel's Landlock ABI version, 0 or an error where there is none;
	// nil asks the kernel. Tests replace it.
	Probe func() (int, error)
	Home  string // for ~/ in allow_write; empty means os.UserHomeDir
}

// Sandbox confines the commands pi starts. A nil *Sandbox confines nothing.
type Sandbox struct {
	self   string // the binary to start in helper mode
	policy string // the helper's first argument
}

// needABI is the Landlock ABI version each restriction needs.
const (
	needABIFiles   = 1
	needABINetwork = 4
)

// New checks s and the kernel for the project directory project. It returns nil when the mode
// is off, or when the kernel cannot confine and the fallback is to warn; notices then holds
// the one sentence to tell the user, once. It fails when s is invalid, or when the kernel
// cannot do what s asks and the fallback is to refuse.
func New(s Settings, project string, o Options) (sb *Sandbox, notices []string, err error) {
	if o.Mode != "" {
		s.Mode = o.Mode
	}
	if err := s.Validate(); err != nil {
		return nil, nil, err
	}
	if s.Mode != ModeWorkspace {
		return nil, nil, nil
	}
	writable, err := writableDirs(s, project, o.Home)
	if err != nil {
		return nil, nil, err
	}
	probe := o.Probe
	if probe == nil {
		probe = kernelABI
	}
	abi, probeErr := probe()
	pol := policy{Write: writable, DenyNetwork: !s.NetworkAllowed()}
	lack := lacking(abi, probeErr, pol.DenyNetwork)
	switch {
	case lack == "":
	case s.Fallback != FallbackWarn:
		return nil, nil, fmt.Errorf("sandbox: %s; set [sandbox] fallback = \"warn\" in pi.toml to run "+
			"commands without it, or pass --sandbox off", lack)
	case abi >= needABIFiles && probeErr == nil: // only the network part is missing
		notices = []string{"sandbox: " + lack + "; commands may still use the network (fallback = \"warn\")"}
		pol.DenyNetwork = false
	default:
		return nil, []string{"sandbox: " + lack + "; commands run unconfined (fallback = \"warn\")"}, nil
	}
	enc, err := json.Marshal(pol)
	if err != nil {
		return nil, nil, fmt.Errorf("sandbox: encoding the policy: %w", err)
	}
	return &Sandbox{self: selfExe, policy: string(enc)}, notices, nil
}

// lacking says what the kernel cannot do of what is asked, or "" when it can do it all.
func lacking(abi int, probeErr error, denyNetwork bool) string {
	switch {
	case probeErr != nil:
		return fmt.Sprintf("commands cannot be confined here: %v", probeErr)
	case abi < needABIFiles:
		return "this kernel has no Landlock, so commands cannot be confined"
	case denyNetwork && abi < needABINetwork:
		return fmt.Sprintf("this kernel's Landlock (ABI %d) cannot deny network access (that needs ABI %d)",
			abi, needABINetwork)
	}
	return ""
}

// writableDirs is where commands may write: the project, the temp folder and allow_write.
func writableDirs(s Settings, project, home string) ([]string, error) {
	abs, err := filepath.Abs(project)
	if err != nil {
		return nil, fmt.Errorf("sandbox: the project folder %q: %w", project, err)
	}
	tmp, err := filepath.Abs(os.TempDir()) // $TMPDIR may be relative
	if err != nil {
		return nil, fmt.Errorf("sandbox: the temp folder %q: %w", os.TempDir(), err)
	}
	dirs := []string{abs, tmp}
	for _, p := range s.AllowWrite {
		if rest, ok := strings.CutPrefix(p, "~/"); ok {
			if home == "" {
				if home, err = os.UserHomeDir(); err != nil {
					return nil, fmt.Errorf("sandbox.allow_write: %q: %w", p, err)
				}
			}
			p = filepath.Join(home, rest)
		}
		dirs = append(dirs, filepath.Clean(p))
	}
	return dirs, nil
}

// Confine rewrites cmd, not yet started, to start in the sandbox: pi's binary in helper mode,
// which confines itself and then runs what cmd named. Path and Args change; the environment,
// folder, files and process attributes stay as they are. A nil Sandbox leaves cmd alone.
func (s *Sandbox) Confine(cmd *exec.Cmd) error {
	if s == nil {
		return nil
	}
	if cmd.Process != nil {
		return errors.New("sandbox: the command has already started")
	}
	if cmd.Err != nil || cmd.Path == "" {
		return nil // Start reports why it cannot run
	}
	args := slices.Clone(cmd.Args)
	if len(args) == 0 {
		args = []string{cmd.Path}
	}
	cmd.Args = append([]string{helperArg0, s.policy, cmd.Path}, args...)
	cmd.Path = s.self
	return nil
}
