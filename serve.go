package main

// serve.go is `pi serve`: the session server (package server) with one live session per served
// session, built as the command line says; every client's input goes through Send.

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"time"

	"pi/config"
	"pi/extui"
	"pi/live"
	"pi/server"
	"pi/session"
)

func runServe(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	cmd, rest, err := server.ParseCommand(args, piHomeDir())
	var o *cliOptions
	if err == nil {
		o, err = parseArgs(rest, stderr)
	}
	if err != nil {
		fmt.Fprintln(stderr, "pi serve:", err)
		return 2
	}
	switch {
	case cmd.Status:
		err = server.PrintStatus(ctx, cmd, stdout)
	case cmd.Stop:
		err = server.Stop(ctx, cmd)
	default:
		err = serve(ctx, cmd, o, stderr)
	}
	if err != nil {
		fmt.Fprintln(stderr, "pi serve:", err)
		return 1
	}
	return 0
}

// serve runs the server until ctx ends, its sessions in the store $PI_HOME/pi.toml names.
func serve(ctx context.Context, cmd server.Command, o *cliOptions, stderr io.Writer) error {
	base := o.liveOptions(false, stderr)
	store, shared, err := servedStore(ctx, piHomeDir())
	if err != nil {
		return err
	}
	if shared != nil {
		defer shared.Close()
		base.OpenStore = func(context.Context, *config.Config, string) (session.Store, error) { return keptOpen{shared}, nil }
	}
	open := func(ctx context.Context, req server.OpenRequest) (server.Runtime, error) {
		return openServed(ctx, base, req)
	}
	ln, err := server.Listen(cmd.Socket) // a socket already taken is said before "listening on"
	if err != nil {
		return err
	}
	fmt.Fprintln(stderr, "pi serve: listening on", cmd.Socket)
	return server.New(server.Options{Socket: cmd.Socket, PiHome: piHomeDir(), Store: store, Open: open, Log: stderr,
		Token: cmd.Token, AllowNoNewPrivs: cmd.AllowNoNewPrivs,
		Models: func(ctx context.Context) []config.ProviderModels { return servedModels(ctx, o) }}).ServeListener(ctx, ln)
}

// keptOpen is the server's store as a served session holds it: closing the session leaves the
// store open for the others.
type keptOpen struct{ session.Store }

func (keptOpen) Close() error { return nil }

// openServed builds the live session of a served session: the file req names, or a new one.
func openServed(ctx context.Context, o live.Options, req server.OpenRequest) (server.Runtime, error) {
	o.Cwd, o.Session.Ref, o.Session.Continue, o.Session.Fork = req.Cwd, req.Path, false, ""
	o.Model, o.Thinking = cmp.Or(req.Model, o.Model), cmp.Or(req.Thinking, o.Thinking)
	h, err := live.New(ctx, o)
	if err != nil {
		return nil, err
	}
	if req.Name != "" {
		h.SetName(req.Name) //nolint:errcheck // a name that cannot be saved leaves the session unnamed
	}
	return served{h}, nil
}

// servedModels is what `pi --list-models` lists, for the clients' model pickers.
func servedModels(ctx context.Context, o *cliOptions) []config.ProviderModels {
	cwd := "."
	cfg, err := config.Load(piHomeDir(), cwd, live.ProjectTrusted(o.trust, piHomeDir(), cwd))
	if err != nil {
		return nil
	}
	cfg, stop := live.WithScriptProviders(ctx, cfg, piHomeDir(), o.trust, cwd)
	defer stop()
	return cfg.ListModels(ctx)
}

// served is a live session as the server sees it.
type served struct{ *live.Session }

// runConnected is -p and --mode rpc with --connect: a client of a session of pi serve.
func runConnected(ctx context.Context, o *cliOptions, stdin io.Reader, stdout, stderr io.Writer) int {
	if o.mode == "rpc" {
		return server.RunRPCBridge(ctx, server.BridgeOptions{Socket: o.connect, Session: o.sessionRef, FullUpdates: o.fullUpdates}, stdin, stdout, stderr)
	}
	if !o.print {
		fmt.Fprintln(stderr, "pi: --connect works with -p and --mode rpc (not with the terminal UI yet)")
		return 2
	}
	if code := gatherPrompts(ctx, o, false, stdin, stderr); code != 0 { // piped input and @files, as -p
		return code
	}
	return server.RunPrint(ctx, server.PrintOptions{Socket: o.connect, Session: o.sessionRef,
		Prompts: o.messages, Images: o.images}, stdout, stderr)
}

func (s served) Info() server.Info {
	hd := s.Header()
	return server.Info{ID: hd.ID, Cwd: hd.Cwd, Name: s.Name(), Created: hd.Timestamp}
}

func (s served) Prompt(ctx context.Context, text string) error {
	return s.Send(ctx, live.Input{Text: text, Source: live.SourceRPC})
}

func (s served) Steer(ctx context.Context, text string) error {
	return s.Send(ctx, live.Input{Text: text, Source: live.SourceRPC, Deliver: live.DeliverSteer, Queue: true})
}

func (s served) SetModel(ctx context.Context, provider, id string) error {
	_, err := s.Session.SetModel(ctx, provider+"/"+id)
	return err
}

// RPC runs one RPC command line as --mode rpc does, writing its responses to out.
func (s served) RPC(ctx context.Context, line []byte, out io.Writer) {
	newRPCServer(s.Session, out, io.Discard).handleLine(ctx, line)
}

// SetUI sends the scripts' questions to the server's clients.
func (s served) SetUI(a *extui.Asker) { s.Session.SetUI(a) }

func (s served) SetThinking(level string) error { _, err := s.Session.SetThinking(level); return err }

// servedHint says how to reach a session that could not be opened because pi serve holds it
// (at the default socket): `pi attach` with the start of its id. Anything else gives "".
func servedHint(ctx context.Context, err error) string {
	var locked *session.LockedError
	if !errors.As(err, &locked) {
		return ""
	}
	ctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	served, err := server.LiveSessions(ctx, server.DefaultSocket(piHomeDir()))
	if err != nil {
		return ""
	}
	name := strings.TrimSuffix(filepath.Base(locked.Path), ".jsonl")
	for _, l := range served {
		if l.ID != "" && strings.HasSuffix(name, "_"+l.ID) {
			return fmt.Sprintf("pi serve holds this session; to continue it there: pi attach %s", l.ID[:min(8, len(l.ID))])
		}
	}
	return ""
}
