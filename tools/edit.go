package tools

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
)

// EditDetails is the details of an edit result: the change in pi's diff format (see editDiff)
// and the first changed line of the new file, for the UI to show and jump to.
type EditDetails struct {
	Diff             string `json:"diff"`
	FirstChangedLine int    `json:"firstChangedLine,omitempty"`
}

// editParameters makes edits optional only so that the older single-edit form validates.
const editParameters = `{"type":"object","properties":{` +
	`"path":{"type":"string"},` +
	`"edits":{"type":"array","minItems":1,` +
	`"items":{"type":"object","properties":{` +
	`"oldText":{"type":"string"},` +
	`"newText":{"type":"string"}},` +
	`"required":["oldText","newText"],"additionalProperties":false}}},` +
	`"required":["path"]}`

func newEdit(env *Env) Tool {
	return &Func{Spec: Info{
		Name: "edit",
		Description: "Edit a file by replacing exact text. Each oldText must occur exactly once in the original file; " +
			"edits must not overlap.",
		Parameters: json.RawMessage(editParameters),
		Guidelines: []string{"Keep oldText short but unique; copy it exactly from what read showed."},
	}, Run: func(ctx context.Context, _ string, args map[string]any, _ func(Result)) (Result, error) {
		return runEdit(ctx, env, args)
	}, Changes: pathChanges(env, "path")}
}

// editArgs collects the edits from `edits` and from top-level oldText/newText, the form of pi's
// older edit tool that models still send (left out of the schema to keep the prompt short); a
// model may also send `edits` as a JSON string.
func editArgs(args map[string]any) ([]Edit, error) {
	var edits []Edit
	switch v := args["edits"].(type) {
	case nil:
	case string:
		if err := json.Unmarshal([]byte(v), &edits); err != nil {
			return nil, fmt.Errorf("argument \"edits\" is a string that is not a JSON array of {oldText, newText}: %w", err)
		}
	case []any:
		for i, item := range v {
			m, ok := item.(map[string]any)
			if !ok {
				return nil, fmt.Errorf("edits[%d] must be an object with oldText and newText", i)
			}
			old, _, err1 := argString(m, "oldText")
			nw, _, err2 := argString(m, "newText")
			if err := errors.Join(err1, err2); err != nil {
				return nil, fmt.Errorf("edits[%d]: %w", i, err)
			}
			edits = append(edits, Edit{old, nw})
		}
	default:
		return nil, fmt.Errorf("argument \"edits\" must be an array, got %T", v)
	}
	old, hasOld, err1 := argString(args, "oldText")
	nw, hasNew, err2 := argString(args, "newText")
	if err := errors.Join(err1, err2); err != nil {
		return nil, err
	}
	if hasOld || hasNew {
		edits = append(edits, Edit{old, nw})
	}
	if len(edits) == 0 {
		return nil, errors.New("no edits given: pass edits as [{oldText, newText}]")
	}
	return edits, nil
}

func runEdit(ctx context.Context, env *Env, args map[string]any) (Result, error) {
	name, path, err := argPath(env, args, "path", true)
	if err != nil {
		return Result{}, err
	}
	edits, err := editArgs(args)
	if err != nil {
		return Result{}, err
	}
	key := lockKey(path)
	unlock, err := env.lockPath(ctx, key)
	if err != nil {
		return Result{}, err
	}
	defer unlock()
	data, err := readForEdit(ctx, key, name)
	if err != nil {
		return Result{}, err
	}
	if env.changedSince(key, data) {
		return Result{}, fmt.Errorf("%s changed on disk since you last read or wrote it; read it again before editing", name)
	}
	oldLF, newLF, out, err := editContent(string(data), edits, name)
	if err != nil {
		return Result{}, err
	}
	outBytes := []byte(out)
	if err := replaceFile(key, outBytes); err != nil {
		return Result{}, fmt.Errorf("cannot write %s: %w", name, err)
	}
	env.remember(key, outBytes)
	diff, first := editDiff(oldLF, newLF)
	n := len(edits)
	plural := "s"
	if n == 1 {
		plural = ""
	}
	res := TextResult(fmt.Sprintf("Replaced %d block%s in %s.", n, plural, name))
	res.Details = EditDetails{Diff: diff, FirstChangedLine: first}
	return res, nil
}

// EditPreview computes the diff an edit call would make without writing anything, so a UI can
// show it while the call waits (pi shows it before the tool runs). Errors are the ones the call
// itself would return.
func EditPreview(ctx context.Context, env *Env, args map[string]any) (EditDetails, error) {
	name, path, err := argPath(env, args, "path", true)
	if err != nil {
		return EditDetails{}, err
	}
	edits, err := editArgs(args)
	if err != nil {
		return EditDetails{}, err
	}
	data, err := readForEdit(ctx, path, name)
	if err != nil {
		return EditDetails{}, err
	}
	oldLF, newLF, _, err := editContent(string(data), edits, name)
	if err != nil {
		return EditDetails{}, err
	}
	diff, first := editDiff(oldLF, newLF)
	return EditDetails{Diff: diff, FirstChangedLine: first}, nil
}

// readForEdit reads the file to edit, refusing one over maxReadFileSize as read does: the
// edit holds the file several times over, old and new, and the model cannot have read it.
func readForEdit(ctx context.Context, path, name string) ([]byte, error) {
	return readWhole(ctx, path, name, "edit", "change it with bash (sed -i, or a script)")
}

// editContent applies edits to a file's text, matching on LF line endings without a BOM and
// restoring both in the result. It returns the old and new text in LF form too, for the diff.
func editContent(text string, edits []Edit, name string) (oldLF, newLF, out string, err error) {
	bom := strings.HasPrefix(text, "\uFEFF")
	text = strings.TrimPrefix(text, "\uFEFF")
	crlf := usesCRLF(text)
	oldLF = strings.ReplaceAll(text, "\r\n", "\n")
	lf := make([]Edit, len(edits))
	for i, e := range edits {
		lf[i] = Edit{strings.ReplaceAll(e.OldText, "\r\n", "\n"), strings.ReplaceAll(e.NewText, "\r\n", "\n")}
	}
	newLF, _, err = applyEdits(oldLF, lf, name)
	if err != nil {
		return "", "", "", err
	}
	out = newLF
	if crlf {
		out = strings.ReplaceAll(out, "\n", "\r\n")
	}
	if bom {
		out = "\uFEFF" + out
	}
	return oldLF, newLF, out, nil
}

// usesCRLF reports whether the file's first line break is CRLF, which then applies to all.
func usesCRLF(s string) bool {
	i := strings.IndexByte(s, '\n')
	return i > 0 && s[i-1] == '\r'
}
