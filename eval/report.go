package eval

// Results: one run's, the totals, the JSON file, and the table.

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"pi/provider"
	"sort"
	"strings"
	"text/tabwriter"
	"time"
)

// runResult is the outcome of one run of one task.
type runResult struct {
	Task      string `json:"task"`
	Run       int    `json:"run"`
	Pass      bool   `json:"pass"`
	Reason    string `json:"reason,omitempty"`
	Turns     int    `json:"turns"`
	ToolCalls int    `json:"toolCalls"`
	// TextCalls is how many of ToolCalls the model wrote as text and pi recovered.
	TextCalls int `json:"textCalls"`
	// TextFormats counts the recovered calls by the shape the model wrote them in.
	TextFormats map[string]int `json:"textFormats,omitempty"`
	ToolErrors  int            `json:"toolErrors"`
	TokensIn    int            `json:"tokensIn"`
	TokensOut   int            `json:"tokensOut"`
	CacheRead   int            `json:"cacheRead"`
	// Reprocessed is the prompt tokens the server evaluated rather than took from its cache;
	// nil when the provider gives no way to know. ReprocessedSource says how it was found:
	// "reported" by the server, "estimated" (Ollama, see reprocessed), or "n/a".
	Reprocessed       *int   `json:"reprocessed"`
	ReprocessedSource string `json:"reprocessedSource"`
	WallMs            int64  `json:"wallMs"`
	Answer            string `json:"answer,omitempty"`
	Scratch           string `json:"scratch,omitempty"`

	// ArgRetries counts calls whose invalid arguments were asked for again, constrained to the
	// tool's schema; ArgRetriesFixed those that then ran.
	ArgRetries      int `json:"argRetries"`
	ArgRetriesFixed int `json:"argRetriesFixed"`
}

// report is what --json writes and --compare reads.
type report struct {
	Model   string      `json:"model"`
	Started time.Time   `json:"started"`
	Tasks   string      `json:"tasks"`
	Runs    []runResult `json:"runs"`
	Totals  totals      `json:"totals"`
}

type totals struct {
	Runs        int            `json:"runs"`
	Passed      int            `json:"passed"`
	Turns       int            `json:"turns"`
	TextCalls   int            `json:"textCalls"`
	TextFormats map[string]int `json:"textFormats,omitempty"`
	ToolErrors  int            `json:"toolErrors"`
	TokensIn    int            `json:"tokensIn"`
	TokensOut   int            `json:"tokensOut"`
	Reprocessed *int           `json:"reprocessed"` // nil when no run could tell
	WallMs      int64          `json:"wallMs"`

	ArgRetries int `json:"argRetries"`
	ArgFixed   int `json:"argRetriesFixed"`
}

func totalsOf(runs []runResult) totals {
	var t totals
	for _, r := range runs {
		t.add(r)
	}
	return t
}

// add counts one run into the totals.
func (t *totals) add(r runResult) {
	t.Runs++
	if r.Pass {
		t.Passed++
	}
	t.Turns += r.Turns
	t.TextCalls += r.TextCalls
	for f, n := range r.TextFormats {
		if t.TextFormats == nil {
			t.TextFormats = map[string]int{}
		}
		t.TextFormats[f] += n
	}
	t.ToolErrors += r.ToolErrors
	t.ArgRetries += r.ArgRetries
	t.ArgFixed += r.ArgRetriesFixed
	t.TokensIn += r.TokensIn
	t.TokensOut += r.TokensOut
	t.WallMs += r.WallMs
	if r.Reprocessed != nil {
		t.Reprocessed = addPtr(t.Reprocessed, *r.Reprocessed)
	}
}

func addPtr(p *int, n int) *int {
	v := n
	if p != nil {
		v += *p
	}
	return &v
}

func writeReport(path string, rep *report) error {
	data, err := json.MarshalIndent(rep, "", "  ")
	if err != nil {
		return fmt.Errorf("encoding the results: %w", err)
	}
	if err := os.WriteFile(path, append(data, '\n'), 0o644); err != nil {
		return fmt.Errorf("writing the results to %s: %w", path, err)
	}
	return nil
}

func readReport(path string) (*report, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("reading results %s: %w", path, err)
	}
	var rep report
	if err := json.Unmarshal(data, &rep); err != nil {
		return nil, fmt.Errorf("results %s: %w", path, err)
	}
	return &rep, nil
}

