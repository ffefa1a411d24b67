// Package checkpoint owns the snapshots of a project's files that let pi undo what the agent
// did to them, whatever tool did it: a content-addressed store of our own under
// $PI_HOME/checkpoints/<project>/, with blobs and per-folder trees named by their SHA-256 (an
// unchanged file or folder costs nothing), an index that finds unchanged files by size,
// modification time, inode and mode without reading them (as git's index does), snapshots,
// diffs between them and the working tree, restores, and pruning by age and total size.
//
// A snapshot follows the project's .gitignore files (internal/gitwalk), skips .git, .hg, .svn,
// .jj and the store itself, records executable bits, symlinks (their target, never followed)
// and empty folders, stores binary files as they are, and lists a file over the size limit as
// skipped (a restore leaves such a file alone). Several sessions may use one project's store
// at once: every operation holds an exclusive lock on the store's lock file, and objects are
// written whole and renamed into place.
//
// It never runs git and never reads or writes the user's .git (its index, HEAD, stash or
// hooks), and it never writes inside the project except to restore the files a snapshot
// holds. It imports only internal/gitwalk of this module and knows nothing of sessions,
// scripts or models: the bundled checkpoints script decides when to snapshot and what a
// session entry holds.
package checkpoint
