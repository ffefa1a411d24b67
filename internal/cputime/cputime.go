// Package cputime reads how much CPU time this process has used, for benchmarks: on a shared
// machine wall time swings with other people's load, while the CPU time spent is the cost that
// is ours. It owns nothing else and imports nothing of this module.
package cputime

import "time"

// Used is the user plus system CPU time of this process so far; zero where the platform does
// not say.
func Used() time.Duration { return used() }