// taskSummary is one task's runs added up, in the order the tasks ran.
type taskSummary struct {
	totals
	name         string
	reprocSource string
	reason       string // the first failure's
}

func summarize(runs []runResult) []*taskSummary {
	var out []*taskSummary
	byName := map[string]*taskSummary{}
	for _, r := range runs {
		s := byName[r.Task]
		if s == nil {
			s = &taskSummary{name: r.Task, reprocSource: r.ReprocessedSource}
			byName[r.Task] = s
			out = append(out, s)
		}
		if !r.Pass && s.reason == "" {
			s.reason = r.Reason
		}
		s.add(r)
	}
	return out
}

// passCell is "pass"/"FAIL" for one run and "k/n" for several.
func (s *taskSummary) passCell() string {
	if s.Runs == 1 {
		return passWord(s.Passed == 1)
	}
	return fmt.Sprintf("%d/%d", s.Passed, s.Runs)
}

// mean divides a sum over the task's runs, so that several runs read like one.
func (s *taskSummary) mean(sum int) int { return (sum + s.Runs/2) / s.Runs }

func (s *taskSummary) reprocCell() string {
	if s.Reprocessed == nil {
		return "n/a"
	}
	if s.reprocSource == "estimated" {
		return "~" + fmt.Sprint(s.mean(*s.Reprocessed))
	}
	return fmt.Sprint(s.mean(*s.Reprocessed))
}

func seconds(ms int64) string { return fmt.Sprintf("%.1fs", float64(ms)/1000) }

// printReport writes the table: a row per task (figures per run when there are several runs),
// then the totals over every run.
func printReport(w io.Writer, rep *report) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "model %s, tasks %s\n", rep.Model, rep.Tasks)
	fmt.Fprintln(tw, "TASK\tPASS\tTURNS\tTOOL ERR\tTEXT CALLS\tARG RETRY\tTOK IN\tTOK OUT\tRE-PROC\tWALL\tREASON")
	for _, s := range summarize(rep.Runs) {
		fmt.Fprintf(tw, "%s\t%s\t%d\t%d\t%d\t%s\t%d\t%d\t%s\t%s\t%s\n", s.name, s.passCell(), s.mean(s.Turns),
			s.mean(s.ToolErrors), s.mean(s.TextCalls), retryCell(s.mean(s.ArgFixed), s.mean(s.ArgRetries)), s.mean(s.TokensIn), s.mean(s.TokensOut), s.reprocCell(),
			seconds(int64(s.mean(int(s.WallMs)))), provider.OneLine(s.reason, 100))
	}
	t := rep.Totals
	reproc := "n/a"
	if t.Reprocessed != nil {
		reproc = fmt.Sprint(*t.Reprocessed)
	}
	fmt.Fprintf(tw, "TOTAL\t%d/%d\t%d\t%d\t%d\t%s\t%d\t%d\t%s\t%s\t%s\n", t.Passed, t.Runs, t.Turns, t.ToolErrors, t.TextCalls,
		retryCell(t.ArgFixed, t.ArgRetries), t.TokensIn, t.TokensOut, reproc, seconds(t.WallMs), passRate(t))
	tw.Flush()
	if line := formatsLine(t.TextFormats); line != "" {
		fmt.Fprintf(w, "text-call shapes: %s\n", line) // the model is named above
	}
}

// retryCell is "fixed/asked" of the constrained retries of arguments, "0" when none was asked.
func retryCell(fixed, asked int) string {
	if asked == 0 {
		return "0"
	}
	return fmt.Sprintf("%d/%d", fixed, asked)
}

func passRate(t totals) string {
	if t.Runs == 0 {
		return ""
	}
	return fmt.Sprintf("pass rate %.0f%%", 100*float64(t.Passed)/float64(t.Runs))
}

// formatsLine lists the shapes calls were recovered in, most used first: "qwen3_xml 3, glm 1".
func formatsLine(counts map[string]int) string {
	names := make([]string, 0, len(counts))
	for f := range counts {
		names = append(names, f)
	}
	sort.Slice(names, func(i, j int) bool {
		if counts[names[i]] != counts[names[j]] {
			return counts[names[i]] > counts[names[j]]
		}
		return names[i] < names[j]
	})
	parts := make([]string, len(names))
	for i, f := range names {
		parts[i] = fmt.Sprintf("%s %d", f, counts[f])
	}
	return strings.Join(parts, ", ")
}
