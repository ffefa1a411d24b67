package eval

// --compare: two result files side by side.

import (
	"fmt"
	"io"
	"slices"
	"text/tabwriter"
)

// runCompare prints two result files side by side, a row per task that either holds.
// With htmlOut it also writes them as one page.
func runCompare(files []string, htmlOut string, stdout, stderr io.Writer) int {
	if len(files) != 2 {
		fmt.Fprintln(stderr, "pi eval --compare: give two result files: pi eval --compare a.json b.json")
		return 2
	}
	var reps [2]*report
	for i, f := range files {
		rep, err := readReport(f)
		if err != nil {
			fmt.Fprintln(stderr, "pi eval:", err)
			return 1
		}
		reps[i] = rep
	}
	printCompare(stdout, files, reps)
	if htmlOut != "" {
		if err := writeHTML(htmlOut, files, reps[:]); err != nil {
			fmt.Fprintln(stderr, "pi eval:", err)
			return 1
		}
	}
	return 0
}

func printCompare(w io.Writer, files []string, reps [2]*report) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	for i, tag := range []string{"A", "B"} {
		fmt.Fprintf(tw, "%s: %s (%s, %s)\n", tag, reps[i].Model, files[i], reps[i].Started.Format("2006-01-02 15:04"))
	}
	fmt.Fprintln(tw, "TASK\tPASS A\tPASS B\tTURNS A\tTURNS B\tTOK IN A\tTOK IN B\tWALL A\tWALL B\t")
	a, b := summaryMap(reps[0].Runs), summaryMap(reps[1].Runs)
	for _, name := range taskNames(reps[:]) {
		sa, sb := a[name], b[name]
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", name, cell(sa, (*taskSummary).passCell), cell(sb, (*taskSummary).passCell),
			cell(sa, func(s *taskSummary) string { return fmt.Sprint(s.mean(s.Turns)) }),
			cell(sb, func(s *taskSummary) string { return fmt.Sprint(s.mean(s.Turns)) }),
			cell(sa, func(s *taskSummary) string { return fmt.Sprint(s.mean(s.TokensIn)) }),
			cell(sb, func(s *taskSummary) string { return fmt.Sprint(s.mean(s.TokensIn)) }),
			cell(sa, func(s *taskSummary) string { return seconds(int64(s.mean(int(s.WallMs)))) }),
			cell(sb, func(s *taskSummary) string { return seconds(int64(s.mean(int(s.WallMs)))) }),
			verdict(sa, sb))
	}
	ta, tb := reps[0].Totals, reps[1].Totals
	fmt.Fprintf(tw, "TOTAL\t%d/%d\t%d/%d\t%d\t%d\t%d\t%d\t%s\t%s\t\n", ta.Passed, ta.Runs, tb.Passed, tb.Runs,
		ta.Turns, tb.Turns, ta.TokensIn, tb.TokensIn, seconds(ta.WallMs), seconds(tb.WallMs))
	tw.Flush()
}

func summaryMap(runs []runResult) map[string]*taskSummary {
	m := map[string]*taskSummary{}
	for _, s := range summarize(runs) {
		m[s.name] = s
	}
	return m
}

// taskNames is every task of either report: A's order, then B's extra ones.
func taskNames(reps []*report) []string {
	var names []string
	for _, rep := range reps {
		for _, s := range summarize(rep.Runs) {
			if !slices.Contains(names, s.name) {
				names = append(names, s.name)
			}
		}
	}
	return names
}

func cell(s *taskSummary, f func(*taskSummary) string) string {
	if s == nil {
		return "-"
	}
	return f(s)
}

// verdict says which side passed more often, when they differ.
func verdict(a, b *taskSummary) string {
	if a == nil || b == nil {
		return ""
	}
	ra, rb := float64(a.Passed)/float64(a.Runs), float64(b.Passed)/float64(b.Runs)
	switch {
	case rb > ra:
		return "B better"
	case ra > rb:
		return "A better"
	}
	return ""
}
