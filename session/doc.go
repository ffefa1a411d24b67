// Package session owns pi's session files: the JSONL format (version 3, with v1 and v2 migrated
// on load), the tree of entries linked by parentId and the leaf that says where the conversation
// stands, the context rebuilt from a leaf for the next model call, branching, forking and cloning,
// finding and listing the session files of a project, and compaction (choosing what to summarise,
// asking a model for the summary, recording it).
//
// It must not import any package of this module but provider, must not print (problems are
// returned as errors or warnings), and must not append to a session on its own initiative: the
// agent loop owns the transcript and the caller decides what is recorded and when.
//
// # File format
//
// Line 1 is the header {"type":"session","version":3,"id","timestamp","cwd"[,"parentSession"]};
// every later line is one entry. Entries are written with the fields in the order pi writes
// them, which is type, id, parentId, timestamp, payload for most types, but customType and its
// payload before id for "custom" and "custom_message" (pi builds those objects in that order).
// Strings are escaped as JavaScript's JSON.stringify escapes them ('<', '>', '&' stay literal),
// so a file written here and one written by pi agree byte for byte, entry by entry.
//
// # Durability
//
// Nothing is written until the first assistant message is appended (pi does the same, so an
// abandoned prompt leaves no file). Then the header and the buffered entries are written, and
// from then on every entry is exactly one write(2) of one line with O_APPEND. A kill can
// therefore leave at most a torn last line; loading skips it with a Warning and, when the file is
// opened for writing, cuts it off so the next entry starts on a fresh line.
//
// # Damaged files
//
// Every reader (Open and the context, Entries and the tree, List, FindNewest, ForkFile) reads a
// file by the same rules, in index.go: a line is an entry when it is one JSON object in valid
// UTF-8 with a string type other than "session", an id no earlier entry has, and a null or
// string parentId. Any other line (NUL bytes, a line cut short, invalid UTF-8, JSON that is not
// an entry, a repeated id) is skipped with a Warning naming its line. So is an entry whose
// payload does not decode; that is found when the entry is first read, which Open does at once
// for the entries of the context. A parent must come earlier in the file, so a parentId naming
// a skipped line, an unknown id, the entry itself or a later one (a cycle) is repaired: the
// entry is attached to the skipped line's own parent if that line still names one, else to the
// nearest readable entry before it, with a Warning. The context therefore keeps every readable
// message. The file is not rewritten: each load repeats the repair, a fork is written repaired.
//
// Entries of a type this pi does not know (a newer pi's) stay in the file and the tree, and
// entries hang from them as usual; the context skips them, with one Warning per type.
//
// The file is fsynced after every assistant message, compaction and branch summary (the points a
// user would hate to lose: a finished model reply, a paid-for summary) and on Close. Other
// entries reach the page cache with their write and survive a crash of the process, though not
// necessarily a power failure before the next fsync.
//
// # Locking
//
// A session opened for writing holds an exclusive, non-blocking flock(2) on its file (a lock file
// beside it where flock is missing), so a second pi process appending to the same session gets
// ErrLocked instead of interleaving entries. Reading for a listing or a fork takes no lock: the
// file only grows, so a reader sees a prefix of whole lines plus perhaps a torn one.
//
// # Memory
//
// Open keeps a small index (id, parent, type, offset, length) for every entry and parses only
// what it needs: labels and session names, and the entries the context of the last entry needs
// (the active path from the latest compaction onwards), which it keeps. Entries off the active
// path are read back from the file when asked for.
package session
