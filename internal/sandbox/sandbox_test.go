package sandbox

import (
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestMain lets the test binary stand in for pi: Confine starts /proc/self/exe, which is this
// binary, as the helper.
func TestMain(m *testing.M) {
	if IsHelper(os.Args) {
		os.Exit(RunHelper(os.Args, os.Stderr))
	}
	os.Exit(m.Run())
}

func TestSettingsValidate(t *testing.T) {
	cases := []struct {
		name    string
		s       Settings
		wantErr string // "" when valid
	}{
		{"empty", Settings{}, ""},
		{"off", Settings{Mode: "off"}, ""},
		{"workspace with everything", Settings{Mode: "workspace", AllowWrite: []string{"/opt/cache", "~/.cache"},
			Network: new(bool), Fallback: "warn"}, ""},
		{"refuse", Settings{Mode: "workspace", Fallback: "refuse"}, ""},
		{"unknown mode", Settings{Mode: "strict"}, `sandbox.mode = "strict"`},
		{"mode in capitals", Settings{Mode: "Workspace"}, `sandbox.mode = "Workspace"`},
		{"unknown fallback", Settings{Fallback: "ignore"}, `sandbox.fallback = "ignore"`},
		{"relative allow_write", Settings{AllowWrite: []string{"build"}}, `"build": want an absolute path`},
		{"bare tilde", Settings{AllowWrite: []string{"~"}}, `"~": want an absolute path`},
		{"other user's home", Settings{AllowWrite: []string{"~bob/x"}}, `"~bob/x"`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.s.Validate()
			if tc.wantErr == "" && err != nil || tc.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tc.wantErr)) {
				t.Fatalf("Validate() = %v, want %q", err, tc.wantErr)
			}
		})
	}
}

func probeABI(v int) func() (int, error) { return func() (int, error) { return v, nil } }

// TestNewFallback: where the kernel cannot confine, pi says so (refuses or warns, as the
// fallback says) and never goes on silently. The probe stands in for the kernel.
func TestNewFallback(t *testing.T) {
	noLandlock := func() (int, error) { return 0, errors.New("function not implemented") }
	deny := false
	cases := []struct {
		name       string
		s          Settings
		o          Options
		wantErr    string // "" when New succeeds
		wantNotice string // "" when there must be none
		confined   bool
		denyNet    bool
	}{
		{"off needs no kernel", Settings{}, Options{Probe: noLandlock}, "", "", false, false},
		{"flag turns it off", Settings{Mode: "workspace"}, Options{Mode: "off", Probe: noLandlock}, "", "", false, false},
		{"workspace on ABI 7", Settings{Mode: "workspace"}, Options{Probe: probeABI(7)}, "", "", true, false},
		{"flag turns it on", Settings{}, Options{Mode: "workspace", Probe: probeABI(1)}, "", "", true, false},
		{"no network on ABI 4", Settings{Mode: "workspace", Network: &deny}, Options{Probe: probeABI(4)}, "", "", true, true},
		{"refuse by default", Settings{Mode: "workspace"}, Options{Probe: noLandlock},
			"commands cannot be confined here: function not implemented; set [sandbox] fallback = \"warn\"", "", false, false},
		{"refuse on ABI 0", Settings{Mode: "workspace", Fallback: "refuse"}, Options{Probe: probeABI(0)},
			"this kernel has no Landlock", "", false, false},
		{"warn runs unconfined", Settings{Mode: "workspace", Fallback: "warn"}, Options{Probe: noLandlock},
			"", "sandbox: commands cannot be confined here: function not implemented; commands run unconfined", false, false},
		{"refuse without network rules", Settings{Mode: "workspace", Network: &deny}, Options{Probe: probeABI(3)},
			"Landlock (ABI 3) cannot deny network access (that needs ABI 4)", "", false, false},
		{"warn keeps the file rules", Settings{Mode: "workspace", Network: &deny, Fallback: "warn"}, Options{Probe: probeABI(3)},
			"", "cannot deny network access (that needs ABI 4); commands may still use the network", true, false},
		{"invalid settings", Settings{Mode: "jail"}, Options{Probe: probeABI(7)}, `sandbox.mode = "jail"`, "", false, false},
		{"invalid flag", Settings{}, Options{Mode: "all", Probe: probeABI(7)}, `sandbox.mode = "all"`, "", false, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			sb, notices, err := New(tc.s, t.TempDir(), tc.o)
			notice := strings.Join(notices, "\n")
			if tc.wantErr == "" && err != nil || tc.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tc.wantErr)) {
				t.Fatalf("error %v, want %q", err, tc.wantErr)
			}
			if tc.wantNotice == "" && notice != "" || !strings.Contains(notice, tc.wantNotice) || len(notices) > 1 {
				t.Fatalf("notice %q, want %q", notice, tc.wantNotice)
			}
			if (sb != nil) != tc.confined {
				t.Fatalf("sandbox %v, want confined %v", sb, tc.confined)
			}
			if sb != nil && sb.decoded(t).DenyNetwork != tc.denyNet {
				t.Fatalf("policy %s, want network denied %v", sb.policy, tc.denyNet)
			}
		})
	}
}

