package remote

import (
	"encoding/json"
	"errors"
	"fmt"

	"pi/rpcwire"
	"pi/server"
)

// errNoPi is what a command beyond protocol v1 says on a server without pi's extensions.
var errNoPi = errors.New("this pi serve does not run pi's commands (it is too old, or not pi)")

// rpc runs one of pi's RPC commands on the session and reads its data into data (nil: not
// read). moved is the snapshot of the session the command moved the view to (fork, clone,
// a script's new session), else nil.
func (v *view) rpc(cmd rpcwire.Command, data any) (moved *server.SessionSnapshot, err error) {
	if !v.c.HasPi() {
		return nil, errNoPi
	}
	cmd.ID = json.RawMessage(`"attach"`)
	resp, snap, err := v.c.PiRPC(v.ctx, v.session(), cmd)
	if err != nil {
		return nil, err
	}
	if !resp.Success {
		return nil, errors.New(resp.Error)
	}
	if data != nil && resp.HasData() {
		if err := json.Unmarshal(resp.Data, data); err != nil {
			return nil, fmt.Errorf("the answer to %s: %w", cmd.Type, err)
		}
	}
	if snap == nil {
		return nil, nil
	}
	v.mu.Lock()
	defer v.mu.Unlock()
	if snap.ID != "" && snap.ID != v.id {
		v.id, v.snap, v.partial = snap.ID, snap, nil
		return snap, nil
	}
	v.snap = snap
	return nil, nil
}
