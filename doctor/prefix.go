package doctor

// The three-turn probe: prefill and decode speed from the server's timings, and whether the
// server re-uses the prompt prefix from one turn to the next.

import (
	"context"
	"fmt"
	"math"
	"strings"
	"time"

	"pi/provider"
)

// Bounds of the turns probe's prompt: long enough that evaluating it takes measurable time
// (about prefillTarget at the rate the tool probe saw), short enough for a slow model.
const (
	prefillTarget   = 1500 * time.Millisecond
	minProbeTokens  = 300
	maxProbeTokens  = 6000
	minTimeable     = 20 * time.Millisecond // a whole prompt evaluated faster is lost in the noise
	probeTurnTokens = 24                    // each reply's cap
)

var turnAsks = []string{"Say one short sentence about tests.", "Say one more.", "And a last one."}

// turns runs three turns of one conversation over a long stable system prompt that starts with
// a nonce, so the first is evaluated cold. first is the tool probe's timings, which size it.
func (pr *prober) turns(ctx context.Context, first *provider.Timings) (Prefix, Speed) {
	system := "Probe " + nonce() + " of pi doctor. Notes follow; answer the user in one sentence.\n" +
		filler(probeTokens(first, pr.m.ContextWindow)*charsPerToken(first))
	var msgs []provider.Message
	var turns []TurnTiming
	var out, outTime = 0, time.Duration(0)
	if first != nil {
		out, outTime = first.OutputTokens, first.OutputTime
	}
	for _, ask := range turnAsks {
		msgs = append(msgs, provider.UserText(ask, time.Now().UnixMilli()))
		reply := pr.stream(ctx, &provider.Request{SystemPrompt: system, Messages: msgs,
			Options: provider.Options{MaxTokens: probeTurnTokens}})
		if why := pr.failure(&reply); why != "" {
			return Prefix{Verdict: PrefixUnknown, Turns: turns, Note: fmt.Sprintf("turn %d: %s", len(turns)+1, why)},
				speedOf(turns, out, outTime, "turn "+fmt.Sprint(len(turns)+1)+": "+why)
		}
		if reply.Usage == nil || reply.Usage.Timings == nil {
			note := "the server gives no timings (Ollama and llama.cpp do)"
			return Prefix{Verdict: PrefixUnknown, Note: note}, Speed{Note: note, DecodeNote: note}
		}
		t := reply.Usage.Timings
		turns = append(turns, TurnTiming{PromptTokens: t.PromptTokens, OutputTokens: t.OutputTokens, Cached: t.Cached,
			PromptMs: float64(t.PromptTime) / float64(time.Millisecond)})
		out, outTime = out+t.OutputTokens, outTime+t.OutputTime
		msgs = append(msgs, reply)
	}
	verdict, note := prefixVerdict(turns)
	return Prefix{Verdict: verdict, Turns: turns, Note: note}, speedOf(turns, out, outTime, "")
}

// speedOf is prefill from the first (cold) turn and decode over every reply.
func speedOf(turns []TurnTiming, out int, outTime time.Duration, failed string) Speed {
	var s Speed
	if len(turns) > 0 && turns[0].PromptMs > 0 {
		t := turns[0]
		s.Prefill = float64(t.PromptTokens-t.Cached) / (t.PromptMs / 1000)
		s.Note = fmt.Sprintf("server timings: %d prompt tokens in %.2fs", t.PromptTokens-t.Cached, t.PromptMs/1000)
	}
	if out > 0 && outTime > 0 {
		s.Decode = float64(out) / outTime.Seconds()
		s.DecodeNote = fmt.Sprintf("server timings: %d output tokens in %.2fs", out, outTime.Seconds())
	}
	if failed != "" {
		s.Note = strings.TrimPrefix(s.Note+"; "+failed, "; ")
	}
	return s
}