func (s *Sandbox) decoded(t *testing.T) policy {
	var p policy
	if err := json.Unmarshal([]byte(s.policy), &p); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestWritableDirs: the project, the temp folder and allow_write, with ~/ expanded.
func TestWritableDirs(t *testing.T) {
	project := t.TempDir()
	s := Settings{Mode: "workspace", AllowWrite: []string{"~/.cache/go-build", "/opt/x/../y"}}
	sb, _, err := New(s, project, Options{Probe: probeABI(7), Home: "/home/ann"})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{project, os.TempDir(), "/home/ann/.cache/go-build", "/opt/y"}
	if got := sb.decoded(t).Write; !slices.Equal(got, want) {
		t.Fatalf("writable %q, want %q", got, want)
	}

	t.Setenv("TMPDIR", "scratch") // relative: the helper takes absolute folders only
	sb, _, err = New(Settings{Mode: "workspace"}, "project", Options{Probe: probeABI(7)})
	wd, _ := os.Getwd()
	if err != nil || !slices.Equal(sb.decoded(t).Write, []string{filepath.Join(wd, "project"), filepath.Join(wd, "scratch")}) {
		t.Fatalf("relative folders: %v %v", sb.decoded(t).Write, err)
	}
}

// TestConfineRewrite: a confined command starts pi's binary as the helper with the policy,
// then the command's own path and argv; nothing else of the command changes.
func TestConfineRewrite(t *testing.T) {
	sb, _, err := New(Settings{Mode: "workspace"}, t.TempDir(), Options{Probe: probeABI(7)})
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("sh", "-c", "echo hi")
	cmd.Dir, cmd.Env = "/tmp", []string{"A=1"}
	shPath := cmd.Path
	if err := sb.Confine(cmd); err != nil {
		t.Fatal(err)
	}
	if cmd.Path != selfExe || !IsHelper(cmd.Args) || cmd.Dir != "/tmp" || !slices.Equal(cmd.Env, []string{"A=1"}) {
		t.Fatalf("confined command: path %q args %q dir %q env %q", cmd.Path, cmd.Args, cmd.Dir, cmd.Env)
	}
	pol, path, argv, err := parseHelperArgs(cmd.Args)
	if err != nil || path != shPath || !slices.Equal(argv, []string{"sh", "-c", "echo hi"}) || len(pol.Write) != 2 {
		t.Fatalf("helper args read back as %v %q %q %v", pol, path, argv, err)
	}

	var none *Sandbox
	plain := exec.Command("sh", "-c", "true")
	if err := none.Confine(plain); err != nil || plain.Path != shPath || len(plain.Args) != 3 {
		t.Fatalf("a nil sandbox changed the command: %q %q %v", plain.Path, plain.Args, err)
	}
	missing := exec.Command("no-such-program-here")
	if err := sb.Confine(missing); err != nil || IsHelper(missing.Args) {
		t.Fatalf("a command that cannot start was confined: %q %v", missing.Args, err)
	}
}

func TestParseHelperArgs(t *testing.T) {
	cases := []struct {
		name    string
		args    []string
		wantErr string
	}{
		{"ok", []string{helperArg0, `{"write":["/p"]}`, "/bin/sh", "sh", "-c", "true"}, ""},
		{"argv0 only", []string{helperArg0, `{"write":[]}`, "/bin/true", "true"}, ""},
		{"too short", []string{helperArg0, `{}`, "/bin/sh"}, "want: "},
		{"not the helper", []string{"pi", `{}`, "/bin/sh", "sh"}, "want: "},
		{"bad policy", []string{helperArg0, `{write`, "/bin/sh", "sh"}, "reading the policy"},
		{"relative folder", []string{helperArg0, `{"write":["p"]}`, "/bin/sh", "sh"}, `"p" is not absolute`},
		{"no path", []string{helperArg0, `{}`, "", "sh"}, "no command"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, _, _, err := parseHelperArgs(tc.args)
			if tc.wantErr == "" && err != nil || tc.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tc.wantErr)) {
				t.Fatalf("error %v, want %q", err, tc.wantErr)
			}
		})
	}
}

// FuzzParseHelperArgs: whatever argv the helper gets, it answers with a policy of absolute
// folders and a command, or an error; it never panics.
func FuzzParseHelperArgs(f *testing.F) {
	f.Add(`{"write":["/p","/tmp"],"denyNetwork":true}`, "/bin/sh", "sh")
	f.Add(`{"write":null}`, "", "")
	f.Add(`[]`, "/x", "x")
	f.Fuzz(func(t *testing.T, pol, path, argv0 string) {
		p, gotPath, argv, err := parseHelperArgs([]string{helperArg0, pol, path, argv0})
		if err != nil {
			return
		}
		for _, d := range p.Write {
			if !filepath.IsAbs(d) {
				t.Fatalf("relative folder %q accepted", d)
			}
		}
		if gotPath == "" || len(argv) != 1 {
			t.Fatalf("path %q argv %q", gotPath, argv)
		}
	})
}

func TestHTTPAllowed(t *testing.T) {
	deny, allow := false, true
	cases := []struct {
		s      Settings
		host   string
		wantOK bool
	}{
		{Settings{}, "example.com", true},
		{Settings{Mode: ModeWorkspace}, "example.com", true},
		{Settings{Mode: ModeWorkspace, Network: &allow}, "example.com", true},
		{Settings{Mode: ModeOff, Network: &deny}, "example.com", true},
		{Settings{Mode: ModeWorkspace, Network: &deny}, "example.com", false},
		{Settings{Mode: ModeWorkspace, Network: &deny}, "127.0.0.1", true},
		{Settings{Mode: ModeWorkspace, Network: &deny}, "::1", true},
		{Settings{Mode: ModeWorkspace, Network: &deny}, "localhost", true},
		{Settings{Mode: ModeWorkspace, Network: &deny, AllowHosts: []string{"mcp.internal"}}, "mcp.internal", true},
	}
	for _, c := range cases {
		if err := c.s.HTTPAllowed(c.host); (err == nil) != c.wantOK {
			t.Errorf("%+v, %s: %v", c.s, c.host, err)
		}
	}
}
