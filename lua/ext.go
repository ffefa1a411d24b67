package lua

import (
	"context"
	"flag"
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"

	lua "github.com/yuin/gopher-lua"
)

// Shortcut is a key a script bound with pi.register_shortcut.
type Shortcut struct {
	Key         string `json:"key"` // as the script wrote it, e.g. "ctrl+alt+p"
	Description string `json:"description,omitempty"`
	Source      string `json:"source"` // the script that registered it
	r           *Runtime
}

// Run calls the shortcut's run function, as Command.Run calls a command's.
func (s Shortcut) Run(ctx context.Context) error {
	return Command{Name: shortcutCommand(s.Key), r: s.r, runnable: true}.Run(ctx, "")
}

// RunShortcut runs the shortcut scripts bound to key; an unknown key is an error.
func (r *Runtime) RunShortcut(ctx context.Context, key string) error {
	for _, s := range r.Shortcuts() {
		if s.Key == key {
			return s.Run(ctx)
		}
	}
	return fmt.Errorf("no script shortcut on %s", key)
}

// SlashCommand is one entry of RPC mode's get_commands.
type SlashCommand struct {
	Name        string `json:"name"`
	Description string `json:"description,omitempty"`
	Source      string `json:"source"` // extension, or skill for the bundled skills script's "skill:<name>"
}

// SlashCommands lists the scripts' commands as get_commands does: never nil, empty without a
// runtime.
func (r *Runtime) SlashCommands() []SlashCommand {
	out := []SlashCommand{}
	if r == nil {
		return out
	}
	for _, c := range r.Commands() {
		source := "extension"
		if strings.HasPrefix(c.Name, "skill:") {
			source = "skill"
		}
		out = append(out, SlashCommand{Name: c.Name, Description: c.Description, Source: source})
	}
	return out
}

// shortcutCommand is the hidden command a shortcut's function is kept under.
func shortcutCommand(key string) string { return "\x00shortcut " + key }

// Shortcuts lists the keys scripts bound, sorted by key: never nil, empty without a runtime.
func (r *Runtime) Shortcuts() []Shortcut {
	if r == nil {
		return []Shortcut{}
	}
	r.waitReady()
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]Shortcut{}, r.shortcuts...)
}

// extState is one state's flags and shortcuts.
type extState struct {
	tools     map[string]toolExtras     // by tool name (toolextras.go)
	renderers map[string]*lua.LFunction // message renderers by custom type (sendmessage.go)
	flags     map[string]flagDef
	shortcuts map[string]Shortcut
}

type flagDef struct {
	typ string // "boolean" or "string"
	def lua.LValue
}

// extFuncs are the registrations beyond tools and commands: shortcuts and flags.
func extFuncs(v *vm) map[string]lua.LGFunction {
	return map[string]lua.LGFunction{"register_shortcut": v.registerShortcut, "register_flag": v.registerFlag, "flag": v.flagFn,
		"package_dirs": v.packageDirs, "send_message": v.sendMessage,
		"register_message_renderer": v.registerMessageRenderer}
}

func (v *vm) registerShortcut(L *lua.LState) int {
	def := L.CheckTable(1)
	key := strings.ToLower(optString(L, def, "key"))
	run, ok := def.RawGetString("run").(*lua.LFunction)
	if key == "" || !ok {
		L.ArgError(1, "a shortcut needs key and run")
	}
	if v.ext.shortcuts == nil {
		v.ext.shortcuts = map[string]Shortcut{}
	}
	v.ext.shortcuts[key] = Shortcut{Key: key, Description: optString(L, def, "description"), Source: v.script}
	v.cmdFns[shortcutCommand(key)] = commandFns{run: run}
	v.r.publish(v)
	return 0
}

// registerFlag is pi.register_flag{name, type = "boolean"|"string", description, default}.
func (v *vm) registerFlag(L *lua.LState) int {
	def := L.CheckTable(1)
	name := strings.TrimLeft(optString(L, def, "name"), "-")
	typ := optString(L, def, "type")
	if typ == "" {
		typ = "boolean"
	}
	if !isCommandName(name) || (typ != "boolean" && typ != "string") {
		L.ArgError(1, fmt.Sprintf(`flag %q of type %q: want a name of letters, digits, _ - . and type "boolean" or "string"`, name, typ))
	}
	if v.ext.flags == nil {
		v.ext.flags = map[string]flagDef{}
	}
	v.ext.flags[name] = flagDef{typ: typ, def: def.RawGetString("default")}
	return 0
}

