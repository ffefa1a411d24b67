//go:build !linux

package proc

import "context"

// AdoptOrphans does nothing here: only Linux has subreapers.
func AdoptOrphans() error { return nil }

// KillDescendants does nothing here; processes that left pi's groups may outlive it.
func KillDescendants(keep ...int) int { return 0 }

// ReapOrphans does nothing here: there are no adopted orphans to wait for.
func ReapOrphans(ctx context.Context) {}
