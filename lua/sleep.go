package lua

// sleep.go lets a script sleep until something needs it. Lines "-- @wake …" at the top of a
// script name the events, slash commands and `pi <word>` subcommands that wake it; pi then
// registers those at start without compiling or running the script, and the first one that
// fires loads it (its chunk runs as it would have at start) before the event, command or
// subcommand reaches what the script registered. A run that fires none of them pays nothing
// for the script. The bundled checkpoints script sleeps until the first call that may change
// files, /undo, /redo, a move in the tree or `pi checkpoints`.

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	lua "github.com/yuin/gopher-lua"
)

type wakeKind int

const (
	wakeEvent wakeKind = iota
	wakeCommand
	wakeSubcommand
)

// wakeSpec is one @wake line: what wakes the script.
type wakeSpec struct {
	kind wakeKind
	name string // the event, the command without its slash, or the subcommand's word
	// writes: a tool_call wakes the script only when the tool may change files (read_only false).
	writes bool
	// description is a command's or subcommand's, listed until the script has registered its own.
	description string
}

// wakeTrigger is what a task delivers; the sleeping scripts it matches load before it runs.
type wakeTrigger struct {
	kind     wakeKind
	name     string
	readOnly bool // a tool_call of a tool that cannot change anything
}

func (w wakeSpec) wokenBy(t wakeTrigger) bool {
	return w.kind == t.kind && w.name == t.name && !(w.writes && t.readOnly)
}

// parseWakes reads the @wake lines of a script's header: the comment and blank lines it
// begins with. A script without one loads at start.
func parseWakes(src string) ([]wakeSpec, error) {
	var out []wakeSpec
	for n := 1; src != ""; n++ {
		var line string
		line, src, _ = strings.Cut(src, "\n")
		text := strings.TrimSpace(line)
		if text == "" {
			continue
		}
		comment, ok := strings.CutPrefix(text, "--")
		if !ok {
			break
		}
		spec, ok := strings.CutPrefix(strings.TrimSpace(comment), "@wake")
		if !ok || (spec != "" && spec[0] != ' ' && spec[0] != '\t') {
			continue // another comment, or a word that only begins with @wake
		}
		w, err := parseWake(strings.TrimSpace(spec))
		if err != nil {
			return nil, fmt.Errorf("line %d: %w", n, err)
		}
		out = append(out, w)
	}
	return out, nil
}

// parseWake reads what follows @wake: "EVENT", "tool_call writes", "/COMMAND description" or
// "pi WORD description".
func parseWake(spec string) (wakeSpec, error) {
	word, rest := cutWord(spec)
	switch {
	case word == "":
		return wakeSpec{}, errors.New("@wake names nothing: give an event, a /command or pi WORD")
	case word[0] == '/':
		if !isCommandName(word[1:]) {
			return wakeSpec{}, fmt.Errorf("@wake %s: a command name uses letters, digits, _ - . :", word)
		}
		return wakeSpec{kind: wakeCommand, name: word[1:], description: rest}, nil
	case word == "pi":
		name, desc := cutWord(rest)
		if !isCommandName(name) {
			return wakeSpec{}, fmt.Errorf("@wake pi %q: a subcommand word uses letters, digits, _ - . :", name)
		}
		return wakeSpec{kind: wakeSubcommand, name: name, description: desc}, nil
	case slices.Contains(scriptEvents(), word):
		return wakeSpec{}, fmt.Errorf("@wake %s: pi.emit's events run inside the script that raises them and cannot wake another", word)
	case !knownEvent(word):
		return wakeSpec{}, fmt.Errorf("@wake %s: unknown event", word)
	}
	switch {
	case rest == "":
		return wakeSpec{kind: wakeEvent, name: word}, nil
	case rest == "writes" && word == "tool_call":
		return wakeSpec{kind: wakeEvent, name: word, writes: true}, nil
	}
	return wakeSpec{}, fmt.Errorf("@wake %s %s: only tool_call takes a word after it (writes)", word, rest)
}

func cutWord(s string) (word, rest string) {
	s = strings.TrimSpace(s)
	i := strings.IndexAny(s, " \t")
	if i < 0 {
		return s, ""
	}
	return s[:i], strings.TrimSpace(s[i:])
}