// flagFn is pi.flag(name): the value given on the command line (a boolean flag given bare
// is true), else the registered default, else nil.
func (v *vm) flagFn(L *lua.LState) int {
	name := strings.TrimLeft(L.CheckString(1), "-")
	d, registered := v.ext.flags[name]
	raw, given := v.r.opts.Flags.Values[name]
	if next, ok := v.r.opts.Flags.Next[name]; ok && registered && d.typ == "string" {
		raw = next // --name value
	}
	switch {
	case !given && registered:
		L.Push(d.def)
	case !given:
		L.Push(lua.LNil)
	case registered && d.typ == "boolean":
		b, err := strconv.ParseBool(raw)
		L.Push(lua.LBool(b || err != nil && raw != ""))
	default:
		L.Push(lua.LString(raw))
	}
	return 1
}

// Flags are the command line's long flags pi does not define (SplitFlags), for pi.flag.
type Flags struct {
	Values map[string]string // by name: the value after "=", or "true" for a bare flag
	// Next is, for a bare flag followed by a word (not "-…" nor "@…"), that word: the value
	// of the flag when a script registers it as a string flag (--name value), which then
	// takes the word from the prompts (Runtime.TakeFlagWords).
	Next map[string]string
}

// SplitFlags takes from args the long flags fs does not define, for the scripts' pi.flag:
// "--name=value" gives value, a bare "--name" gives "true" (and its next word is noted in
// Next; it stays in rest). The value of a flag of fs that takes one stays with it; -h and
// --help stay pi's; after "--" everything stays.
func SplitFlags(args []string, fs *flag.FlagSet) (rest []string, flags Flags) {
	flags = Flags{Values: map[string]string{}, Next: map[string]string{}}
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			return append(rest, args[i:]...), flags
		}
		name, value, hasValue := strings.Cut(strings.TrimLeft(a, "-"), "=")
		f := fs.Lookup(name)
		if !strings.HasPrefix(a, "--") || len(a) == 2 || f != nil || name == "help" {
			rest = append(rest, a)
			if b, isBool := flagValue(f).(interface{ IsBoolFlag() bool }); f != nil && !(isBool && b.IsBoolFlag()) && !hasValue && i+1 < len(args) {
				i++
				rest = append(rest, args[i])
			}
			continue
		}
		if !hasValue {
			value = "true"
			if i+1 < len(args) && args[i+1] != "" && !strings.HasPrefix(args[i+1], "-") && !strings.HasPrefix(args[i+1], "@") {
				flags.Next[name] = args[i+1]
			}
		}
		flags.Values[name] = value
	}
	return rest, flags
}

// TakeFlagWords returns prompts without the words that string flags took as their values
// (--name value, name registered with type "string"), the first occurrence of each, once the
// scripts have loaded.
func (r *Runtime) TakeFlagWords(prompts []string) []string {
	r.waitReady()
	r.mu.Lock()
	taken := r.stringFlags
	r.mu.Unlock()
	out := append([]string(nil), prompts...)
	for _, name := range taken {
		word, ok := r.opts.Flags.Next[name]
		if i := slices.Index(out, word); ok && i >= 0 {
			out = slices.Delete(out, i, i+1)
		}
	}
	return out
}

func flagValue(f *flag.Flag) flag.Value {
	if f == nil {
		return nil
	}
	return f.Value
}

func (v *vm) shortcutList() []Shortcut {
	list := make([]Shortcut, 0, len(v.ext.shortcuts))
	for _, s := range v.ext.shortcuts {
		s.r = v.r
		list = append(list, s)
	}
	sort.Slice(list, func(i, j int) bool { return list[i].Key < list[j].Key })
	return list
}

// packageDirs is pi.package_dirs(): the folders of the packages loaded, in load order (the
// bundled skills and templates scripts look in their skills/ and prompts/).
func (v *vm) packageDirs(L *lua.LState) int {
	v.r.mu.Lock()
	dirs := append([]string(nil), v.r.packages...)
	v.r.mu.Unlock()
	L.Push(v.toLua(dirs))
	return 1
}
