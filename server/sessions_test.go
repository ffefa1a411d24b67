package server

import (
	"context"
	"testing"

	"pi/provider"
	"pi/session"
	"pi/session/sqlitestore"
)

// storeCases are the two session stores the server's session tests run against.
var storeCases = []struct {
	name string
	open func(t *testing.T, piHome string) session.Store
}{
	{"jsonl", func(_ *testing.T, piHome string) session.Store { return session.Files{Home: piHome} }},
	{"sqlite", func(t *testing.T, piHome string) session.Store {
		st, err := sqlitestore.Open(context.Background(), sqlitestore.DefaultPath(piHome))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { st.Close() })
		return st
	}},
}

// storedSession writes a session of cwd with one exchange into st and closes it.
func storedSession(t *testing.T, st session.Store, cwd, ask string) session.Info {
	t.Helper()
	s := st.New(cwd, "")
	for _, m := range []provider.Message{provider.UserText(ask, 1), {Role: provider.RoleAssistant,
		Content: []provider.Block{provider.Text("ok")}, Usage: &provider.Usage{}, StopReason: provider.StopStop}} {
		if _, err := s.AppendMessage(m); err != nil {
			t.Fatal(err)
		}
	}
	s.Close()
	return describe(t, st, s.ID())
}

func describe(t *testing.T, st session.Store, id string) session.Info {
	t.Helper()
	in, err := st.Describe(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	return in
}

// TestServerSessionsInTheStore: pi serve lists, finds by id prefix and opens the sessions of the
// store it is given, with each store: sessions stored before it started, with their folder and
// a fork's parent, and one stored since, found by a prefix of its id. With the database, the
// session files beside it are not read.
func TestServerSessionsInTheStore(t *testing.T) {
	ctx := context.Background()
	for _, sc := range storeCases {
		t.Run(sc.name, func(t *testing.T) {
			var st session.Store
			var first, fork, file session.Info
			k := startServer(t, slowReply("x", 0), func(o *Options) {
				st = sc.open(t, o.PiHome)
				o.Store = st
				first = storedSession(t, st, "/proj/a", "the first ask")
				forked, err := st.Fork(ctx, first.ID, "/proj/a")
				if err != nil {
					t.Fatal(err)
				}
				forked.Close()
				fork = describe(t, st, forked.ID())
				file = storedSession(t, session.Files{Home: o.PiHome}, "/proj/files", "in a file")
			})
			c := k.dial()
			list := listed(t, c)
			if m := list[first.ID]; m == nil || m["cwd"] != "/proj/a" {
				t.Fatalf("the list lacks the first session of /proj/a: %v", list)
			}
			if m := list[fork.ID]; m == nil || m["parentSessionId"] != first.ID {
				t.Fatalf("the fork is not listed with its parent %s: %v", first.ID, list[fork.ID])
			}
			if _, ok := list[file.ID]; ok != (sc.name == "jsonl") {
				t.Fatalf("a session file listed: %v, want %v (only the JSONL store reads the files)", ok, sc.name == "jsonl")
			}
			late := storedSession(t, st, "/proj/late", "stored since the server started")
			for _, in := range []session.Info{first, late} {
				ref := in.ID[:len(in.ID)-2] // a prefix the other ids do not share
				snap := snapshotOf(request(t, c, map[string]any{"command": "attach", "sessionId": ref}))
				if snap["id"] != in.ID {
					t.Fatalf("attach %s gave session %v, want %s", ref, snap["id"], in.ID)
				}
				k.mu.Lock()
				asked := k.asked[len(k.asked)-1]
				k.mu.Unlock()
				if asked.Path != in.Path || asked.Cwd != in.Cwd {
					t.Fatalf("attach %s opened %+v, want the store's path %s in %s", ref, asked, in.Path, in.Cwd)
				}
			}
			if _, ok := listed(t, c)[late.ID]; !ok {
				t.Fatal("the session found by its prefix is not listed since")
			}
		})
	}
}

// listed is the server's list by session id.
func listed(t *testing.T, c *Client) map[string]map[string]any {
	t.Helper()
	out := map[string]map[string]any{}
	for _, m := range request(t, c, map[string]any{"command": "list"})["sessions"].([]any) {
		row := m.(map[string]any)
		out[row["id"].(string)] = row
	}
	return out
}
