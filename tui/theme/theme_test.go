package theme

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func TestBuiltinsShareNoColour(t *testing.T) {
	dark, light := Dark().Colours(), Light().Colours()
	if len(dark) != len(Roles()) || len(light) != len(Roles()) {
		t.Fatalf("a built-in leaves a role empty: dark %d, light %d of %d roles", len(dark), len(light), len(Roles()))
	}
	used := map[string]string{}
	for role, sgr := range dark {
		used[sgr] = role
	}
	for role, sgr := range light {
		if d, ok := used[sgr]; ok {
			t.Errorf("light %s and dark %s are both %q", role, d, sgr)
		}
	}
}

func TestParse(t *testing.T) {
	tests := []struct {
		name, file string
		check      func(*Theme) bool
		err        string // a part of the error, "" for none
	}{
		{"rgb", `accent = "#ff8000"`, func(th *Theme) bool { return th.Accent == "\x1b[38;2;255;128;0m" }, ""},
		{"palette", `muted = 250`, func(th *Theme) bool { return th.Muted == "\x1b[38;5;250m" }, ""},
		{"none", `code = ""`, func(th *Theme) bool { return th.Code == "" }, ""},
		{"base kept", `accent = 1`, func(th *Theme) bool { return th.Error == Dark().Error }, ""},
		{"extends light", "extends = \"light\"\naccent = 1", func(th *Theme) bool {
			return th.Error == Light().Error && th.Accent == "\x1b[38;5;1m"
		}, ""},
		{"upper hex", `link = "#ABCDEF"`, func(th *Theme) bool { return th.Link == "\x1b[38;2;171;205;239m" }, ""},
		{"unknown role", `acent = 3`, nil, "mine.toml: acent is not a role"},
		{"too big", `accent = 256`, nil, "mine.toml: accent = 256: a palette colour is 0 to 255"},
		{"negative", `accent = -1`, nil, "accent = -1"},
		{"short hex", `accent = "#fff"`, nil, `accent = "#fff": want "#rrggbb"`},
		{"named colour", `error = "red"`, nil, `error = "red"`},
		{"bad hex", `error = "#gg0000"`, nil, `error = "#gg0000"`},
		{"float", `error = 1.5`, nil, `error = 1.5`},
		{"bad extends", `extends = "solarized"`, nil, `extends = "solarized": want "dark" or "light"`},
		{"bad toml", `accent = `, nil, "theme /x/mine.toml:"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			th, err := Parse("/x/mine.toml", []byte(tt.file), Dark())
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("error %v, want one containing %q", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if th.Name != "mine" || !tt.check(th) {
				t.Errorf("wrong theme: %+v", th)
			}
		})
	}
}

func TestResolve(t *testing.T) {
	home, proj := t.TempDir(), t.TempDir()
	write := func(dir, name, text string) string {
		p := filepath.Join(dir, name)
		os.MkdirAll(dir, 0o755)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	dirs := Dirs(home, proj)
	write(dirs[0], "both.toml", "accent = 1")
	write(dirs[1], "both.toml", "accent = 2")
	write(dirs[1], "proj.toml", "accent = 3")
	write(dirs[1], "broken.toml", "accent = 999")
	path := write(t.TempDir(), "any.toml", "accent = 4")
	tests := []struct {
		setting string
		dark    bool
		accent  string
		err     string
	}{
		{"auto", true, Dark().Accent, ""},
		{"", false, Light().Accent, ""},
		{"dark", false, Dark().Accent, ""},
		{"light", true, Light().Accent, ""},
		{"both", true, "\x1b[38;5;1m", ""}, // $PI_HOME first
		{"proj", true, "\x1b[38;5;3m", ""},
		{path, true, "\x1b[38;5;4m", ""},
		{"missing", false, Light().Accent, `theme "missing": no missing.toml in`},
		{"broken", true, Dark().Accent, "broken.toml: accent = 999"},
		{"../etc/x", true, Dark().Accent, "a path ending in .toml"},
		{"/no/such.toml", true, Dark().Accent, "no such file"},
	}
	for _, tt := range tests {
		th, err := Resolve(tt.setting, dirs, tt.dark)
		if (err == nil) != (tt.err == "") || err != nil && !strings.Contains(err.Error(), tt.err) {
			t.Errorf("Resolve(%q): error %v, want %q", tt.setting, err, tt.err)
		}
		if th == nil || th.Accent != tt.accent {
			t.Errorf("Resolve(%q) accent %q, want %q", tt.setting, th.Accent, tt.accent)
		}
	}
	if got, want := Names(dirs), []string{"auto", "dark", "light", "both", "broken", "proj"}; !slices.Equal(got, want) {
		t.Errorf("Names = %v, want %v", got, want)
	}
}

func TestThinkingBorder(t *testing.T) {
	th := Light()
	for level, want := range map[string]string{"": th.Border, "off": th.Border, "minimal": th.ThinkingMinimal,
		"low": th.ThinkingLow, "medium": th.ThinkingMedium, "high": th.ThinkingHigh, "xhigh": th.ThinkingXHigh} {
		if got := th.ThinkingBorder(level); got != want {
			t.Errorf("%q: %q, want %q", level, got, want)
		}
	}
}

func FuzzParse(f *testing.F) {
	f.Add("extends = \"light\"\naccent = \"#102030\"\nmuted = 7\ncode = \"\"")
	f.Add("accent = [1]")
	f.Fuzz(func(t *testing.T, s string) {
		th, err := Parse("f.toml", []byte(s), Dark())
		if err == nil {
			for _, sgr := range th.Colours() {
				if !strings.HasPrefix(sgr, "\x1b[38;") || !strings.HasSuffix(sgr, "m") {
					t.Fatalf("%q gave the SGR %q", s, sgr)
				}
			}
		}
	})
}
