package sqlitestore

import (
	"context"
	"database/sql"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"pi/session"
)

// TestHostileDatabase: a file that is not a database, and a database of a newer schema, are
// refused with an error naming the file, and are left as they were.
func TestHostileDatabase(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		name, want string
		make       func(path string)
	}{
		{"not a database", "not a database", func(path string) {
			os.WriteFile(path, []byte(strings.Repeat("this is a text file\n", 300)), 0o600)
		}},
		{"newer schema", "schema version 9 is newer", func(path string) {
			db, err := sql.Open("sqlite", path)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := db.Exec("PRAGMA user_version = 9"); err != nil {
				t.Fatal(err)
			}
			db.Close()
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "sessions.db")
			tc.make(path)
			before, _ := os.ReadFile(path)
			st, err := Open(ctx, path)
			if err == nil {
				st.Close()
				t.Fatal("opened")
			}
			if !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %q, want one naming %s and saying %q", err, path, tc.want)
			}
			if after, _ := os.ReadFile(path); string(after) != string(before) {
				t.Fatal("the file was changed")
			}
		})
	}
}

// TestHostileReferences: an unknown id, an ambiguous prefix and a LIKE pattern are errors
// that say so; none opens a session it did not name.
func TestHostileReferences(t *testing.T) {
	ctx := context.Background()
	st := must(Open(ctx, filepath.Join(t.TempDir(), "s.db")))
	defer st.Close()
	var ids []string
	for range 2 {
		s := st.New("/proj", "")
		fill(t, s)
		ids = append(ids, s.ID())
		s.Close()
	}
	for _, tc := range []struct{ ref, want string }{
		{"ffffffff", "no session with an id starting with"},
		{ids[0][:2], "ambiguous"}, // UUIDv7 ids made together share their first digits
		{"%", "no session with an id starting with"},
		{"_", "no session with an id starting with"},
		{st.Path() + "#", "no session named"},
	} {
		if _, err := st.Open(ctx, tc.ref); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Open(%q) = %v, want an error saying %q", tc.ref, err, tc.want)
		}
	}
	if _, err := st.Open(ctx, "ffffffff"); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("an unknown id is not ErrNotExist: %v", err)
	}
}

// TestHostileImport: a file that is not a session is refused and leaves nothing behind; a
// file with damaged lines is imported as --session reads it, with the damage reported.
func TestHostileImport(t *testing.T) {
	ctx := context.Background()
	st := must(Open(ctx, filepath.Join(t.TempDir(), "s.db")))
	defer st.Close()
	dir := t.TempDir()
	notSession := filepath.Join(dir, "notes.jsonl")
	os.WriteFile(notSession, []byte(`{"type":"message"}`+"\n"), 0o600)
	if _, _, err := st.Import(ctx, notSession); err == nil || !strings.Contains(err.Error(), notSession) {
		t.Fatalf("import of a file that is not a session: %v", err)
	}
	if ids := must(st.IDs(ctx)); len(ids) != 0 {
		t.Fatalf("a failed import left sessions behind: %v", ids)
	}
	fixture := must(os.ReadFile("../../testdata/sessions/pi-0.73.jsonl"))
	lines := strings.SplitAfter(string(fixture), "\n")
	damaged := lines[0] + lines[1] + "{\"type\":\"message\",\x00torn\n" + strings.Join(lines[2:], "")
	path := filepath.Join(dir, "damaged.jsonl")
	os.WriteFile(path, []byte(damaged), 0o600)
	id, warnings, err := st.Import(ctx, path)
	if err != nil || len(warnings) == 0 {
		t.Fatalf("import of a damaged file: %v, warnings %v", err, warnings)
	}
	fromFile := must(session.Open(ctx, path))
	defer fromFile.Close()
	fromDB := must(st.Open(ctx, id))
	defer fromDB.Close()
	if fromFile.Len() != fromDB.Len() || fromFile.Leaf() != fromDB.Leaf() {
		t.Fatalf("the database holds %d entries (leaf %s), the file reads as %d (leaf %s)",
			fromDB.Len(), fromDB.Leaf(), fromFile.Len(), fromFile.Leaf())
	}
}
