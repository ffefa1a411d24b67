package theme

// file.go reads theme files and resolves the [ui] theme setting. A theme file is TOML:
//
//	extends = "light"        # optional: the built-in it starts from
//	accent  = "#005faf"      # a 24-bit colour
//	muted   = 244            # a colour of the 256-colour palette
//	code    = ""             # the terminal's own colour

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/BurntSushi/toml"

	"pi/internal/safefile"
)

// Parse reads a theme file's text; name is what errors call it (its path). Roles the file
// does not set come from the built-in it extends, or from base when it extends none.
func Parse(name string, data []byte, base *Theme) (*Theme, error) {
	var raw map[string]any
	if _, err := toml.Decode(string(data), &raw); err != nil {
		return nil, fmt.Errorf("theme %s: %w", name, err)
	}
	t := *base
	if ext, ok := raw["extends"]; ok {
		s, _ := ext.(string)
		b, ok := Builtin(s)
		if !ok {
			return nil, fmt.Errorf("theme %s: extends = %v: want \"dark\" or \"light\"", name, fmtValue(ext))
		}
		t = *b
	}
	t.Name = strings.TrimSuffix(filepath.Base(name), ".toml")
	fields := map[string]*string{}
	for _, r := range t.roles() {
		fields[r.key] = r.field
	}
	keys := make([]string, 0, len(raw))
	for k := range raw {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		if k == "extends" {
			continue
		}
		f, ok := fields[k]
		if !ok {
			return nil, fmt.Errorf("theme %s: %s is not a role (the roles are %s)", name, k, strings.Join(Roles(), ", "))
		}
		sgr, err := colour(raw[k])
		if err != nil {
			return nil, fmt.Errorf("theme %s: %s = %s: %w", name, k, fmtValue(raw[k]), err)
		}
		*f = sgr
	}
	return &t, nil
}

// colour turns a role's value into its SGR sequence: "#rrggbb", a palette index 0–255, or ""
// for the terminal's own colour.
func colour(v any) (string, error) {
	switch v := v.(type) {
	case int64:
		if v < 0 || v > 255 {
			return "", errors.New("a palette colour is 0 to 255")
		}
		return fg256(int(v)), nil
	case string:
		if v == "" {
			return "", nil
		}
		var r, g, b int
		if len(v) == 7 && v[0] == '#' && isHex(v[1:]) {
			if _, err := fmt.Sscanf(v[1:], "%02x%02x%02x", &r, &g, &b); err == nil {
				return fgRGB(r, g, b), nil
			}
		}
	}
	return "", errors.New(`want "#rrggbb", a palette colour 0–255, or ""`)
}

func isHex(s string) bool {
	for _, c := range s {
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F') {
			return false
		}
	}
	return true
}

func fmtValue(v any) string {
	if s, ok := v.(string); ok {
		return fmt.Sprintf("%q", s)
	}
	return fmt.Sprint(v)
}

// Load reads the theme file at path.
func Load(path string, base *Theme) (*Theme, error) {
	data, err := safefile.ReadFile(context.Background(), path, safefile.MaxTextFile)
	if err != nil {
		return nil, fmt.Errorf("theme: %w", err)
	}
	return Parse(path, data, base)
}

// Dirs are the folders theme names are looked up in, in order: $PI_HOME/themes, then the
// project's .pi/themes.
func Dirs(piHome, cwd string) []string {
	var dirs []string
	if piHome != "" {
		dirs = append(dirs, filepath.Join(piHome, "themes"))
	}
	if cwd != "" {
		dirs = append(dirs, filepath.Join(cwd, ".pi", "themes"))
	}
	return dirs
}

// Resolve turns a [ui] theme setting into a theme: "auto" or "" (dark or light after the
// background), "dark", "light", the name of a file NAME.toml in one of dirs, or a path ending
// in .toml. dark says whether the background is dark; it also picks the base of a file that
// extends no built-in. On an error the built-in for the background is returned with it, so
// the UI always has a theme.
func Resolve(setting string, dirs []string, dark bool) (*Theme, error) {
	auto := Dark()
	if !dark {
		auto = Light()
	}
	switch setting {
	case "", "auto":
		return auto, nil
	}
	if b, ok := Builtin(setting); ok {
		return b, nil
	}
	path, err := Find(setting, dirs)
	if err != nil {
		return auto, err
	}
	t, err := Load(path, auto)
	if err != nil {
		return auto, err
	}
	return t, nil
}

// Find is the file a theme setting names: a .toml path as it is, a name as NAME.toml in the
// first of dirs that has it.
func Find(setting string, dirs []string) (string, error) {
	if strings.HasSuffix(setting, ".toml") {
		return setting, nil
	}
	if strings.ContainsAny(setting, `/\`) || strings.HasPrefix(setting, ".") {
		return "", fmt.Errorf("theme %q: a theme is dark, light, auto, a name from %s, or a path ending in .toml",
			setting, strings.Join(dirs, " or "))
	}
	for _, d := range dirs {
		p := filepath.Join(d, setting+".toml")
		if _, err := os.Stat(p); err == nil {
			return p, nil
		}
	}
	return "", fmt.Errorf("theme %q: no %s.toml in %s", setting, setting, strings.Join(dirs, " or "))
}

// Names lists the settings a user can choose: auto, dark, light, then the theme files found
// in dirs (by name, each once, sorted).
func Names(dirs []string) []string {
	seen := map[string]bool{"auto": true, "dark": true, "light": true}
	var files []string
	for _, d := range dirs {
		matches, _ := filepath.Glob(filepath.Join(d, "*.toml"))
		for _, m := range matches {
			if n := strings.TrimSuffix(filepath.Base(m), ".toml"); !seen[n] && !strings.HasPrefix(n, ".") {
				seen[n] = true
				files = append(files, n)
			}
		}
	}
	sort.Strings(files)
	return append([]string{"auto", "dark", "light"}, files...)
}
