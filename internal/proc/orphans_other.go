//go:build !linux

package proc

// AdoptOrphans does nothing here: only Linux has subreapers.
func AdoptOrphans() error { return nil }

// KillDescendants does nothing here; processes that left pi's groups may outlive it.
func KillDescendants() int { return 0 }
