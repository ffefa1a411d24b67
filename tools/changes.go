package tools

import (
	"path/filepath"
	"strings"
	"unicode"
)

// FileChanger is a tool whose calls may change files their arguments name. The loop runs the
// calls of one reply that name the same file one after another, in the order the model sent
// them (pi's file-mutation queue), while the other calls still run alongside.
type FileChanger interface {
	// ChangedFiles returns the files a call with args may change, as FileKey makes them; nil
	// when it names none it can tell.
	ChangedFiles(args map[string]any) []string
}

// ChangedFiles calls Changes, when set.
func (f *Func) ChangedFiles(args map[string]any) []string {
	if f.Changes == nil {
		return nil
	}
	return f.Changes(args)
}

// FileKey is the one name of the file a path written by a model (or a script) refers to:
// resolved as Resolve does, symlinks followed, so that `./a`, `a` and a link to it share it.
func (e *Env) FileKey(written string) string {
	abs, err := e.Resolve(written)
	if err != nil {
		return ""
	}
	return lockKey(abs)
}

// pathChanges returns the Changes of a tool whose argument named arg is the file it changes.
func pathChanges(env *Env, arg string) func(map[string]any) []string {
	return func(args map[string]any) []string {
		if p, ok, err := argString(args, arg); err == nil && ok && p != "" {
			return []string{env.FileKey(p)}
		}
		return nil
	}
}

// shellWords cuts a command at blanks and shell operators; quotes are dropped, not honoured.
func shellWords(command string) []string {
	return strings.FieldsFunc(command, func(r rune) bool {
		return unicode.IsSpace(r) || strings.ContainsRune("'\";|&<>()`", r)
	})
}

// shellChanges guesses the files a shell command may change: every word that reads as a path
// (not an option, no expansion) and names an existing file, or has a dot or a slash and names a
// file in an existing folder (a command's name does neither).
// A guess too wide only orders a call that could have run alongside.
func shellChanges(env *Env) func(map[string]any) []string {
	return func(args map[string]any) []string {
		command, ok, err := argString(args, "command")
		if err != nil || !ok {
			return nil
		}
		var keys []string
		seen := map[string]bool{}
		for _, w := range shellWords(command) {
			if strings.HasPrefix(w, "-") || strings.ContainsAny(w, "$*?[]{}=\\") {
				continue
			}
			key := env.FileKey(w)
			pathLike := exists(key) || strings.ContainsAny(w, "./") && exists(filepath.Dir(key))
			if key == "" || seen[key] || !pathLike {
				continue
			}
			seen[key] = true
			keys = append(keys, key)
		}
		return keys
	}
}
