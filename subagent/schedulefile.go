package subagent

// schedulefile.go keeps a session's schedules in its session file: each change appends a
// custom entry holding the whole list, and the last such entry in the file (on any branch of
// its tree) is the list when the session is opened again. The entry names the session it was
// written in: a fork or clone, which copies it, does not take the schedules over (in pi
// serve both could be open at once and run each twice). pi ignores the entries.

import (
	"encoding/json"
	"fmt"
	"time"

	"pi/session"
)

// ScheduleEntryType is the customType of the session entries that hold the schedules.
const ScheduleEntryType = "pi-subagent-schedules"

type scheduleRecord struct {
	ID             string    `json:"id"`
	Schedule       string    `json:"schedule"`
	Next           time.Time `json:"next"`
	Prompt         string    `json:"prompt"`
	Description    string    `json:"description,omitempty"`
	Type           string    `json:"type,omitempty"`
	Model          string    `json:"model,omitempty"`
	Thinking       string    `json:"thinking,omitempty"`
	MaxTurns       int       `json:"maxTurns,omitempty"`
	SessionFile    string    `json:"sessionFile,omitempty"`
	Isolated       bool      `json:"isolated,omitempty"`
	InheritContext bool      `json:"inheritContext,omitempty"`
	Isolation      string    `json:"isolation,omitempty"`
}

type scheduleData struct {
	Session   string           `json:"session"` // the id of the session they belong to
	Schedules []scheduleRecord `json:"schedules"`
}

// SaveSchedules appends list to s as its schedules now.
func SaveSchedules(s *session.Session, list []Scheduled) error {
	data := scheduleData{Session: s.ID(), Schedules: make([]scheduleRecord, 0, len(list))}
	for _, x := range list {
		r := scheduleRecord{ID: x.ID, Schedule: x.When, Next: x.Next, Prompt: x.Spec.Prompt, Description: x.Spec.Description,
			Type: x.Spec.Type, Model: x.Spec.Model, Thinking: x.Spec.Thinking, MaxTurns: x.Spec.MaxTurns,
			SessionFile: x.Spec.SessionFile, Isolated: x.Spec.Isolated, InheritContext: x.Spec.InheritContext}
		if x.Spec.Worktree {
			r.Isolation = "worktree"
		}
		data.Schedules = append(data.Schedules, r)
	}
	_, err := s.AppendCustom(ScheduleEntryType, data)
	return err
}

// LoadSchedules reads the schedules s holds (none when it holds no such entry, or only one
// copied from the session it was forked from).
func LoadSchedules(s *session.Session) ([]Scheduled, error) {
	entries, err := s.Entries()
	if err != nil {
		return nil, fmt.Errorf("reading the schedules of %s: %w", s.Path(), err)
	}
	for i := len(entries) - 1; i >= 0; i-- {
		if e := entries[i]; e.Type == session.TypeCustom && e.CustomType == ScheduleEntryType {
			owner, list, err := DecodeSchedules(e.Data)
			if err != nil {
				return nil, fmt.Errorf("the schedules of %s (entry %s): %w", s.Path(), e.ID, err)
			}
			if owner != s.ID() {
				return nil, nil
			}
			return list, nil
		}
	}
	return nil, nil
}

// DecodeSchedules reads a schedules entry's data: the session it belongs to and the list.
func DecodeSchedules(raw []byte) (owner string, list []Scheduled, err error) {
	var data scheduleData
	if err := json.Unmarshal(raw, &data); err != nil {
		return "", nil, err
	}
	list = make([]Scheduled, 0, len(data.Schedules))
	for _, r := range data.Schedules {
		sp := Spec{Prompt: r.Prompt, Description: r.Description, Type: r.Type, Model: r.Model, Thinking: r.Thinking,
			MaxTurns: r.MaxTurns, SessionFile: r.SessionFile, Isolated: r.Isolated, InheritContext: r.InheritContext,
			Background: true, Worktree: r.Isolation == "worktree"}
		if r.Isolation != "" && r.Isolation != "worktree" {
			return "", nil, fmt.Errorf("schedule %s: isolation %q: the only isolation is \"worktree\"", r.ID, r.Isolation)
		}
		if r.MaxTurns < 0 {
			return "", nil, fmt.Errorf("schedule %s: max_turns %d is negative", r.ID, r.MaxTurns)
		}
		list = append(list, Scheduled{ID: r.ID, When: r.Schedule, Next: r.Next, Spec: sp})
	}
	return data.Session, list, nil
}
