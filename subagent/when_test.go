package subagent

import (
	"strings"
	"testing"
	"time"
)

var zone = time.FixedZone("test", 2*3600)

// now is a Tuesday, 10:00 local time.
var now = time.Date(2026, 12, 1, 10, 0, 0, 0, zone)

func TestParseWhen(t *testing.T) {
	at := func(day, h, m int) time.Time { return time.Date(2026, 12, day, h, m, 0, 0, zone) }
	cases := []struct {
		text  string
		first time.Time
		every time.Duration
		daily bool
		err   string // a part of the error; "" for none
	}{
		{text: "in 10m", first: now.Add(10 * time.Minute)},
		{text: "  IN  1h30m ", first: now.Add(90 * time.Minute)},
		{text: "in 2 hours", first: now.Add(2 * time.Hour)},
		{text: "in 1d 12h", first: now.Add(36 * time.Hour)},
		{text: "in 90s", first: now.Add(90 * time.Second)},
		{text: "at 14:30", first: at(1, 14, 30)},
		{text: "at 09:15", first: at(2, 9, 15)}, // gone today: tomorrow
		{text: "at 10:00", first: at(2, 10, 0)}, // now is not ahead
		{text: "at 2026-12-31 09:00", first: at(31, 9, 0)},
		{text: "at 2026-12-01T12:00:00+02:00", first: at(1, 12, 0)},
		{text: "every 1h", first: now.Add(time.Hour), every: time.Hour},
		{text: "every 30 minutes", first: now.Add(30 * time.Minute), every: 30 * time.Minute},
		{text: "every day at 09:00", first: at(2, 9, 0), every: 24 * time.Hour, daily: true},
		{text: "every day at 23:59", first: at(1, 23, 59), every: 24 * time.Hour, daily: true},

		{text: "at 2026-11-30 09:00", err: "in the past"},
		{text: "at 2025-12-01T12:00:00Z", err: "in the past"},
		{text: "every 30s", err: "too often"},
		{text: "in 0m", err: "must be ahead"},
		{text: "in 400d", err: "a year"},
		{text: "at 2028-01-01 00:00", err: "more than a year"},
		{text: "in 99999999999999999999h", err: "not a duration"},
		{text: "at 25:00", err: "not a time of day"},
		{text: "at 9:5", err: "not a time of day"},
		{text: "at noon", err: "not a time of day"},
		{text: "at 2026-13-01 10:00", err: "neither YYYY-MM-DD HH:MM"},
		{text: "in soon", err: "not a duration"},
		{text: "in 10 fortnights", err: "not a duration"},
		{text: "in", err: "no duration"},
		{text: "every", err: "no duration"},
		{text: "tomorrow", err: "neither in, at nor every"},
		{text: "", err: "neither in, at nor every"},
		{text: "*/5 * * * *", err: "neither in, at nor every"},
	}
	for _, tc := range cases {
		t.Run(tc.text, func(t *testing.T) {
			w, err := ParseWhen(tc.text, now)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) || !strings.Contains(err.Error(), "every day at 09:00") {
					t.Fatalf("error %v, want one saying %q and the grammar", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !w.First.Equal(tc.first) || w.Every != tc.every || w.Daily != tc.daily {
				t.Errorf("got first %s every %s daily %v, want %s %s %v", w.First, w.Every, w.Daily, tc.first, tc.every, tc.daily)
			}
		})
	}
}

func FuzzParseWhen(f *testing.F) {
	for _, s := range []string{"in 10m", "at 14:30", "at 2026-12-31 09:00", "every 1h", "every day at 09:00", "in 1d1h1m1s", "at 2026-12-01T12:00:00Z"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		w, err := ParseWhen(text, now)
		if err != nil {
			return
		}
		if !w.First.After(now) || w.First.Sub(now) > MaxScheduleAhead+24*time.Hour {
			t.Fatalf("%q: first run %s is not ahead within a year of %s", text, w.First, now)
		}
		if w.Every != 0 && w.Every < MinScheduleEvery {
			t.Fatalf("%q: repeats every %s", text, w.Every)
		}
		if next := w.Following(w.First, w.First); w.Every != 0 && !next.After(w.First) {
			t.Fatalf("%q: the run after %s is %s", text, w.First, next)
		}
	})
}

// The run after one is one step on; runs missed while the session was closed are skipped,
// the schedule keeping its rhythm (the same minutes past the hour, the same time of day).
func TestWhenFollowing(t *testing.T) {
	hourly := When{Every: time.Hour}
	daily := When{Every: 24 * time.Hour, Daily: true}
	nine := time.Date(2026, 12, 1, 9, 0, 0, 0, zone)
	cases := []struct {
		name      string
		w         When
		prev, now time.Time
		want      time.Time
	}{
		{"once", When{}, nine, nine, time.Time{}},
		{"hourly, on time", hourly, nine, nine, nine.Add(time.Hour)},
		{"hourly, 5h30m missed", hourly, nine, nine.Add(5*time.Hour + 30*time.Minute), nine.Add(6 * time.Hour)},
		{"hourly, exactly on a later run", hourly, nine, nine.Add(2 * time.Hour), nine.Add(3 * time.Hour)},
		{"daily, on time", daily, nine, nine, nine.AddDate(0, 0, 1)},
		{"daily, a week missed", daily, nine, nine.AddDate(0, 0, 7).Add(time.Hour), nine.AddDate(0, 0, 8)},
		{"daily, read back in UTC", daily, nine.UTC(), nine.Add(time.Minute), nine.AddDate(0, 0, 1)},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got := tc.w.Following(tc.prev, tc.now); !got.Equal(tc.want) {
				t.Errorf("got %s, want %s", got, tc.want)
			}
		})
	}
}

func TestRoundedUntil(t *testing.T) {
	for d, want := range map[time.Duration]string{-time.Second: "0s", 1500 * time.Millisecond: "2s", 59 * time.Second: "59s", 59*time.Second + 600*time.Millisecond: "1m",
		10 * time.Minute: "10m", time.Hour: "1h", 90*time.Minute + 20*time.Second: "1h30m", 24 * time.Hour: "1d",
		51*time.Hour + 10*time.Minute: "2d3h", 34 * time.Hour: "1d10h"} {
		if got := roundedUntil(d); got != want {
			t.Errorf("roundedUntil(%s) = %q, want %q", d, got, want)
		}
	}
}