// probeTokens sizes the turns probe's prompt from the tool probe's prefill rate.
func probeTokens(first *provider.Timings, window int) int {
	n := 600
	if first != nil {
		if r := first.PromptRate(); r > 0 {
			n = int(r * prefillTarget.Seconds())
		}
	}
	top := maxProbeTokens
	if window > 0 {
		top = min(top, window/2)
	}
	return max(min(n, top), min(minProbeTokens, top))
}

// charsPerToken is the tool probe's characters per prompt token, 4 when unknown; the template
// and the tool's schema add tokens, so this errs short.
func charsPerToken(first *provider.Timings) int {
	if first == nil || first.PromptTokens == 0 {
		return 4
	}
	n := (len(probeSystem) + len(toolAsk) + len(readToolSchema) + 40) / first.PromptTokens
	return max(1, min(n, 6))
}

// filler is about n characters of plain numbered notes.
func filler(n int) string {
	var b strings.Builder
	for i := 1; b.Len() < n; i++ {
		fmt.Fprintf(&b, "Note %d: the build step %d keeps its cache between runs of the suite.\n", i, i*7%100)
	}
	return b.String()
}

// prefixVerdict judges the turns. Turn 1 is cold and gives the rate at which the server
// evaluates prompt tokens. A later turn whose prefix is re-used evaluates only what was
// appended (its prompt minus the previous prompt and reply); one whose prefix is not re-used
// evaluates the whole prompt again. A turn counts as re-used when its time is nearer (on a
// log scale) to the first than to the second. llama.cpp says how much it took from its cache,
// which settles it directly.
func prefixVerdict(turns []TurnTiming) (string, string) {
	if len(turns) < 2 {
		return PrefixUnknown, "fewer than two turns answered"
	}
	if turns[1].Cached > 0 || turns[len(turns)-1].Cached > 0 {
		return cachedVerdict(turns)
	}
	first := turns[0]
	if first.PromptMs <= 0 || first.PromptTokens == 0 {
		return PrefixUnknown, "the server gave no prompt time"
	}
	msPerToken := first.PromptMs / float64(first.PromptTokens)
	if float64(turns[len(turns)-1].PromptTokens)*msPerToken < float64(minTimeable)/float64(time.Millisecond) {
		return PrefixUnknown, fmt.Sprintf("the whole prompt takes %.1f ms to evaluate, too little to tell", first.PromptMs)
	}
	reused, times := 0, []string{}
	for k := 1; k < len(turns); k++ {
		prev, t := turns[k-1], turns[k]
		appended := max(1, t.PromptTokens-prev.PromptTokens-prev.OutputTokens)
		ifReused, ifNot := float64(appended)*msPerToken, float64(t.PromptTokens)*msPerToken
		if t.PromptMs < math.Sqrt(ifReused*ifNot) {
			reused++
		}
		times = append(times, fmt.Sprintf("%.0f ms", t.PromptMs))
	}
	how := fmt.Sprintf("turns 2-%d took %s for %d-%d prompt tokens; turn 1 (cold) %.0f ms for %d", len(turns),
		strings.Join(times, ", "), turns[1].PromptTokens, turns[len(turns)-1].PromptTokens, first.PromptMs, first.PromptTokens)
	switch reused {
	case len(turns) - 1:
		return PrefixReused, how
	case 0:
		return PrefixNotReused, how + ": each turn evaluated the whole prompt again"
	}
	return PrefixPartly, how
}

func cachedVerdict(turns []TurnTiming) (string, string) {
	reused := 0
	var parts []string
	for k := 1; k < len(turns); k++ {
		if turns[k].Cached*10 >= turns[k-1].PromptTokens*9 {
			reused++
		}
		parts = append(parts, fmt.Sprintf("%d of %d", turns[k].Cached, turns[k].PromptTokens))
	}
	how := "the server took " + strings.Join(parts, ", ") + " prompt tokens from its cache in turns 2-" + fmt.Sprint(len(turns))
	switch reused {
	case len(turns) - 1:
		return PrefixReused, how
	case 0:
		return PrefixNotReused, how
	}
	return PrefixPartly, how
}
