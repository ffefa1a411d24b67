package remote

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gdamore/tcell/v2"

	"pi/agent"
	"pi/extui"
	"pi/internal/testwait"
	"pi/provider"
	"pi/provider/faux"
	"pi/server"
	"pi/termui"
	"pi/tui"
)

// harness_test.go runs a real server.Server in-process on a unix socket, whose sessions are
// fakeRuntimes (a real agent on the faux provider) that record pi's RPC commands, and builds
// the attached view on a headless tui.App whose output is kept for the assertions.

// fakeRuntime is a live session that records every pi_rpc line and answers it with answer.
type fakeRuntime struct {
	ag     *agent.Agent
	id     atomic.Pointer[string]
	cwd    string
	answer func(cmd map[string]any) string // a response line; nil: success with no data
	rpcs   chan map[string]any
	asker  atomic.Pointer[extui.Asker]
	models []string // set_model calls, as provider/id
	mu     sync.Mutex
}

func (f *fakeRuntime) Agent() *agent.Agent { return f.ag }
func (f *fakeRuntime) Info() server.Info {
	return server.Info{ID: *f.id.Load(), Cwd: f.cwd, Created: "2026-01-02T03:04:05Z"}
}
func (f *fakeRuntime) Prompt(ctx context.Context, text string) error {
	return f.ag.Prompt(ctx, provider.UserText(text, time.Now().UnixMilli()))
}
func (f *fakeRuntime) Steer(context.Context, string) error { return nil }
func (f *fakeRuntime) Abort()                              { f.ag.Abort() }
func (f *fakeRuntime) SetModel(_ context.Context, p, id string) error {
	f.mu.Lock()
	f.models = append(f.models, p+"/"+id)
	f.mu.Unlock()
	f.ag.SetModel(provider.Model{Provider: p, ID: id})
	return nil
}
func (f *fakeRuntime) SetThinking(level string) error { f.ag.SetThinking(level); return nil }
func (f *fakeRuntime) Close()                         { f.ag.Abort(); f.ag.WaitIdle() }
func (f *fakeRuntime) SetUI(a *extui.Asker)           { f.asker.Store(a) }

func (f *fakeRuntime) RPC(_ context.Context, line []byte, out io.Writer) {
	var cmd map[string]any
	if err := json.Unmarshal(line, &cmd); err != nil {
		out.Write([]byte(`{"type":"response","success":false,"error":"bad line"}` + "\n"))
		return
	}
	f.rpcs <- cmd
	resp := `{"type":"response","success":true,"data":{}}`
	if f.answer != nil {
		resp = f.answer(cmd)
	}
	out.Write([]byte(resp + "\n"))
}

// setModels are the set_model requests the session received.
func (f *fakeRuntime) setModels() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string(nil), f.models...)
}

// nextRPC is the next pi_rpc command the session received.
func (f *fakeRuntime) nextRPC(t *testing.T) map[string]any {
	t.Helper()
	return testwait.Receive(t, "a pi_rpc command", f.rpcs)
}

// kit is a running server and the sessions it opened, in order.
type kit struct {
	socket string
	mu     sync.Mutex
	opened []*fakeRuntime
	answer func(cmd map[string]any) string
	count  atomic.Int64
}

func startKit(t *testing.T, answer func(cmd map[string]any) string) *kit {
	t.Helper()
	dir, err := os.MkdirTemp("", "pir") // short: a socket path has a length limit
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	k := &kit{socket: filepath.Join(dir, "pi.sock"), answer: answer}
	srv := server.New(server.Options{Socket: k.socket, PiHome: filepath.Join(dir, "home"), Open: k.open})
	ln, err := server.Listen(k.socket)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- srv.ServeListener(ctx, ln) }()
	t.Cleanup(func() { cancel(); testwait.Receive(t, "the server to stop", done) })
	return k
}

