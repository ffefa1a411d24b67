package config

// save.go changes one setting in a pi.toml file in place: the line that sets it is replaced,
// or a line is added to its table, so every comment and every other line stays as the user
// wrote it.

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"pi/internal/atomicfile"
	"pi/internal/safefile"
	"strings"

	"github.com/BurntSushi/toml"
)

// SaveSetting sets key in table ("" for the top level) of the pi.toml at path to value, and
// creates the file when there is none. The file is replaced only once the result parses.
func SaveSetting(path, table, key string, value any) error {
	line, err := settingLine(key, value)
	if err != nil {
		return fmt.Errorf("saving %s in %s: %w", key, path, err)
	}
	old, err := safefile.ReadFile(context.Background(), path, safefile.MaxTextFile)
	if err != nil && !os.IsNotExist(err) {
		return fmt.Errorf("saving %s: %w", key, err)
	}
	text := setLine(strings.Split(string(old), "\n"), table, key, line)
	var check map[string]any
	if _, err := toml.Decode(text, &check); err != nil {
		return fmt.Errorf("saving %s in %s would break the file: %w", key, path, err)
	}
	return replaceFile(path, []byte(text))
}

// settingLine is `key = value` as TOML writes it.
func settingLine(key string, value any) (string, error) {
	var b bytes.Buffer
	if err := toml.NewEncoder(&b).Encode(map[string]any{key: value}); err != nil {
		return "", err
	}
	return strings.TrimSpace(b.String()), nil
}

// setLine replaces the line setting key in table, or adds line after the table's last key
// (creating the table at the end of the file when there is none).
func setLine(lines []string, table, key, line string) string {
	start, end, ok := tableRegion(lines, table)
	if !ok {
		lines = append(trimTrailingBlank(lines), "", "["+table+"]", line)
		return strings.Join(lines, "\n") + "\n"
	}
	at := start // after the header, or at the top of the file
	for i := start; i < end; i++ {
		t := strings.TrimSpace(lines[i])
		if t == "" || strings.HasPrefix(t, "#") {
			continue
		}
		if k, _, _ := strings.Cut(t, "="); strings.TrimSpace(k) == key {
			lines[i] = line + inlineComment(lines[i])
			return strings.TrimRight(strings.Join(lines, "\n"), "\n") + "\n"
		}
		at = i + 1
	}
	if table == "" && at == 0 && end < len(lines) {
		line += "\n" // before the first table: keep a blank line between
	}
	lines = append(lines[:at], append([]string{line}, lines[at:]...)...)
	return strings.TrimRight(strings.Join(lines, "\n"), "\n") + "\n"
}

// tableRegion is the range of lines that belong to table: after its header up to the next
// one ("" is the top level, before the first header). ok is false when there is no such table.
func tableRegion(lines []string, table string) (start, end int, ok bool) {
	start, ok = 0, table == ""
	for i, l := range lines {
		t := strings.TrimSpace(l)
		if !strings.HasPrefix(t, "[") {
			continue
		}
		if ok {
			return start, i, true
		}
		if strings.Trim(t, "[] ") == table && !strings.HasPrefix(t, "[[") {
			start, ok = i+1, true
		}
	}
	return start, len(lines), ok
}

// inlineComment is the "# …" that ends a key line, outside its strings, with the space
// before it; "" when there is none.
func inlineComment(line string) string {
	var quote byte
	for i := 0; i < len(line); i++ {
		switch c := line[i]; {
		case quote != 0 && c == '\\' && quote == '"':
			i++ // an escape inside a basic string
		case quote != 0 && c == quote:
			quote = 0
		case quote == 0 && (c == '"' || c == '\''):
			quote = c
		case quote == 0 && c == '#':
			return " " + line[i:]
		}
	}
	return ""
}

func trimTrailingBlank(lines []string) []string {
	for len(lines) > 0 && strings.TrimSpace(lines[len(lines)-1]) == "" {
		lines = lines[:len(lines)-1]
	}
	return lines
}

// replaceFile writes data next to path and renames it over path, so a crash leaves the old
// file or the new one, never half of one.
func replaceFile(path string, data []byte) error { return atomicfile.Replace(path, data) }
