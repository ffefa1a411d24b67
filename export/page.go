package export

import (
	"fmt"
	"html/template"
	"slices"
	"strings"

	"pi/provider"
	"pi/session"
)

// page is what the template shows.
type page struct {
	Title    string
	Models   []string
	Totals   totals
	Outline  []outlineRow // the session tree, when it has branches
	Sections []section    // the current branch first, then the others
}

// totals are the whole file's, every branch, counted as /session counts them
// (session.StatsOfEntries), so the two agree.
type totals struct {
	Messages, User, Replies, ToolCalls        int
	Input, Output, CacheRead, CacheWrite, All string
	Cost                                      string
}

type outlineRow struct {
	ID, Text string
	Current  bool
}

// section is one branch of the conversation: the current one, or one left behind.
type section struct {
	Heading string
	From    string // the entry the branch grew from, for a link ("" for the current branch)
	Items   []item
}

// item is one entry as the page shows it.
type item struct {
	ID, Class, Label string
	Parts            []part
}

// part is one block of an item. Kind picks the markup: markdown, thinking, call, result,
// image, text (preformatted), error.
type part struct {
	Kind    string
	Summary string        // the line a collapsed block shows
	HTML    template.HTML // markdown and thinking, rendered
	Text    string        // call arguments, result text, plain text
	Src     template.URL  // image: a data: URL
	Open    bool          // a result that failed starts open
}

func buildPage(sess *session.Session, entries []session.Entry, o Options) page {
	p := page{Title: o.Title}
	if p.Title == "" {
		p.Title = "pi session " + sess.ID()
		if name := sess.Name(); name != "" {
			p.Title = name
		}
	}
	byID := make(map[string]*session.Entry, len(entries))
	kids := map[string]int{}
	for i := range entries {
		byID[entries[i].ID] = &entries[i]
		kids[entries[i].ParentID]++
	}
	p.Models, p.Totals = models(entries, o.Model), totalsOf(session.StatsOfEntries(sess, entries))
	done := map[string]bool{}
	leaf := sess.Leaf()
	p.Sections = append(p.Sections, branchSection(pathTo(byID, leaf), done, "Conversation", ""))
	branched := false
	for i := range entries {
		e := &entries[i]
		if kids[e.ID] > 0 || done[e.ID] {
			continue
		}
		path := pathTo(byID, e.ID)
		from := ""
		for _, pe := range path {
			if done[pe.ID] {
				from = pe.ID
			}
		}
		if s := branchSection(path, done, "", from); len(s.Items) > 0 {
			s.Heading = fmt.Sprintf("Branch %d", len(p.Sections))
			p.Sections = append(p.Sections, s)
			branched = true
		}
	}
	if branched {
		p.Outline = outline(sess, leaf)
	}
	return p
}

// pathTo is the entries from the root to id.
func pathTo(byID map[string]*session.Entry, id string) []*session.Entry {
	var path []*session.Entry
	seen := map[string]bool{}
	for e := byID[id]; e != nil && !seen[e.ID]; e = byID[e.ParentID] {
		seen[e.ID] = true
		path = append(path, e)
	}
	slices.Reverse(path)
	return path
}

// branchSection shows the entries of path not shown yet. A model set before the path's first
// message is the model the session started with (the header names it), not a change.
func branchSection(path []*session.Entry, done map[string]bool, heading, from string) section {
	s := section{Heading: heading, From: from}
	talked := false
	for _, e := range path {
		startingModel := e.Type == session.TypeModelChange && !talked
		talked = talked || e.Type == session.TypeMessage
		if done[e.ID] {
			continue
		}
		done[e.ID] = true
		if startingModel {
			continue
		}
		if it, ok := entryItem(e); ok {
			s.Items = append(s.Items, it)
		}
	}
	return s
}

// outline is the session tree as the picker lays it out, each row a link.
func outline(sess *session.Session, leaf string) []outlineRow {
	entries, err := session.TreeEntries(sess)
	if err != nil {
		return nil
	}
	var rows []outlineRow
	for _, r := range session.TreeRows(entries, leaf) {
		rows = append(rows, outlineRow{ID: r.ID, Text: r.Text, Current: r.Current})
	}
	return rows
}

// models lists the models that gave the replies, and the one in force.
func models(entries []session.Entry, current string) []string {
	var models []string
	add := func(m string) {
		if m != "" && !slices.Contains(models, m) {
			models = append(models, m)
		}
	}
	for i := range entries {
		m := entries[i].Message
		if m == nil || m.Role != provider.RoleAssistant {
			continue
		}
		if m.Provider != "" {
			add(m.Provider + "/" + m.Model)
		} else {
			add(m.Model)
		}
	}
	add(current)
	return models
}

func totalsOf(st session.Stats) totals {
	t := st.Tokens
	return totals{Messages: st.TotalMessages, User: st.UserMessages, Replies: st.AssistantMessages, ToolCalls: st.ToolCalls,
		Input: count(t.Input), Output: count(t.Output), CacheRead: count(t.CacheRead), CacheWrite: count(t.CacheWrite),
		All: count(t.Total), Cost: fmt.Sprintf("$%.4f", st.Cost)}
}

// count writes n with thousands separators: 1,234,567.
func count(n int) string {
	s := fmt.Sprint(n)
	var b strings.Builder
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	return b.String()
}