// markSleepers reads each script's @wake lines. A header that does not parse is a notice, and
// that script loads at start as if it had none: nothing it registers is lost.
func (r *Runtime) markSleepers(scripts []script) []script {
	for i := range scripts {
		s := &scripts[i]
		wakes, err := parseWakes(s.src)
		if err != nil {
			r.notify("error", "lua: %s: %v; loading it at start instead", scriptLabel(s.name), err)
			continue
		}
		s.wakes = wakes
	}
	return scripts
}

// sleeperFor returns the index of the first sleeping script tr wakes, or -1.
func (v *vm) sleeperFor(tr wakeTrigger) int {
	return slices.IndexFunc(v.sleeping, func(s script) bool {
		return slices.ContainsFunc(s.wakes, func(w wakeSpec) bool { return w.wokenBy(tr) })
	})
}

// takeSleeper removes and returns the first sleeping script tr wakes.
func (v *vm) takeSleeper(tr wakeTrigger) (script, bool) {
	i := v.sleeperFor(tr)
	if i < 0 {
		return script{}, false
	}
	s := v.sleeping[i]
	v.sleeping = slices.Delete(v.sleeping, i, i+1)
	return s, true
}

// waking wraps a task's next so that, before the task's own first call, the chunk of every
// sleeping script tr wakes runs, one call each and in load order, as loading at start does:
// a chunk that fails is a notice and what it registered before failing stays.
func (v *vm) waking(t *task, tr wakeTrigger) func(*vm, []lua.LValue, error) *call {
	next, loading, woken := t.next, "", false
	return func(v *vm, rets []lua.LValue, err error) *call {
		if woken {
			return next(v, rets, err)
		}
		if loading != "" && err != nil && t.ctx.Err() == nil && !errors.Is(err, ErrClosed) {
			v.r.notify("error", "lua: error while loading %s; pi goes on without the rest of it: %s", scriptLabel(loading), cleanError(err))
		}
		for s, ok := v.takeSleeper(tr); ok; s, ok = v.takeSleeper(tr) {
			if compileScript(&s); s.err != nil {
				v.r.notify("error", "lua: script not loaded: %s", cleanError(s.err))
				continue
			}
			loading, v.script = s.name, s.name
			return &call{fn: v.L.NewFunctionFromProto(s.proto)}
		}
		woken, v.script = true, ""
		v.r.publish(v) // the placeholders of the scripts that woke give way to what they registered
		return next(v, nil, nil)
	}
}

// sleepersPublished is what the sleeping scripts add to what the runtime publishes: their
// commands, until they register their own, and the events that wake them (true: every one;
// false: only tool calls that may change files).
func (v *vm) sleepersPublished(r *Runtime) (cmds []Command, events map[string]bool) {
	events = map[string]bool{}
	for _, s := range v.sleeping {
		for _, w := range s.wakes {
			_, registered := v.commands[w.name]
			switch {
			case w.kind == wakeEvent:
				events[w.name] = events[w.name] || !w.writes
			case w.kind == wakeCommand && !registered && !slices.ContainsFunc(cmds, func(c Command) bool { return c.Name == w.name }):
				cmds = append(cmds, Command{Name: w.name, Description: w.description, Source: s.name, runnable: true, r: r})
			}
		}
	}
	return cmds, events
}

// sleepingSubcommands are the words sleeping scripts wake for, with their descriptions.
func (v *vm) sleepingSubcommands() map[string]string {
	out := map[string]string{}
	for _, s := range v.sleeping {
		for _, w := range s.wakes {
			if _, ok := out[w.name]; w.kind == wakeSubcommand && !ok {
				out[w.name] = w.description
			}
		}
	}
	return out
}

// listens reports whether a script handles event, or sleeps until it fires; readOnly says
// the event is a tool_call of a tool that cannot change anything, which a script waking only
// for calls that may change files sleeps through.
func (r *Runtime) listens(event string, readOnly bool) bool {
	r.waitReady()
	r.mu.Lock()
	defer r.mu.Unlock()
	every, sleeps := r.sleepEvents[event]
	return r.events[event] > 0 || sleeps && (every || !readOnly)
}
