package sqlitestore

import (
	"cmp"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"pi/session"
)

// CommandEnv is what `pi sessions search|import-jsonl|export-jsonl` need of the configuration.
type CommandEnv struct {
	Home       string // $PI_HOME
	SessionDir string // session_dir, "" for none
	DB         string // the database when [session] store = "sqlite", else ""
}

// Command runs `pi sessions <word> args...` (args[0] is the word) and returns the exit code.
func Command(ctx context.Context, env CommandEnv, args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 || !session.IsStoreCommand(args[0]) {
		fmt.Fprintf(stderr, "pi sessions: want one of %s\n", strings.Join(session.StoreCommands(), ", "))
		return 2
	}
	var err error
	switch args[0] {
	case "search":
		var st session.Store
		if st, err = storeOf(ctx, env); err == nil {
			err = session.SearchCommand(ctx, st, args[1:], stdout)
			st.Close()
		}
	case "import-jsonl":
		err = runImport(ctx, env, args[1:], stdout, stderr)
	case "export-jsonl":
		err = runExport(ctx, env, args[1:], stdout)
	}
	if errors.Is(err, flag.ErrHelp) {
		return 0
	}
	if err != nil {
		fmt.Fprintf(stderr, "pi sessions %s: %v\n", args[0], err)
		return 1
	}
	return 0
}

// storeOf opens the configured store: the database, or the JSONL files.
func storeOf(ctx context.Context, env CommandEnv) (session.Store, error) {
	if env.DB == "" {
		return session.Files{Home: env.Home, SessionDir: env.SessionDir}, nil
	}
	return Open(ctx, env.DB)
}

func database(ctx context.Context, env CommandEnv, word string) (*Store, error) {
	if env.DB == "" {
		return nil, fmt.Errorf(`%s needs the SQLite store: set [session] store = "sqlite" in $PI_HOME/pi.toml (the database is %s unless path says otherwise)`,
			word, DefaultPath(env.Home))
	}
	return Open(ctx, env.DB)
}

func runImport(ctx context.Context, env CommandEnv, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("import-jsonl", flag.ContinueOnError)
	all := fs.Bool("all", false, "every session file under $PI_HOME/sessions (and session_dir)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	files := fs.Args()
	if *all {
		found, err := everyFile(env)
		if err != nil {
			return err
		}
		files = append(files, found...)
	}
	if len(files) == 0 {
		return errors.New("name the files to import, or --all")
	}
	st, err := database(ctx, env, "import-jsonl")
	if err != nil {
		return err
	}
	defer st.Close()
	have, err := st.IDs(ctx)
	if err != nil {
		return err
	}
	imported, failed := 0, 0
	for _, f := range files {
		if h, err := session.ReadHeader(f); err == nil && slices.Contains(have, h.ID) {
			fmt.Fprintf(stdout, "%s: already in the database (%.8s)\n", f, h.ID)
			continue
		}
		id, warnings, err := st.Import(ctx, f)
		for _, w := range warnings {
			fmt.Fprintf(stderr, "%s: %s\n", f, w)
		}
		if err != nil {
			fmt.Fprintln(stderr, err)
			failed++
			continue
		}
		imported++
		fmt.Fprintf(stdout, "%s → %.8s\n", f, id)
	}
	fmt.Fprintf(stdout, "%d imported into %s; the files are left as they were\n", imported, st.Path())
	if failed > 0 {
		return fmt.Errorf("%d files could not be imported", failed)
	}
	return nil
}

// everyFile lists the session files of every folder under $PI_HOME/sessions and session_dir.
func everyFile(env CommandEnv) ([]string, error) {
	dirs := []string{}
	if env.SessionDir != "" {
		dirs = append(dirs, env.SessionDir)
	}
	root := session.SessionsRoot(env.Home)
	ents, err := os.ReadDir(root)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("list %s: %w", root, err)
	}
	for _, e := range ents {
		if e.IsDir() {
			dirs = append(dirs, filepath.Join(root, e.Name()))
		}
	}
	var files []string
	for _, d := range dirs {
		found, _ := filepath.Glob(filepath.Join(d, "*.jsonl"))
		files = append(files, found...)
	}
	return files, nil
}

func runExport(ctx context.Context, env CommandEnv, args []string, stdout io.Writer) error {
	fs := flag.NewFlagSet("export-jsonl", flag.ContinueOnError)
	all := fs.Bool("all", false, "every session in the database")
	dir := fs.String("dir", "", "write the files here instead of session_dir or each session's folder under $PI_HOME/sessions")
	if err := fs.Parse(args); err != nil {
		return err
	}
	st, err := database(ctx, env, "export-jsonl")
	if err != nil {
		return err
	}
	defer st.Close()
	var ids []string
	for _, ref := range fs.Args() {
		id, err := st.ref(ctx, ref)
		if err != nil {
			return err
		}
		ids = append(ids, id)
	}
	if *all {
		if ids, err = st.IDs(ctx); err != nil {
			return err
		}
	}
	if len(ids) == 0 {
		return errors.New("name the sessions to export (id prefixes), or --all")
	}
	for _, id := range ids {
		to := cmp.Or(*dir, env.SessionDir) // where pi looks for this session's file
		if to == "" {
			var cwd string
			if err := st.db.QueryRowContext(ctx, `SELECT cwd FROM sessions WHERE id = ?`, id).Scan(&cwd); err != nil {
				return fmt.Errorf("export session %s: %w", id, err)
			}
			to = session.Dir(env.Home, cwd)
		}
		path, err := st.ExportFile(ctx, id, to)
		if err != nil {
			return err
		}
		fmt.Fprintln(stdout, path)
	}
	return nil
}
