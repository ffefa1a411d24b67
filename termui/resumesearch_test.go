package termui

import (
	"fmt"
	"testing"

	"github.com/gdamore/tcell/v2"

	"pi/internal/testwait"
)

// threeSessions are /resume's rows, none of whose labels says "parser".
func threeSessions(f *fake) {
	f.resumable = []Resumable{{Ref: "/s/a.jsonl", ID: "a", FirstPrompt: "set up the build"},
		{Ref: "/s/b.jsonl", ID: "b", FirstPrompt: "tidy the docs"}, {Ref: "/s/c.jsonl", ID: "c", FirstPrompt: "write tests"}}
}

func (r *rig) typeRunes(text string) {
	for _, ch := range text {
		r.ui.HandleEvent(tcell.NewEventKey(tcell.KeyRune, ch, tcell.ModNone))
	}
}

func (r *rig) press(keys ...tcell.Key) {
	for _, k := range keys {
		r.ui.HandleEvent(tcell.NewEventKey(k, 0, tcell.ModNone))
	}
}

// resumeRig opens /resume on f and returns once the picker shows.
func resumeRig(t *testing.T, f *fake) (*rig, chan struct{}) {
	t.Helper()
	r := newRig(t, f)
	done := make(chan struct{})
	go func() { r.c.Command("resume", ""); close(done) }()
	r.shows(t, "Resume which session?")
	return r, done
}

// waitCall waits for the session's n-th call named call (the first when n is left out).
func (r *rig) waitCall(t *testing.T, call string, n ...int) {
	t.Helper()
	want := append(n, 1)[0]
	testwait.Until(t, fmt.Sprintf("call %d of %s", want, call), func() bool {
		got := 0
		for _, c := range r.f.recorded() {
			if c == call {
				got++
			}
		}
		return got >= want
	})
}

// TestResumeSearchesAsYouType: typing in /resume searches what the sessions hold, not their
// rows: a session shows as soon as its match comes, with the line that matched under it, while
// the search goes on, and the one found later can be chosen.
func TestResumeSearchesAsYouType(t *testing.T) {
	f := &fake{gate: make(chan struct{}), hits: map[string][]fakeHit{"parser": {
		{"/s/b.jsonl", "the parser skips comments"}, {"/elsewhere.jsonl", "not a row"}, {"/s/c.jsonl", "a parser test"}}}}
	threeSessions(f)
	r, done := resumeRig(t, f)
	r.typeRunes("parser")
	r.shows(t, "the parser skips comments")
	r.shows(t, "1/3 · searching…")
	close(f.gate)
	r.shows(t, "a parser test")
	r.shows(t, "2/3 · ↑↓")
	r.press(tcell.KeyDown, tcell.KeyEnter)
	<-done
	checkCalls(t, f.recorded(), []string{"Resumable", "SearchSessions parser", "Resume /s/c.jsonl"}, []string{"SearchSessions p "})
}

// TestResumeSearchCancelsTheOneBefore: a key typed while a search runs cancels it through its
// context; closing the picker cancels the last one.
func TestResumeSearchCancelsTheOneBefore(t *testing.T) {
	f := &fake{}
	threeSessions(f)
	r, done := resumeRig(t, f)
	r.typeRunes("slow")
	r.waitCall(t, "SearchSessions slow")
	r.typeRunes("er")
	r.waitCall(t, "cancelled slow")
	r.waitCall(t, "SearchSessions slower")
	r.press(tcell.KeyBackspace, tcell.KeyBackspace)
	r.waitCall(t, "SearchSessions slow", 2)
	r.press(tcell.KeyEscape)
	<-done
	r.waitCall(t, "cancelled slow", 2)
}

// TestResumeSearchStopsAtItsCap: a query that matches more sessions than the cap stops there
// and says so.
func TestResumeSearchStopsAtItsCap(t *testing.T) {
	f := &fake{hits: map[string][]fakeHit{}}
	for i := range resumeMaxMatches + 50 {
		ref := fmt.Sprintf("/s/%d.jsonl", i)
		f.resumable = append(f.resumable, Resumable{Ref: ref, ID: fmt.Sprint(i), FirstPrompt: "ask"})
		f.hits["common"] = append(f.hits["common"], fakeHit{ref, "a common word"})
	}
	r, done := resumeRig(t, f)
	r.typeRunes("common")
	r.shows(t, fmt.Sprintf("%d/%d · stopped at %d matches", resumeMaxMatches, resumeMaxMatches+50, resumeMaxMatches))
	r.press(tcell.KeyEscape)
	<-done
}
