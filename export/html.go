// Package export writes a session as one self-contained HTML page to share: the conversation
// rendered as markdown with highlighted code, tool calls and their results and the model's
// thinking in collapsible blocks, images inline (as data: URLs), the models and the token and
// cost totals, and, when the session has branches, the session tree as an outline whose rows
// link to the messages, every branch on the page. The page loads nothing from the network and
// runs no script; it has a light and a dark look following the reader's preference.
//
// It reads a session through session's public API and imports only session and provider of
// this module. Keys never appear: they never enter a session.
package export

import (
	"bytes"
	"context"
	_ "embed"
	"fmt"
	"html/template"
	"io"
	"os"
	"path/filepath"
	"strings"

	"pi/session"
)

// Options say what the page is called and which model the session runs now.
type Options struct {
	Title string // "" is the session's name, or "pi session <id>"
	Model string // the current model, "provider/id"
}

// HTML writes sess as a page.
func HTML(w io.Writer, sess *session.Session, o Options) error {
	entries, err := sess.Entries()
	if err != nil {
		return fmt.Errorf("export of session %s: %w", sess.ID(), err)
	}
	p := buildPage(sess, entries, o)
	if err := pageTemplate().Execute(w, p); err != nil {
		return fmt.Errorf("writing the HTML page of session %s: %w", sess.ID(), err)
	}
	return nil
}

// File writes sess's page to path and returns the absolute path; "" means
// pi-session-<session file name>.html in cwd.
func File(sess *session.Session, o Options, cwd, path string) (string, error) {
	if path == "" {
		base := strings.TrimSuffix(filepath.Base(sess.Path()), ".jsonl")
		if sess.Path() == "" {
			base = sess.ID()
		}
		path = filepath.Join(cwd, "pi-session-"+base+".html")
	} else if !filepath.IsAbs(path) {
		path = filepath.Join(cwd, path)
	}
	var buf bytes.Buffer
	if err := HTML(&buf, sess, o); err != nil {
		return "", err
	}
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		return "", fmt.Errorf("export to %s: %w", path, err)
	}
	return path, nil
}

// pageTemplate escapes every text it inserts (html/template); the parts rendered from
// markdown arrive as template.HTML from goldmark, which drops raw HTML and unsafe links.
func pageTemplate() *template.Template {
	return template.Must(template.New("page").Parse(pageHTML))
}

//go:embed page.html
var pageHTML string

// SessionFile is pi --export: it finds the session ref names (a file, or the start of a
// session id among piHome's sessions, this folder's first), opens it (failing while another
// pi holds it) and writes its page to path as File does, relative to the working directory.
func SessionFile(ctx context.Context, ref, piHome, path string) (string, error) {
	cwd, err := os.Getwd()
	if err != nil {
		return "", fmt.Errorf("finding the working directory: %w", err)
	}
	file, err := session.Resolve(ref, session.Dir(piHome, cwd), session.SessionsRoot(piHome))
	if err != nil {
		return "", err
	}
	sess, err := session.Open(ctx, file)
	if err != nil {
		return "", err
	}
	defer sess.Close()
	return File(sess, Options{}, cwd, path)
}
