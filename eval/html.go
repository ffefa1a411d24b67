package eval

// --html: the results as one self-contained page — a table and bar charts drawn as inline SVG,
// with no script, font or picture fetched from anywhere — so a person sees at a glance which
// tasks failed and where the tokens and seconds went.

import (
	"bytes"
	"fmt"
	"html/template"
	"os"
	"pi/provider"
)

// series is one result file on the page: A, or A and B with --compare.
type series struct {
	Tag, Model, File, Started string
	Class                     string // "a" or "b": the bars' colour
	Totals                    totals
	byTask                    map[string]*taskSummary
}

// Wall is the series' total time.
func (s *series) Wall() string { return seconds(s.Totals.WallMs) }

// pageRow is one task's line of the table: a cell group per series.
type pageRow struct {
	Task  string
	Cells []pageCell
}

type pageCell struct {
	Present               bool
	Pass                  string // "pass", "FAIL" or "k/n"
	Passed                bool   // every run passed
	TokensIn, Reprocessed string
	Wall, Reason          string
}

// chart is one bar chart: a group of bars per task, one bar per series.
type chart struct {
	Title, Unit   string
	Width, Height int
	Labels        []chartLabel
	Bars          []chartBar
}

type chartLabel struct {
	Y    int
	Text string
}

type chartBar struct {
	Task, Tag, Class string
	X, Y, W, H       int
	Value            string
	Failed           bool
	TextX, TextY     int
}

// Chart geometry, in SVG user units (pixels at 100%).
const (
	chartLabelWidth = 190
	chartBarsWidth  = 420
	chartBarHeight  = 14
	chartGap        = 8
)

// metric is one chart's figure of a task's runs (mean per run); ok false when not known.
type metric struct {
	title, unit string
	value       func(s *taskSummary) (float64, bool)
	format      func(v float64) string
}

func metrics() []metric {
	count := func(v float64) string { return fmt.Sprintf("%.0f", v) }
	return []metric{
		{"Time per run", "seconds", func(s *taskSummary) (float64, bool) { return float64(s.mean(int(s.WallMs))) / 1000, true },
			func(v float64) string { return fmt.Sprintf("%.1fs", v) }},
		{"Prompt tokens per run", "tokens", func(s *taskSummary) (float64, bool) { return float64(s.mean(s.TokensIn)), true }, count},
		{"Re-processed prompt tokens per run", "tokens", func(s *taskSummary) (float64, bool) {
			if s.Reprocessed == nil {
				return 0, false
			}
			return float64(s.mean(*s.Reprocessed)), true
		}, count},
		{"Turns per run", "turns", func(s *taskSummary) (float64, bool) { return float64(s.mean(s.Turns)), true }, count},
	}
}

// writeHTML writes the page for one report, or two side by side (files name them).
func writeHTML(path string, files []string, reps []*report) error {
	page := buildPage(files, reps)
	var b bytes.Buffer
	if err := pageTemplate().Execute(&b, page); err != nil {
		return fmt.Errorf("rendering the results page: %w", err)
	}
	if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
		return fmt.Errorf("writing the results page to %s: %w", path, err)
	}
	return nil
}

type page struct {
	Title  string
	Series []*series
	Rows   []pageRow
	Charts []chart
}

func buildPage(files []string, reps []*report) page {
	p := page{}
	for i, rep := range reps {
		s := &series{Tag: string(rune('A' + i)), Model: rep.Model, File: files[i], Class: string(rune('a' + i)),
			Started: rep.Started.Format("2006-01-02 15:04"), Totals: rep.Totals, byTask: summaryMap(rep.Runs)}
		p.Series = append(p.Series, s)
	}
	p.Title = "pi eval: " + reps[0].Model
	if len(reps) == 2 {
		p.Title = fmt.Sprintf("pi eval: %s (A) and %s (B)", reps[0].Model, reps[1].Model)
	}
	names := taskNames(reps)
	for _, name := range names {
		p.Rows = append(p.Rows, pageRow{Task: name, Cells: cellsOf(name, p.Series)})
	}
	for _, m := range metrics() {
		p.Charts = append(p.Charts, drawChart(m, names, p.Series))
	}
	return p
}

func cellsOf(name string, all []*series) []pageCell {
	var cells []pageCell
	for _, s := range all {
		t := s.byTask[name]
		if t == nil {
			cells = append(cells, pageCell{})
			continue
		}
		cells = append(cells, pageCell{Present: true, Pass: t.passCell(), Passed: t.Passed == t.Runs,
			TokensIn: fmt.Sprint(t.mean(t.TokensIn)), Reprocessed: t.reprocCell(),
			Wall: seconds(int64(t.mean(int(t.WallMs)))), Reason: provider.OneLine(t.reason, 160)})
	}
	return cells
}

