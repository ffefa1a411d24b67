//go:build race

package tui

const raceEnabled = true
