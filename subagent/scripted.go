package subagent

import (
	"context"
	"fmt"
	"slices"
	"time"
)

// Self is who a child session is, for its own tools: nesting says whether its type may start
// children of its own, and Tree holds the limits of the tree it belongs to (which its
// children get in turn).
type Self struct {
	ID, Type string
	Depth    int
	Nesting  bool
	Tree     *Tree
}

// Scripted is a Manager as the Lua module's pi.subagent sees it: specs and results as plain
// tables (it satisfies lua.Subagents).
type Scripted struct {
	M  *Manager
	On bool  // the tools are offered in this session
	Of *Self // nil in a top-level session
}

// NewScripted offers m's tools when on (pi.toml says so) or when named lists one of them.
func NewScripted(m *Manager, on bool, named []string, of *Self) Scripted {
	return Scripted{M: m, On: on || slices.ContainsFunc(named, IsTool), Of: of}
}

func (s Scripted) Enabled() bool { return s.On && (s.Of == nil || s.Of.Nesting) }

func (s Scripted) Self() map[string]any {
	if s.Of == nil {
		return nil
	}
	self := map[string]any{"id": s.Of.ID, "type": s.Of.Type, "depth": s.Of.Depth, "nesting": s.Of.Nesting}
	if s.Of.Tree != nil {
		self["max_depth"] = s.Of.Tree.MaxDepth
	}
	return self
}

func (s Scripted) Types() []any {
	var out []any
	for _, t := range s.M.Types() {
		m := map[string]any{"name": t.Name, "description": t.Description, "source": t.Source,
			"model": t.Model, "thinking": t.Thinking, "max_turns": t.MaxTurns}
		if t.Tools != nil {
			m["tools"] = t.Tools
		}
		out = append(out, m)
	}
	return out
}

func (s Scripted) Start(ctx context.Context, spec map[string]any) (string, error) {
	str := func(k string) string { v, _ := spec[k].(string); return v }
	flag := func(k string) bool { v, _ := spec[k].(bool); return v }
	sp := Spec{Prompt: str("prompt"), Description: str("description"), Type: str("type"), Model: str("model"),
		Thinking: str("thinking"), Background: flag("background"), Resume: str("resume"), SessionFile: str("session_file"),
		Isolated: flag("isolated"), InheritContext: flag("inherit_context")}
	if n, ok := spec["max_turns"].(float64); ok {
		sp.MaxTurns = int(n)
	}
	switch iso := str("isolation"); iso {
	case "":
	case "worktree":
		sp.Worktree = true
	default:
		return "", fmt.Errorf("isolation %q: the only isolation is \"worktree\"", iso)
	}
	when := str("schedule")
	if s.Of != nil && (sp.Resume != "" || sp.SessionFile != "" || when != "") {
		return "", fmt.Errorf("resume, session_file, schedule: a child cannot name sessions for its own children nor schedule them")
	}
	if when != "" {
		sc, err := s.M.Schedule(sp, when)
		return sc.ID, err
	}
	return s.M.Start(ctx, sp)
}

// Scheduling reports whether Start takes a schedule here: turned on, and not in a child.
func (s Scripted) Scheduling() bool { return s.Of == nil && s.M.Scheduling() }

func (s Scripted) Cancel(id string) error { return s.M.Cancel(id) }

func (s Scripted) Schedules() []any {
	now := s.M.clock().Now()
	var out []any
	for _, sc := range s.M.Schedules() {
		runs := make([]any, len(sc.Runs))
		for i, r := range sc.Runs {
			runs[i] = r
		}
		out = append(out, map[string]any{"id": sc.ID, "schedule": sc.When, "next": sc.Next.In(now.Location()).Format(time.RFC3339),
			"next_in": roundedUntil(sc.Next.Sub(now)), "prompt": sc.Spec.Prompt, "description": sc.Spec.Description,
			"type": sc.Spec.Type, "runs": runs, "error": sc.Error, "line": sc.Line(now)})
	}
	return out
}

func (s Scripted) Get(ctx context.Context, id string, wait bool) (map[string]any, error) {
	r, err := s.M.Get(ctx, id, wait)
	if err != nil {
		return nil, err
	}
	return r.Table(), nil
}

func (s Scripted) Steer(id, text string) error { return s.M.Steer(id, text) }
func (s Scripted) Abort(id string) error       { return s.M.Abort(id) }

func (s Scripted) View(ctx context.Context, id string) error { return s.M.View(ctx, id) }
func (s Scripted) Next(ctx context.Context, id string) error { return s.M.Next(ctx, id) }
func (s Scripted) CanView() bool                             { return s.M.CanView() }

func (s Scripted) List() []any {
	var out []any
	for _, r := range s.M.List() {
		out = append(out, r.Table())
	}
	return out
}

// Table is r with snake_case keys, as scripts and JSON events see it.
func (r Result) Table() map[string]any {
	files := make([]any, len(r.Files))
	for i, f := range r.Files {
		files[i] = f
	}
	return map[string]any{"id": r.ID, "type": r.Type, "description": r.Description, "status": string(r.Status),
		"background": r.Background, "answer": r.Answer, "turns": r.Turns, "tokens": r.Tokens, "tool": r.Tool,
		"session_file": r.SessionFile, "max_turns_hit": r.MaxTurnsHit, "branch": r.Branch, "worktree": r.Worktree,
		"files": files, "error": r.Error, "note": r.Note, "schedule": r.Schedule, "line": r.Line()}
}

// Line is a child in one line: id, type, description, the tool it runs, turns, tokens.
func (r Result) Line() string {
	tool := ""
	if r.Tool != "" {
		tool = " · " + r.Tool
	}
	return fmt.Sprintf("%s %s · %s%s · %d turns · %d tokens", r.ID, r.Type, r.Description, tool, r.Turns, r.Tokens)
}

// NoticeType is the customType of the messages a parent gets about its children (Notice,
// ScheduleNotice): front ends draw them as notices, not as the user's words.
const NoticeType = "subagent_notice"

// Notice is the message the parent gets when a background child has ended.
func Notice(r Result) string {
	from := ""
	if r.Schedule != "" {
		from = ", started by " + r.Schedule
	}
	return fmt.Sprintf("Background agent %s (%s: %s%s) is %s after %d turns. Call get_subagent_result with agent_id %q for its answer.",
		r.ID, r.Type, r.Description, from, r.Status, r.Turns, r.ID)
}

// ScheduleNotice is the message the parent gets when a schedule's run could not start.
func ScheduleNotice(s Scheduled) string {
	return fmt.Sprintf("Scheduled agent run %s (%s: %s) could not start: %s", s.ID, s.Spec.Type, s.Spec.Description, s.Error)
}
