package subagent

// when.go reads the schedule of a deferred Agent call. The grammar, case-insensitive:
//
//	in DURATION              once, DURATION from now              in 10m, in 1h30m, in 2 hours
//	at HH:MM                 once, the next HH:MM (today, else tomorrow), local time
//	at YYYY-MM-DD HH:MM      once, then (local time); RFC 3339 is accepted too
//	every DURATION           repeatedly, first DURATION from now  every 1h, every 30m
//	every day at HH:MM       repeatedly, each day at HH:MM local time
//
// DURATION is one or more NUMBER UNIT pairs, UNIT one of s, m, h, d (or second(s), minute(s),
// min(s), hour(s), day(s)). A run is at most a year ahead; a repeating one at least a minute
// apart, so that a schedule cannot keep a local model busy with nothing else.

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"
	"unicode"
)

// Bounds of a schedule.
const (
	MaxScheduleAhead = 366 * 24 * time.Hour
	MinScheduleEvery = time.Minute
)

// When is a schedule as read: its first run and, for a repeating one, how it repeats.
type When struct {
	Text  string        // as written, trimmed
	First time.Time     // the first run
	Every time.Duration // 0: it runs once
	Daily bool          // every day at the same local time (Every is 24h)
}

const grammarHint = `want "in 10m", "at 14:30", "at 2026-12-31 09:00", "every 1h" or "every day at 09:00"`

// ParseWhen reads a schedule as of now (whose location is the local time of "at").
func ParseWhen(text string, now time.Time) (When, error) {
	w := When{Text: strings.Join(strings.Fields(text), " ")}
	word, rest, _ := strings.Cut(strings.ToLower(w.Text), " ")
	var err error
	switch word {
	case "in":
		var d time.Duration
		if d, err = parseDuration(rest); err == nil {
			w.First, err = now.Add(d), ahead(d)
		}
	case "at":
		w.First, err = parseAt(rest, now)
	case "every":
		if clock, ok := strings.CutPrefix(rest, "day at "); ok {
			w.Every, w.Daily = 24*time.Hour, true
			w.First, err = nextClock(clock, now)
			break
		}
		if w.Every, err = parseDuration(rest); err == nil {
			w.First, err = now.Add(w.Every), ahead(w.Every)
			if w.Every < MinScheduleEvery {
				err = fmt.Errorf("every %s is too often: at least %s apart", w.Every, MinScheduleEvery)
			}
		}
	default:
		err = errors.New("it begins with neither in, at nor every")
	}
	if err != nil {
		return When{}, fmt.Errorf("schedule %q: %w; %s", text, err, grammarHint)
	}
	return w, nil
}

// Following is the run after one due at prev, the first after now: runs missed while nobody
// was there to start them (a closed session) are skipped, keeping the schedule's rhythm. It
// is the zero time for a schedule that runs once.
func (w When) Following(prev, now time.Time) time.Time {
	switch {
	case w.Every <= 0:
		return time.Time{}
	case w.Daily: // on the wall clock of now's location, whatever zone prev was read in
		prev = prev.In(now.Location())
		next := prev.AddDate(0, 0, 1)
		if !next.After(now) { // whole days missed: jump to today's, then step
			next = time.Date(now.Year(), now.Month(), now.Day(), prev.Hour(), prev.Minute(), 0, 0, prev.Location())
		}
		for !next.After(now) {
			next = next.AddDate(0, 0, 1)
		}
		return next
	}
	next := prev.Add(w.Every)
	if !next.After(now) {
		next = prev.Add((now.Sub(prev)/w.Every + 1) * w.Every)
	}
	return next
}

func ahead(d time.Duration) error {
	switch {
	case d <= 0:
		return errors.New("the time must be ahead")
	case d > MaxScheduleAhead:
		return fmt.Errorf("%s is more than a year ahead", d)
	}
	return nil
}

func parseAt(text string, now time.Time) (time.Time, error) {
	if !strings.ContainsAny(text, "-") {
		return nextClock(text, now)
	}
	t, err := time.Parse(time.RFC3339, strings.ToUpper(text))
	if err != nil {
		if t, err = time.ParseInLocation("2006-01-02 15:04", text, now.Location()); err != nil {
			return time.Time{}, fmt.Errorf("%q is neither YYYY-MM-DD HH:MM nor RFC 3339", text)
		}
	}
	if !t.After(now) {
		return time.Time{}, fmt.Errorf("%s is in the past (it is %s now)", t.Format("2006-01-02 15:04"), now.Format("2006-01-02 15:04"))
	}
	return t, ahead(t.Sub(now))
}

// nextClock is the next HH:MM after now: today's, or tomorrow's when today's has gone.
func nextClock(text string, now time.Time) (time.Time, error) {
	h, m, ok := strings.Cut(text, ":")
	hour, err1 := strconv.Atoi(h)
	minute, err2 := strconv.Atoi(m)
	if !ok || err1 != nil || err2 != nil || len(m) != 2 || hour < 0 || hour > 23 || minute < 0 || minute > 59 {
		return time.Time{}, fmt.Errorf("%q is not a time of day HH:MM (00:00 to 23:59)", text)
	}
	t := time.Date(now.Year(), now.Month(), now.Day(), hour, minute, 0, 0, now.Location())
	if !t.After(now) {
		t = t.AddDate(0, 0, 1)
	}
	return t, nil
}

var durationUnits = map[string]time.Duration{
	"s": time.Second, "sec": time.Second, "secs": time.Second, "second": time.Second, "seconds": time.Second,
	"m": time.Minute, "min": time.Minute, "mins": time.Minute, "minute": time.Minute, "minutes": time.Minute,
	"h": time.Hour, "hr": time.Hour, "hrs": time.Hour, "hour": time.Hour, "hours": time.Hour,
	"d": 24 * time.Hour, "day": 24 * time.Hour, "days": 24 * time.Hour,
}

// parseDuration reads NUMBER UNIT pairs ("1h30m", "2 hours", "90s").
func parseDuration(text string) (time.Duration, error) {
	s := strings.ReplaceAll(text, " ", "")
	if s == "" {
		return 0, errors.New("no duration")
	}
	var total time.Duration
	for s != "" {
		i := strings.IndexFunc(s, func(r rune) bool { return !unicode.IsDigit(r) })
		j := strings.IndexFunc(s[max(i, 0):], unicode.IsDigit)
		if j < 0 {
			j = len(s) - max(i, 0)
		}
		if i <= 0 {
			return 0, fmt.Errorf("%q is not a duration such as 10m, 1h30m or 2 hours", text)
		}
		n, err := strconv.Atoi(s[:i])
		unit, ok := durationUnits[s[i:i+j]]
		if err != nil || !ok || n > int(MaxScheduleAhead/unit) {
			return 0, fmt.Errorf("%q is not a duration such as 10m, 1h30m or 2 hours (at most a year)", text)
		}
		total += time.Duration(n) * unit
		if total > MaxScheduleAhead {
			return 0, fmt.Errorf("%q is more than a year", text)
		}
		s = s[i+j:]
	}
	return total, nil
}
