package tui

import (
	"context"
	"slices"
	"strings"
)

// searchselect.go is the picker whose typed filter is also a search the caller runs (/resume
// searching the sessions' text): the caller is told each query and hands back the options it
// finds, with the line that matched, as it finds them.

// SelectSearch is Select whose filter is also the query of a search the caller runs. Each time
// the typed text changes, onQuery gets it with the results to hand matches to; it is called
// on the input goroutine once the screen's lock is released, so it must not wait. While text
// is typed the list holds, in their order, the options whose label holds it (ignoring case)
// and those the search found, each found one with the line that matched under it.
func (a *App) SelectSearch(ctx context.Context, title string, options []string, onQuery func(query string, results *SearchResults)) (int, error) {
	m := &modal{kind: "select", title: title, options: options, search: &searchState{onQuery: onQuery, found: map[int]string{}}}
	r, err := a.ask(ctx, m)
	return r.index, err
}

// SearchResults take what one query's search finds, from any goroutine. Once the user has
// typed on or the picker has closed, they drop what they are given.
type SearchResults struct {
	a     *App
	m     *modal
	query int // the number of the query they are for
}

// Found adds option to the matches, with the line that matched.
func (r *SearchResults) Found(option int, line string) {
	r.a.mu.Lock()
	if r.current() && option >= 0 && option < len(r.m.options) {
		r.m.search.found[option] = line
		r.m.refilter()
		r.a.requestRender()
	}
	r.a.unlock()
}

// Done says the search has ended; note, when set, says why it stopped short.
func (r *SearchResults) Done(note string) {
	r.a.mu.Lock()
	if r.current() {
		r.m.search.running, r.m.search.note = false, note
		r.a.requestRender()
	}
	r.a.unlock()
}

func (r *SearchResults) current() bool { return r.a.modal == r.m && r.m.search.query == r.query }

// searchState is a searching picker's side of its search.
type searchState struct {
	onQuery func(string, *SearchResults)
	query   int            // counts the queries typed, so that a stale search's results are dropped
	found   map[int]string // option → the line that matched, for the current query
	running bool
	note    string
	due     bool // the query changed with the key being handled: onQuery is to be called
}

// newQuery forgets the last query's matches: the typed text has changed.
func (s *searchState) newQuery(text string) {
	s.query++
	s.found = map[int]string{}
	s.running, s.note, s.due = text != "", "", true
}

// searchDue is the call of onQuery the key just handled made due, to run once the screen's
// lock is released; nil when there is none.
func (m *modal) searchDue(a *App) func() {
	s := m.search
	if s == nil || !s.due || s.onQuery == nil {
		return nil
	}
	s.due = false
	query, r := m.filter, &SearchResults{a: a, m: m, query: s.query}
	return func() { s.onQuery(query, r) }
}

// refilterSearch shows the options whose label holds the filter and those the search found,
// keeping the cursor on the option it was on.
func (m *modal) refilterSearch() {
	on := -1
	if m.sel < len(m.shown) {
		on = m.shown[m.sel]
	}
	m.shown = m.shown[:0]
	q := strings.ToLower(m.filter)
	for i, o := range m.options {
		if _, found := m.search.found[i]; found || q == "" || strings.Contains(strings.ToLower(o), q) {
			m.shown = append(m.shown, i)
		}
	}
	m.sel = max(0, min(m.sel, len(m.shown)-1))
	if k := slices.Index(m.shown, on); k >= 0 {
		m.sel = k
	}
}

// matchLine is the line shown under option in the list: what the search matched in it.
func (m *modal) matchLine(option int) (string, bool) {
	if m.search == nil || m.filter == "" {
		return "", false
	}
	line, ok := m.search.found[option]
	return line, ok
}

// searchNote says how the search goes, for the picker's last line.
func (m *modal) searchNote() string {
	switch {
	case m.search == nil:
		return ""
	case m.search.running:
		return " · searching…"
	case m.search.note != "":
		return " · " + m.search.note
	}
	return ""
}