func (k *kit) open(_ context.Context, req server.OpenRequest) (server.Runtime, error) {
	ag := agent.New(agent.Config{Provider: faux.New(faux.Text("a reply")), Model: provider.Model{Provider: "faux", ID: "faux-1"}, Thinking: "off"})
	id := fmt.Sprintf("sess-%d", k.count.Add(1))
	rt := &fakeRuntime{ag: ag, cwd: "/work/" + id, answer: k.answer, rpcs: make(chan map[string]any, 64)}
	rt.id.Store(&id)
	k.mu.Lock()
	k.opened = append(k.opened, rt)
	k.mu.Unlock()
	return rt, nil
}

func (k *kit) runtime(i int) *fakeRuntime {
	k.mu.Lock()
	defer k.mu.Unlock()
	return k.opened[i]
}

func (k *kit) dial(t *testing.T) *server.Client {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	c, err := server.DialToken(ctx, k.socket, "")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// screen is the terminal the headless App draws on; text is what it wrote, without the
// escape sequences.
type screen struct {
	mu  sync.Mutex
	out bytes.Buffer
}

func (s *screen) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.out.Write(p)
}

var escapes = regexp.MustCompile(`\x1b\[[0-9;?<>=]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(\x07|\x1b\\)|\x1b[()][0-9A-Za-z]|\x1b[=>78]|\r`)

func (s *screen) text() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return escapes.ReplaceAllString(s.out.String(), "")
}

// attached is a view attached to a new session of the kit's server, the controller over it,
// and its screen.
type attached struct {
	v      *view
	ctrl   *termui.Controller
	scr    *screen
	rt     *fakeRuntime
	cancel context.CancelFunc
}

func attach(t *testing.T, k *kit) *attached {
	t.Helper()
	c := k.dial(t)
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	snap, err := c.Create(ctx, "")
	if err != nil {
		t.Fatal(err)
	}
	v := newView(ctx, cancel, c, snap, t.TempDir())
	ctrl := termui.New(ctx, v, tui.DefaultKeymap(), nil)
	scr := &screen{}
	v.ui = tui.NewApp(scr, 240, 60, ctrl.Callbacks(), tui.Options{ManualFrames: true, Cwd: t.TempDir(), Commands: ctrl.Builtins()})
	ctrl.Use(v.ui)
	v.show(snap)
	k.mu.Lock()
	rt := k.opened[len(k.opened)-1]
	k.mu.Unlock()
	return &attached{v: v, ctrl: ctrl, scr: scr, rt: rt, cancel: cancel}
}

// shows waits until the screen has shown want.
func (a *attached) shows(t *testing.T, want string) {
	t.Helper()
	testwait.Until(t, "the screen to show "+want, func() bool {
		a.v.ui.Flush()
		return strings.Contains(a.scr.text(), want)
	})
}

// shown says whether the screen has shown want, after drawing a frame.
func (a *attached) shown(want string) bool {
	a.v.ui.Flush()
	return strings.Contains(a.scr.text(), want)
}

// press sends keys to the App, as the terminal would.
func (a *attached) press(keys ...tcell.Key) {
	for _, key := range keys {
		a.v.ui.HandleEvent(tcell.NewEventKey(key, 0, tcell.ModNone))
	}
}

// typeText types text into the App.
func (a *attached) typeText(s string) {
	for _, r := range s {
		a.v.ui.HandleEvent(tcell.NewEventKey(tcell.KeyRune, r, tcell.ModNone))
	}
}

// rpcOK is a successful response line carrying data.
func rpcOK(data any) string {
	b, _ := json.Marshal(map[string]any{"type": "response", "success": true, "data": data})
	return string(b)
}

func rpcFailed(msg string) string {
	b, _ := json.Marshal(map[string]any{"type": "response", "success": false, "error": msg})
	return string(b)
}

func jsonString(v any) string {
	if v == nil {
		return "null"
	}
	b, _ := json.Marshal(v)
	return string(b)
}

var (
	keyUp, keyDown, keyEnter, keyEscape = tcell.KeyUp, tcell.KeyDown, tcell.KeyEnter, tcell.KeyEscape
)
