package tools

import (
	"fmt"
	"strings"
)

// diffContext is how many unchanged lines the edit diff shows around each change, as in pi.
const diffContext = 4

// maxDiffEdits bounds the line diff's work; past it the changed region is shown as one block.
const maxDiffEdits = 500

type lineOp struct {
	kind byte // ' ' unchanged, '-' removed, '+' added
	text string
}

// lineDiff returns the edit script from a to b: common ends trimmed, Myers' algorithm between.
func lineDiff(a, b []string) []lineOp {
	pre := 0
	for pre < len(a) && pre < len(b) && a[pre] == b[pre] {
		pre++
	}
	suf := 0
	for suf < len(a)-pre && suf < len(b)-pre && a[len(a)-1-suf] == b[len(b)-1-suf] {
		suf++
	}
	var ops []lineOp
	for _, l := range a[:pre] {
		ops = append(ops, lineOp{' ', l})
	}
	ops = append(ops, myers(a[pre:len(a)-suf], b[pre:len(b)-suf])...)
	for _, l := range a[len(a)-suf:] {
		ops = append(ops, lineOp{' ', l})
	}
	return ops
}

// myers is the O(ND) shortest edit script, falling back to "remove all, add all" when the
// inputs differ in more than maxDiffEdits lines.
func myers(a, b []string) []lineOp {
	n, m := len(a), len(b)
	limit := min(n+m, maxDiffEdits)
	off := limit + 1
	v := make([]int, 2*limit+3)
	var trace [][]int
	found := false
	for d := 0; d <= limit && !found; d++ {
		// keep the frontier this step starts from, k in [-d-1, d+1]: all the backtrack reads
		trace = append(trace, append([]int(nil), v[off-d-1:off+d+2]...))
		for k := -d; k <= d; k += 2 {
			var x int
			if k == -d || (k != d && v[off+k-1] < v[off+k+1]) {
				x = v[off+k+1]
			} else {
				x = v[off+k-1] + 1
			}
			y := x - k
			for x < n && y < m && a[x] == b[y] {
				x, y = x+1, y+1
			}
			v[off+k] = x
			if x >= n && y >= m {
				found = true
				break
			}
		}
	}
	if !found {
		ops := make([]lineOp, 0, n+m)
		for _, l := range a {
			ops = append(ops, lineOp{'-', l})
		}
		for _, l := range b {
			ops = append(ops, lineOp{'+', l})
		}
		return ops
	}
	return myersBacktrack(a, b, trace)
}

// myersBacktrack walks the saved frontiers from the end back to the start.
func myersBacktrack(a, b []string, trace [][]int) []lineOp {
	x, y := len(a), len(b)
	var rev []lineOp
	for d := len(trace) - 1; d >= 0; d-- {
		v, off := trace[d], d+1
		k := x - y
		var prevK int
		if k == -d || (k != d && v[off+k-1] < v[off+k+1]) {
			prevK = k + 1
		} else {
			prevK = k - 1
		}
		prevX := v[off+prevK]
		prevY := prevX - prevK
		for x > prevX && y > prevY {
			x, y = x-1, y-1
			rev = append(rev, lineOp{' ', a[x]})
		}
		if d > 0 {
			if x == prevX {
				y--
				rev = append(rev, lineOp{'+', b[y]})
			} else {
				x--
				rev = append(rev, lineOp{'-', a[x]})
			}
		}
	}
	for i, j := 0, len(rev)-1; i < j; i, j = i+1, j-1 {
		rev[i], rev[j] = rev[j], rev[i]
	}
	return rev
}

// editDiff renders the change from old to new in pi's diff format: each line is its mark
// (+, - or space), its line number padded to a common width, a space and the text, with "..."
// where unchanged lines are left out. It also returns the first changed line of new (1-based).
func editDiff(old, new string) (string, int) {
	a, b := diffLines(old), diffLines(new)
	ops := lineDiff(a, b)
	near := nearChange(ops)
	width := len(fmt.Sprint(max(len(a), len(b))))
	var out strings.Builder
	oldN, newN, first, skipped := 1, 1, 0, false
	for i, op := range ops {
		if op.kind != ' ' && first == 0 {
			first = newN
		}
		if !near[i] {
			skipped = true
			oldN, newN = oldN+1, newN+1
			continue
		}
		if skipped {
			fmt.Fprintf(&out, " %*s ...\n", width, "")
			skipped = false
		}
		switch op.kind {
		case '+':
			fmt.Fprintf(&out, "+%*d %s\n", width, newN, op.text)
			newN++
		case '-':
			fmt.Fprintf(&out, "-%*d %s\n", width, oldN, op.text)
			oldN++
		default:
			fmt.Fprintf(&out, " %*d %s\n", width, oldN, op.text)
			oldN, newN = oldN+1, newN+1
		}
	}
	if skipped {
		fmt.Fprintf(&out, " %*s ...\n", width, "")
	}
	return strings.TrimSuffix(out.String(), "\n"), first
}

// diffLines splits text into lines; a final newline ends the last line rather than adding one.
func diffLines(s string) []string {
	return strings.Split(strings.TrimSuffix(s, "\n"), "\n")
}

// nearChange marks the ops to show: changes and the unchanged lines within diffContext of one.
func nearChange(ops []lineOp) []bool {
	near := make([]bool, len(ops))
	dist := diffContext + 1
	for i := range ops {
		if ops[i].kind != ' ' {
			dist = 0
		} else {
			dist++
		}
		near[i] = dist <= diffContext
	}
	dist = diffContext + 1
	for i := len(ops) - 1; i >= 0; i-- {
		if ops[i].kind != ' ' {
			dist = 0
		} else {
			dist++
		}
		near[i] = near[i] || dist <= diffContext
	}
	return near
}
