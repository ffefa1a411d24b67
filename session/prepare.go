package session

import (
	"encoding/json"
	"sort"

	"pi/provider"
)

// Preparation is what a compaction will do, computed without calling a model. Hooks see it.
type Preparation struct {
	FirstKeptEntryID string
	ToSummarize      []provider.Message // history before the cut (or before the split turn)
	TurnPrefix       []provider.Message // the early part of a turn the cut splits
	PreviousSummary  string             // the latest compaction's summary, to be updated
	TokensBefore     int
	ReadFiles        []string // files only read, carried over and found in ToSummarize/TurnPrefix
	ModifiedFiles    []string // files written or edited
}

// Prepare works out a compaction of a root-first path keeping about keep tokens. The range
// considered starts at the previous compaction's first kept entry, so what it kept verbatim
// is summarised now rather than lost; cuts fall after the previous compaction. It returns nil
// when there is nothing to compact (the leaf is a compaction, or everything fits in keep).
func Prepare(path []*Entry, keep int) *Preparation {
	if len(path) == 0 || path[len(path)-1].Type == TypeCompaction {
		return nil
	}
	prev := -1
	for i := len(path) - 1; i >= 0; i-- {
		if path[i].Type == TypeCompaction {
			prev = i
			break
		}
	}
	from := prev + 1 // where the history to summarise starts
	p := &Preparation{TokensBefore: ContextTokens(contextFromPath(path).Messages)}
	if prev >= 0 {
		p.PreviousSummary = path[prev].Summary
		from = indexOf(path[:prev], path[prev].FirstKeptEntryID, prev+1)
	}
	cut := FindCutPoint(path, prev+1, len(path), keep)
	histEnd := cut.FirstKept
	if cut.Split() {
		histEnd = cut.TurnStart
		p.TurnPrefix = messagesOf(path[cut.TurnStart:cut.FirstKept])
	}
	if histEnd >= from {
		p.ToSummarize = messagesOf(path[from:histEnd])
	}
	if len(p.ToSummarize) == 0 && len(p.TurnPrefix) == 0 {
		return nil
	}
	p.FirstKeptEntryID = path[cut.FirstKept].ID
	p.ReadFiles, p.ModifiedFiles = fileLists(path, prev, append(append([]provider.Message(nil), p.ToSummarize...), p.TurnPrefix...))
	return p
}

func indexOf(path []*Entry, id string, otherwise int) int {
	for i, e := range path {
		if e.ID == id {
			return i
		}
	}
	return otherwise
}

// messagesOf turns entries into the messages a summary is made from. Previous compactions are
// left out: their summary travels as PreviousSummary.
func messagesOf(entries []*Entry) []provider.Message {
	var out []provider.Message
	for _, e := range entries {
		out = appendContextMessage(out, e)
	}
	return out
}

// fileLists gathers the files the summarised messages read and modified, plus those the
// previous compaction recorded (unless a hook wrote it: its details are its own).
func fileLists(path []*Entry, prev int, msgs []provider.Message) (read, modified []string) {
	reads, mods := map[string]bool{}, map[string]bool{}
	if prev >= 0 && (path[prev].FromHook == nil || !*path[prev].FromHook) && path[prev].Details != nil {
		var d CompactionDetails
		if json.Unmarshal(path[prev].Details, &d) == nil {
			for _, f := range d.ReadFiles {
				reads[f] = true
			}
			for _, f := range d.ModifiedFiles {
				mods[f] = true
			}
		}
	}
	for i := range msgs {
		if msgs[i].Role != provider.RoleAssistant {
			continue
		}
		for _, c := range msgs[i].ToolCalls() {
			p, _ := c.Arguments["path"].(string)
			switch {
			case p == "":
			case c.Name == "read":
				reads[p] = true
			case c.Name == "write" || c.Name == "edit":
				mods[p] = true
			}
		}
	}
	for f := range mods {
		delete(reads, f)
	}
	return sortedKeys(reads), sortedKeys(mods)
}

func sortedKeys(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
