// Package permission owns what pi guarantees of its permission modes whatever the scripts do:
// the question put to the user (yes, no, always in this session, always in this project), the
// answers remembered ($PI_HOME/permissions.json for a project), the refusal where nobody can
// be asked, and the rule that once permissions are on, a tool call runs only when the policy
// approved it. The policy itself (which call is allowed, asked about or refused) is the
// bundled Lua script lua/bundled/permissions.lua.
//
// It imports only the leaves internal/realpath and internal/atomicfile of this module and has no
// package-level mutable state.
package permission

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"pi/internal/atomicfile"
	"pi/internal/realpath"
	"slices"
	"sync"
)

// Modes, from the least to the most strict (config.ModeAuto and friends).
const (
	ModeAuto     = "auto"
	ModeAsk      = "ask"
	ModeReadOnly = "read-only"
)

// The answers to the question, in the order shown.
const (
	AnswerYes     = "Yes"
	AnswerNo      = "No"
	AnswerSession = "Yes, and always in this session"
	AnswerProject = "Yes, and always in this project"
)

// Answers are the options of the question.
func Answers() []string { return []string{AnswerYes, AnswerNo, AnswerSession, AnswerProject} }

// Settings are what pi.toml and the flags say.
type Settings struct {
	Mode             string   // auto, ask or read-only ("" is auto)
	Allow, Ask, Deny []string // rules, "tool" or "tool:pattern"
	Yes              bool     // --yes: where nobody can be asked, the answer is yes
}

// Gate is one harness's permissions: its settings and the answers given so far. Safe for
// concurrent use.
type Gate struct {
	settings     Settings
	piHome, dir  string
	mu           sync.Mutex
	sessionRules []string
}

// New returns the gate for the project dir, remembering project answers under piHome.
func New(s Settings, piHome, dir string) *Gate {
	if s.Mode == "" {
		s.Mode = ModeAuto
	}
	return &Gate{settings: s, piHome: piHome, dir: realpath.Dir(dir)}
}

// On reports whether permissions do anything: a mode other than auto, or a rule.
func (g *Gate) On() bool {
	if g == nil {
		return false
	}
	s := g.settings
	return s.Mode != ModeAuto || len(s.Allow)+len(s.Ask)+len(s.Deny) > 0
}

// Policy is what the policy script reads (pi.permissions()): the mode and the rules, the
// remembered answers among the allow rules.
func (g *Gate) Policy() map[string]any {
	if g == nil {
		return map[string]any{"mode": ModeAuto}
	}
	allow := append(slices.Clone(g.settings.Allow), g.remembered()...)
	return map[string]any{"mode": g.settings.Mode, "allow": list(allow), "ask": list(g.settings.Ask), "deny": list(g.settings.Deny)}
}

func list(s []string) []any {
	out := make([]any, len(s))
	for i, x := range s {
		out[i] = x
	}
	return out
}

// Check is the last word on a call the hooks did not block: with permissions on, a call no
// guard approved does not run, so a policy that is switched off, broken or missing refuses
// everything rather than nothing.
func (g *Gate) Check(tool string, approved bool) (block bool, reason string) {
	if !g.On() || approved { // a nil Gate is off
		return false, ""
	}
	return true, fmt.Sprintf("Tool %q was not run: permissions are on (mode %s), and no permission policy approved the call. "+
		"The bundled permissions script may be switched off in [lua] disable, or failing.", tool, g.settings.Mode)
}

// Request is a call the policy wants the user to decide.
type Request struct {
	Tool    string
	Summary string // the call in a line: the command, the path
	Rule    string // what "always" remembers, in the rules' syntax ("bash:go test ./...", "edit")
}

// Chooser puts a question with options to the user; ok is false when it was dismissed. The
// terminal UI and RPC's extension UI supply one.
type Chooser func(ctx context.Context, title string, options []string) (choice string, ok bool, err error)

// Ask decides req: a remembered answer first, then the user through choose. Without anyone
// to ask (choose nil: print and JSON modes) the call is refused unless --yes. A dismissed
// question is a no. The reason is for the model when the answer is no.
func (g *Gate) Ask(ctx context.Context, req Request, choose Chooser) (bool, string, error) {
	if g == nil {
		return false, fmt.Sprintf("Tool %q was not run: pi has no permission settings to ask with.", req.Tool), nil
	}
	if req.Rule != "" && slices.Contains(g.remembered(), req.Rule) {
		return true, "", nil
	}
	if choose == nil {
		if g.settings.Yes {
			return true, "", nil
		}
		return false, fmt.Sprintf("Tool %q was not run: permissions are in %s mode and pi has nobody to ask here "+
			"(print or JSON mode); the user can pass --yes, or allow it in [permissions] of pi.toml.", req.Tool, g.settings.Mode), nil
	}
	choice, ok, err := choose(ctx, fmt.Sprintf("Allow %s: %s?", req.Tool, req.Summary), Answers())
	if err != nil {
		return false, fmt.Sprintf("Tool %q was not run: the question to the user failed: %v", req.Tool, err), nil
	}
	switch {
	case !ok || !slices.Contains(Answers(), choice) || choice == AnswerNo: // only a yes allows
		return false, fmt.Sprintf("Tool %q was not run: the user said no. Do not try it another way; ask the user what to do instead.", req.Tool), nil
	case choice == AnswerSession:
		g.mu.Lock()
		g.sessionRules = append(g.sessionRules, req.Rule)
		g.mu.Unlock()
	case choice == AnswerProject:
		if err := g.rememberForProject(req.Rule); err != nil {
			return true, "", err // allowed this once; the error says it was not kept
		}
	}
	return true, "", nil
}

// remembered are the rules answered "always", this session's and this project's.
func (g *Gate) remembered() []string {
	g.mu.Lock()
	out := slices.Clone(g.sessionRules)
	g.mu.Unlock()
	m, _ := readFile(g.piHome)
	return append(out, m[g.dir]...)
}

// File is where project answers are kept.
func File(piHome string) string { return filepath.Join(piHome, "permissions.json") }

func readFile(piHome string) (map[string][]string, error) {
	m := map[string][]string{}
	if err := atomicfile.ReadJSON(File(piHome), &m); err != nil {
		return map[string][]string{}, err
	}
	return m, nil
}

// rememberForProject adds rule to the project's entry of permissions.json, replaced atomically.
func (g *Gate) rememberForProject(rule string) error {
	g.mu.Lock()
	defer g.mu.Unlock()
	m, err := readFile(g.piHome)
	if err != nil {
		return err
	}
	if slices.Contains(m[g.dir], rule) {
		return nil
	}
	m[g.dir] = append(m[g.dir], rule)
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false) // commands keep their > and & readable
	enc.SetIndent("", "  ")
	if err := enc.Encode(m); err != nil {
		return fmt.Errorf("saving the permission %q: %w", rule, err)
	}
	if err := atomicfile.Replace(File(g.piHome), buf.Bytes()); err != nil {
		return fmt.Errorf("saving the permission %q: %w", rule, err)
	}
	return nil
}