// drawChart lays out one chart: per task a label and a bar per series, as long as its value
// against the largest value of the chart. A failed task's bar is marked.
func drawChart(m metric, names []string, all []*series) chart {
	c := chart{Title: m.title, Unit: m.unit, Width: chartLabelWidth + chartBarsWidth + 70}
	top := 0.0
	for _, name := range names {
		for _, s := range all {
			if t := s.byTask[name]; t != nil {
				if v, ok := m.value(t); ok && v > top {
					top = v
				}
			}
		}
	}
	y := chartGap
	for _, name := range names {
		c.Labels = append(c.Labels, chartLabel{Y: y + chartBarHeight*len(all)/2 + 4, Text: name})
		for _, s := range all {
			c.Bars = append(c.Bars, barFor(m, s, name, y, top))
			y += chartBarHeight + 2
		}
		y += chartGap
	}
	c.Height = y
	return c
}

func barFor(m metric, s *series, name string, y int, top float64) chartBar {
	b := chartBar{Task: name, Tag: s.Tag, Class: s.Class, X: chartLabelWidth, Y: y, H: chartBarHeight, Value: "n/a"}
	t := s.byTask[name]
	if t == nil {
		b.Value = "-"
	} else if v, ok := m.value(t); ok {
		b.Value, b.Failed = m.format(v), t.Passed < t.Runs
		if top > 0 {
			b.W = max(1, int(v/top*chartBarsWidth+0.5))
		}
	}
	b.TextX, b.TextY = b.X+b.W+4, y+chartBarHeight-3
	return b
}

// pageTemplate is parsed per page (a fraction of a millisecond) so the package keeps no state.
func pageTemplate() *template.Template {
	return template.Must(template.New("page").Parse(pageHTML))
}

const pageHTML = `<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8">
<title>{{.Title}}</title>
<style>
body { font: 14px/1.4 system-ui, sans-serif; margin: 2em; color: #222; }
table { border-collapse: collapse; margin: 1em 0; }
th, td { border: 1px solid #ccc; padding: 3px 8px; text-align: left; vertical-align: top; }
td.pass { background: #e3f5e1; } td.fail { background: #fbe2e0; }
.reason { color: #666; font-size: 12px; max-width: 30em; }
svg.chart { display: block; margin: 0.5em 0 1.5em; }
svg text { font: 12px system-ui, sans-serif; fill: #222; }
rect.a { fill: #3b6fb6; } rect.b { fill: #e08a2c; }
rect.failed { stroke: #c0302a; stroke-width: 2; }
.key { margin: 0.2em 0; } .key span { display: inline-block; width: 12px; height: 12px; margin-right: 6px; vertical-align: middle; }
.key .a { background: #3b6fb6; } .key .b { background: #e08a2c; }
</style></head><body>
<h1>{{.Title}}</h1>
{{range .Series}}<p class="key"><span class="{{.Class}}"></span>{{.Tag}}: {{.Model}} ({{.File}}, {{.Started}}) — passed {{.Totals.Passed}}/{{.Totals.Runs}}, {{.Totals.TokensIn}} prompt tokens{{with .Totals.Reprocessed}}, {{.}} re-processed{{end}}, {{.Wall}}</p>
{{end}}
<table class="results">
<tr><th>task</th>{{range .Series}}<th>pass {{.Tag}}</th><th>tokens in {{.Tag}}</th><th>re-processed {{.Tag}}</th><th>time {{.Tag}}</th>{{end}}</tr>
{{range .Rows}}<tr><td>{{.Task}}</td>{{range .Cells}}{{if .Present}}<td class="{{if .Passed}}pass{{else}}fail{{end}}">{{.Pass}}{{with .Reason}}<div class="reason">{{.}}</div>{{end}}</td><td>{{.TokensIn}}</td><td>{{.Reprocessed}}</td><td>{{.Wall}}</td>{{else}}<td>-</td><td>-</td><td>-</td><td>-</td>{{end}}{{end}}</tr>
{{end}}</table>
<p>A bar with a red outline is a task that failed in some run. Re-processed tokens are the prompt tokens the server evaluated rather than took from its cache (n/a where it gives no way to know).</p>
{{range .Charts}}<h2>{{.Title}}</h2>
<svg class="chart" xmlns="http://www.w3.org/2000/svg" width="{{.Width}}" height="{{.Height}}" viewBox="0 0 {{.Width}} {{.Height}}" role="img" aria-label="{{.Title}} ({{.Unit}})">
{{range .Labels}}<text x="4" y="{{.Y}}">{{.Text}}</text>
{{end}}{{range .Bars}}<rect class="bar {{.Class}}{{if .Failed}} failed{{end}}" data-task="{{.Task}}" data-series="{{.Tag}}" x="{{.X}}" y="{{.Y}}" width="{{.W}}" height="{{.H}}"><title>{{.Task}} {{.Tag}}: {{.Value}}</title></rect><text x="{{.TextX}}" y="{{.TextY}}">{{.Value}}</text>
{{end}}</svg>
{{end}}</body></html>
`
