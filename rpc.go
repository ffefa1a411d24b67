package main

// rpc.go is `pi --mode rpc`: pi's JSONL protocol on stdin and stdout, so that editor plug-ins,
// web front ends and scripts written for pi can drive this pi unchanged. The README's RPC
// section describes the protocol.
//
// Framing is strict JSONL: lines end at '\n' only (a trailing '\r' is dropped), never at
// U+2028 or U+2029, which JSON allows inside strings. Stdout carries nothing but protocol
// lines, each written whole under one mutex; diagnostics go to stderr.
//
// Commands are handled one at a time, in order, by the serve loop. Anything that may take
// long runs on its own goroutine and answers when done: a prompt's run (its response only
// says it was accepted; the rest arrives as events), compaction and bash. Answers to
// extension UI requests are taken by the reading goroutine itself, so a script waiting for the
// user never waits behind the command that made it ask.

import (
	"bufio"
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"sync"
	"time"

	"pi/agent"
	"pi/config"
	"pi/provider"
)

// rpcServer is one RPC session between pi and its client.
type rpcServer struct {
	app      *app
	stderr   io.Writer
	handlers map[string]rpcHandler

	outMu sync.Mutex
	out   io.Writer

	mu            sync.Mutex
	uiWaiting     map[string]chan map[string]any // extension UI request id → its answer
	closed        bool                           // shutting down: UI requests are cancelled
	runCancel     context.CancelFunc             // the prompt goroutine's context
	runDone       chan struct{}                  // closed when the prompt goroutine ends; nil when idle
	compactCancel context.CancelFunc             // a manual compaction in progress
	compacting    bool                           // between compaction_start and compaction_end
	retrying      bool                           // between auto_retry_start and auto_retry_end
	queue         queueWatch                     // sends queue_update only on changes
	bg            sync.WaitGroup                 // compaction and bash goroutines
}

// rpcHandler runs one command. A nil result means a response without "data"; json.RawMessage
// "null" means data: null.
type rpcHandler func(ctx context.Context, c *rpcCommand) (any, error)

// rpcSlashCommand is one entry of get_commands.
type rpcSlashCommand struct {
	Name        string `json:"name"`
	Description string `json:"description,omitempty"`
	Source      string `json:"source"` // extension, prompt or skill
}

// answeredLater is what a handler returns when its goroutine will send the response.
type answeredLater struct{}

// jsonNull is data: null, which pi sends when there was nothing to do (cycle_model with one
// model, cycle_thinking_level on a model without reasoning).
func jsonNull() json.RawMessage { return json.RawMessage("null") }

// runRPCMode serves the protocol until stdin ends or ctx is cancelled (SIGTERM). It aborts a
// run in progress and waits for it, so the caller can close the session; it always returns 0.
func runRPCMode(ctx context.Context, a *app, stdin io.Reader, stdout, stderr io.Writer) int {
	return newRPCServer(a, stdout, stderr).serve(ctx, stdin)
}

func newRPCServer(a *app, stdout, stderr io.Writer) *rpcServer {
	s := &rpcServer{app: a, out: stdout, stderr: stderr, uiWaiting: map[string]chan map[string]any{}}
	s.handlers = s.commandTable()
	return s
}

// serve reads commands and answers them until stdin ends or ctx is done.
func (s *rpcServer) serve(ctx context.Context, stdin io.Reader) int {
	unsubscribe := s.app.agent.Subscribe(s.onEvent)
	defer unsubscribe()
	s.app.setUI(s) // scripts' questions go to the client
	defer s.app.setUI(nil)
	lines := make(chan []byte)
	stop := make(chan struct{})
	defer close(stop)
	go s.readLines(stdin, lines, stop)
	for {
		select {
		case <-ctx.Done():
			s.shutdown()
			return 0
		case line, ok := <-lines:
			if !ok {
				s.shutdown()
				return 0
			}
			s.handleLine(ctx, line)
		}
	}
}

// readLines splits stdin into lines and hands them over, answering extension UI responses
// itself. It closes lines at the end of input.
func (s *rpcServer) readLines(r io.Reader, lines chan<- []byte, stop <-chan struct{}) {
	defer close(lines)
	br := bufio.NewReaderSize(r, 64<<10)
	for {
		line, err := br.ReadBytes('\n')
		if line = trimLine(line); len(line) > 0 && !s.routeUIResponse(line) {
			select {
			case lines <- line:
			case <-stop:
				return
			}
		}
		if err != nil {
			if !errors.Is(err, io.EOF) {
				fmt.Fprintln(s.stderr, "pi: reading commands:", err)
			}
			return
		}
	}
}

// trimLine drops the line end: '\n', then one '\r' before it.
func trimLine(line []byte) []byte {
	line = bytes.TrimSuffix(line, []byte{'\n'})
	return bytes.TrimSuffix(line, []byte{'\r'})
}

// handleLine answers one command line. Blank lines are ignored (a client's keep-alive).
func (s *rpcServer) handleLine(ctx context.Context, line []byte) {
	if len(bytes.TrimSpace(line)) == 0 {
		return
	}
	c, err := decodeCommand(line)
	switch {
	case err != nil && c.Type == "":
		s.respond(c.ID, "parse", nil, fmt.Errorf("cannot parse the command: %w", err))
		return
	case err != nil:
		s.respond(c.ID, c.Type, nil, err)
		return
	}
	h, ok := s.handlers[c.Type]
	if !ok {
		s.respond(c.ID, c.Type, nil, fmt.Errorf("unknown command %q", c.Type))
		return
	}
	data, err := h(ctx, &c)
	if _, later := data.(answeredLater); later {
		return
	}
	s.respond(c.ID, c.Type, data, err)
}

// rpcCommand holds the fields of every command; each handler reads the ones it takes.
type rpcCommand struct {
	ID                 json.RawMessage  `json:"id"`
	Type               string           `json:"type"`
	Message            string           `json:"message"`
	Images             []provider.Block `json:"images"`
	StreamingBehavior  string           `json:"streamingBehavior"`
	ParentSession      string           `json:"parentSession"`
	Provider           string           `json:"provider"`
	ModelID            string           `json:"modelId"`
	Level              string           `json:"level"`
	Mode               string           `json:"mode"`
	CustomInstructions string           `json:"customInstructions"`
	Enabled            *bool            `json:"enabled"`
	Command            string           `json:"command"`
	ExcludeFromContext bool             `json:"excludeFromContext"`
	OutputPath         string           `json:"outputPath"`
	SessionPath        string           `json:"sessionPath"`
	EntryID            string           `json:"entryId"`
	TargetID           string           `json:"targetId"`  // navigate_tree
	Summarize          bool             `json:"summarize"` // navigate_tree
	Name               string           `json:"name"`
}

// decodeCommand reads one command line. When the line is not a JSON object with a "type"
// string, the returned command has an empty Type (a parse error); otherwise Type and ID are
// set even if other fields are malformed, so the error can name the command.
func decodeCommand(line []byte) (rpcCommand, error) {
	var head map[string]json.RawMessage
	if err := json.Unmarshal(line, &head); err != nil {
		return rpcCommand{}, err
	}
	var c rpcCommand
	if id := head["id"]; len(id) > 0 && string(id) != "null" {
		c.ID = id
	}
	if err := json.Unmarshal(head["type"], &c.Type); err != nil || c.Type == "" {
		c.Type = ""
		return c, errors.New(`a command needs a "type" string`)
	}
	id, typ := c.ID, c.Type
	if err := json.Unmarshal(line, &c); err != nil {
		return rpcCommand{ID: id, Type: typ}, fmt.Errorf("command %s: %w", typ, err)
	}
	c.ID = id
	for _, b := range c.Images {
		if b.Type != provider.BlockImage {
			return c, fmt.Errorf("command %s: images may hold only image blocks, not %q", typ, b.Type)
		}
	}
	return c, nil
}

// write sends one protocol line.
func (s *rpcServer) write(v any) {
	data, err := json.Marshal(v)
	if err != nil {
		fmt.Fprintln(s.stderr, "pi: encoding an RPC line:", err)
		return
	}
	s.outMu.Lock()
	defer s.outMu.Unlock()
	if _, err := s.out.Write(append(data, '\n')); err != nil {
		fmt.Fprintln(s.stderr, "pi: writing an RPC line:", err)
	}
}

// respond sends {"type":"response","id","command","success","data"|"error"}.
func (s *rpcServer) respond(id json.RawMessage, command string, data any, err error) {
	f := fields{{"type", "response"}}
	if len(id) > 0 {
		f = append(f, field{"id", id})
	}
	f = append(f, field{"command", command})
	switch {
	case err != nil:
		f = append(f, field{"success", false}, field{"error", err.Error()})
	case data != nil:
		f = append(f, field{"success", true}, field{"data", data})
	default:
		f = append(f, field{"success", true})
	}
	s.write(f)
}

// onEvent forwards every agent event and keeps the state get_state reports.
func (s *rpcServer) onEvent(_ context.Context, ev agent.Event) {
	s.write(ev)
	s.mu.Lock()
	switch ev.Type {
	case agent.EvCompactionStart, agent.EvCompactionEnd:
		s.compacting = ev.Type == agent.EvCompactionStart
	case agent.EvAutoRetryStart, agent.EvAutoRetryEnd:
		s.retrying = ev.Type == agent.EvAutoRetryStart
	}
	s.mu.Unlock()
	if ev.Type == agent.EvMessageStart || ev.Type == agent.EvAgentEnd {
		s.queueUpdate() // a queued message is delivered just before its message_start
	}
}

// queueUpdate sends queue_update{steering, followUp} when the queues differ from the last one
// sent.
func (s *rpcServer) queueUpdate() {
	if line, changed := s.queue.update(s.app.agent); changed {
		s.write(json.RawMessage(line))
	}
}

// busy reports whether a prompt is being worked on.
func (s *rpcServer) busy() bool {
	s.mu.Lock()
	running := s.runDone != nil
	s.mu.Unlock()
	return running || s.app.agent.IsRunning()
}

// startRun works on a prompt in the background; a failure to start is a second response to
// the prompt's id, as in pi. Text goes through the scripts' input pipeline (skills, templates,
// input hooks) like typed text; a prompt with images goes to the agent as it is.
func (s *rpcServer) startRun(ctx context.Context, id json.RawMessage, text string, images []provider.Block) {
	runCtx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	s.mu.Lock()
	s.runCancel, s.runDone = cancel, done
	s.mu.Unlock()
	go func() {
		defer close(done)
		defer func() {
			cancel()
			s.mu.Lock()
			s.runCancel, s.runDone = nil, nil
			s.mu.Unlock()
		}()
		var err error
		if len(images) == 0 {
			err = s.app.submit(runCtx, text, "rpc")
		} else {
			opens := len(s.app.agent.MessagesView()) == 0
			err = s.app.prompt(runCtx, FirstUserMessage(text, images, opens, s.app.cwd, time.Now()))
		}
		if err != nil {
			s.respond(id, "prompt", nil, err)
		}
	}()
}

// abortRun aborts the prompt being worked on and waits until its goroutine has finished.
func (s *rpcServer) abortRun() {
	s.mu.Lock()
	cancel, done := s.runCancel, s.runDone
	s.mu.Unlock()
	if cancel != nil {
		cancel()
	}
	s.app.agent.Abort()
	if done != nil {
		<-done
	}
	s.app.agent.WaitIdle()
}

// quiesce stops everything that may write to the session: the run, compaction and bash.
func (s *rpcServer) quiesce() {
	s.abortRun()
	s.mu.Lock()
	if s.compactCancel != nil {
		s.compactCancel()
	}
	s.mu.Unlock()
	s.app.abortBash()
	s.bg.Wait()
}

// shutdown ends the session with the client: pending UI requests are cancelled and the work
// in progress is aborted and waited for.
func (s *rpcServer) shutdown() {
	s.mu.Lock()
	s.closed = true
	for id, ch := range s.uiWaiting {
		ch <- map[string]any{"cancelled": true} // buffered, and only this sends once closed
		delete(s.uiWaiting, id)
	}
	s.mu.Unlock()
	s.quiesce()
}

// background runs fn on its own goroutine and sends its result as the response to c.
func (s *rpcServer) background(c *rpcCommand, fn func() (any, error)) answeredLater {
	s.bg.Add(1)
	go func() {
		defer s.bg.Done()
		data, err := fn()
		s.respond(c.ID, c.Type, data, err)
	}()
	return answeredLater{}
}

// newRequestID is a random UUID (version 4), as pi uses for extension UI requests.
func newRequestID() string {
	var b [16]byte
	_, _ = rand.Read(b[:]) // crypto/rand.Read never fails
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	h := hex.EncodeToString(b[:])
	return h[:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:]
}

// sortedKeys gives extension UI requests a stable field order.
func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// commandTable maps pi's command names to their handlers.
func (s *rpcServer) commandTable() map[string]rpcHandler {
	return map[string]rpcHandler{
		"prompt":                        s.cmdPrompt,
		"steer":                         s.cmdQueue,
		"follow_up":                     s.cmdQueue,
		"abort":                         s.cmdAbort,
		"new_session":                   s.cmdNewSession,
		"get_state":                     s.cmdGetState,
		"get_messages":                  s.cmdGetMessages,
		"set_model":                     s.cmdSetModel,
		"cycle_model":                   s.cmdCycleModel,
		"get_available_models":          s.cmdAvailableModels,
		"set_thinking_level":            s.cmdSetThinking,
		"cycle_thinking_level":          s.cmdCycleThinking,
		"get_available_thinking_levels": s.cmdThinkingLevels,
		"set_steering_mode":             s.cmdQueueMode,
		"set_follow_up_mode":            s.cmdQueueMode,
		"compact":                       s.cmdCompact,
		"set_auto_compaction":           s.cmdAutoCompaction,
		"set_auto_retry":                s.cmdAutoRetry,
		"abort_retry":                   s.cmdAbortRetry,
		"bash":                          s.cmdBash,
		"abort_bash":                    s.cmdAbortBash,
		"get_session_stats":             s.cmdSessionStats,
		"export_html":                   s.cmdExportHTML,
		"switch_session":                s.cmdSwitchSession,
		"fork":                          s.cmdFork,
		"clone":                         s.cmdClone,
		"get_fork_messages":             s.cmdForkMessages,
		"get_last_assistant_text":       s.cmdLastAssistantText,
		"set_session_name":              s.cmdSetSessionName,
		"get_commands":                  s.cmdGetCommands,
		"get_tree":                      s.cmdGetTree,      // tree.go
		"navigate_tree":                 s.cmdNavigateTree, // tree.go
	}
}

// cmdPrompt starts a run, or while one is going queues the message as streamingBehavior says.
// A script command runs at once, even while the agent works.
func (s *rpcServer) cmdPrompt(ctx context.Context, c *rpcCommand) (any, error) {
	if s.app.lua.rt != nil {
		if cmd, args, ok := s.app.scriptCommand(c.Message); ok {
			s.bg.Add(1)
			go func() {
				defer s.bg.Done()
				if err := cmd.Run(ctx, args); err != nil {
					s.respond(c.ID, c.Type, nil, fmt.Errorf("/%s: %w", cmd.Name, err))
				}
			}()
			return nil, nil
		}
	}
	if s.busy() {
		switch c.StreamingBehavior {
		case "steer", "followUp":
			return s.enqueue(ctx, c.StreamingBehavior, c)
		}
		return nil, errors.New(`the agent is working on a prompt: send it with "streamingBehavior": "steer" or "followUp" to queue it`)
	}
	s.mu.Lock()
	compacting := s.compacting || s.compactCancel != nil
	s.mu.Unlock()
	if compacting {
		return nil, errors.New("the conversation is being compacted: wait for compaction_end")
	}
	s.startRun(ctx, c.ID, c.Message, c.Images)
	return nil, nil
}

// cmdQueue is steer and follow_up: the message waits in its queue for the loop to take it.
func (s *rpcServer) cmdQueue(ctx context.Context, c *rpcCommand) (any, error) {
	if c.Type == "steer" {
		return s.enqueue(ctx, "steer", c)
	}
	return s.enqueue(ctx, "followUp", c)
}

func (s *rpcServer) enqueue(ctx context.Context, behavior string, c *rpcCommand) (any, error) {
	if c.Message == "" && len(c.Images) == 0 {
		return nil, fmt.Errorf("%s: the message is empty", c.Type)
	}
	text := c.Message
	if len(c.Images) == 0 {
		var handled bool
		if text, handled = s.app.expandInput(ctx, text, "rpc"); handled {
			return nil, nil
		}
	}
	msg := FirstUserMessage(text, c.Images, false, s.app.cwd, time.Now())
	if behavior == "steer" {
		s.app.agent.Steer(msg)
	} else {
		s.app.agent.FollowUp(msg)
	}
	s.queueUpdate()
	return nil, nil
}

func (s *rpcServer) cmdAbort(context.Context, *rpcCommand) (any, error) {
	s.mu.Lock()
	if s.compactCancel != nil {
		s.compactCancel()
	}
	s.mu.Unlock()
	s.abortRun()
	return nil, nil
}

func (s *rpcServer) cmdNewSession(_ context.Context, c *rpcCommand) (any, error) {
	s.quiesce()
	return map[string]any{"cancelled": false}, s.app.newSession(c.ParentSession)
}

// cmdGetState is pi's RpcSessionState.
func (s *rpcServer) cmdGetState(context.Context, *rpcCommand) (any, error) {
	a := s.app
	st := a.agent.State()
	steerMode, followMode := a.queueModes()
	s.mu.Lock()
	compacting := s.compacting || s.compactCancel != nil
	s.mu.Unlock()
	f := fields{{"model", st.Model}, {"thinkingLevel", orOff(st.Thinking)}, {"isStreaming", s.busy()},
		{"isCompacting", compacting}, {"steeringMode", steerMode}, {"followUpMode", followMode}}
	if p := a.sess.Path(); p != "" {
		f = append(f, field{"sessionFile", p})
	}
	f = append(f, field{"sessionId", a.sess.ID()})
	if name := a.sess.Name(); name != "" {
		f = append(f, field{"sessionName", name})
	}
	steer, follow := a.agent.QueuedMessages()
	return append(f, field{"autoCompactionEnabled", a.compactionSettings().Enabled},
		field{"messageCount", len(st.Messages)}, field{"pendingMessageCount", len(steer) + len(follow)}), nil
}

func (s *rpcServer) cmdGetMessages(context.Context, *rpcCommand) (any, error) {
	return map[string]any{"messages": nonNilMessages(s.app.agent.State().Messages)}, nil
}

func (s *rpcServer) cmdSetModel(ctx context.Context, c *rpcCommand) (any, error) {
	if c.Provider == "" || c.ModelID == "" {
		return nil, errors.New(`set_model needs "provider" and "modelId"`)
	}
	return s.app.setModel(ctx, c.Provider+"/"+c.ModelID)
}

func (s *rpcServer) cmdCycleModel(ctx context.Context, _ *rpcCommand) (any, error) {
	m, err := s.app.cycleModel(ctx)
	if err != nil || m == nil {
		return jsonNull(), err
	}
	return map[string]any{"model": m, "thinkingLevel": orOff(s.app.agent.State().Thinking), "isScoped": false}, nil
}

func (s *rpcServer) cmdAvailableModels(ctx context.Context, _ *rpcCommand) (any, error) {
	return map[string]any{"models": s.app.availableModels(ctx)}, nil
}

func (s *rpcServer) cmdSetThinking(_ context.Context, c *rpcCommand) (any, error) {
	_, err := s.app.setThinking(c.Level)
	return nil, err
}

func (s *rpcServer) cmdCycleThinking(context.Context, *rpcCommand) (any, error) {
	level, ok, err := s.app.cycleThinking()
	if err != nil || !ok {
		return jsonNull(), err
	}
	return map[string]any{"level": level}, nil
}

func (s *rpcServer) cmdThinkingLevels(context.Context, *rpcCommand) (any, error) {
	levels := []string{"off"}
	if s.app.agent.Model().Reasoning {
		levels = config.ThinkingLevels()
	}
	return map[string]any{"levels": levels}, nil
}

func (s *rpcServer) cmdQueueMode(_ context.Context, c *rpcCommand) (any, error) {
	which := "steer"
	if c.Type == "set_follow_up_mode" {
		which = "followUp"
	}
	return nil, s.app.setQueueMode(which, agent.QueueMode(c.Mode))
}

// cmdCompact aborts a run, then compacts in the background; abort cancels it.
func (s *rpcServer) cmdCompact(ctx context.Context, c *rpcCommand) (any, error) {
	s.mu.Lock()
	running := s.compactCancel != nil
	s.mu.Unlock()
	if running {
		return nil, errors.New("a compaction is already running")
	}
	s.abortRun()
	cctx, cancel := context.WithCancel(ctx)
	s.mu.Lock()
	s.compactCancel = cancel
	s.mu.Unlock()
	return s.background(c, func() (any, error) {
		defer func() {
			cancel()
			s.mu.Lock()
			s.compactCancel = nil
			s.mu.Unlock()
		}()
		res, err := s.app.compactNow(cctx, c.CustomInstructions)
		if err != nil {
			return nil, err
		}
		return s.app.compactionJSON(res), nil
	}), nil
}

func (s *rpcServer) cmdAutoCompaction(_ context.Context, c *rpcCommand) (any, error) {
	if c.Enabled == nil {
		return nil, errors.New(`set_auto_compaction needs "enabled": true or false`)
	}
	s.app.setAutoCompaction(*c.Enabled)
	return nil, nil
}

func (s *rpcServer) cmdAutoRetry(_ context.Context, c *rpcCommand) (any, error) {
	if c.Enabled == nil {
		return nil, errors.New(`set_auto_retry needs "enabled": true or false`)
	}
	s.app.setAutoRetry(*c.Enabled)
	return nil, nil
}

// cmdAbortRetry stops a run that is waiting to retry a failed call; the failure then stands.
func (s *rpcServer) cmdAbortRetry(context.Context, *rpcCommand) (any, error) {
	s.mu.Lock()
	retrying := s.retrying
	s.mu.Unlock()
	if retrying {
		s.abortRun()
	}
	return nil, nil
}

// cmdBash runs the command in the background, so abort_bash can reach it.
func (s *rpcServer) cmdBash(ctx context.Context, c *rpcCommand) (any, error) {
	return s.background(c, func() (any, error) {
		res, err := s.app.runBash(ctx, c.Command, c.ExcludeFromContext)
		if err != nil {
			return nil, err
		}
		return res, nil
	}), nil
}

func (s *rpcServer) cmdAbortBash(context.Context, *rpcCommand) (any, error) {
	s.app.abortBash()
	return nil, nil
}

func (s *rpcServer) cmdSessionStats(context.Context, *rpcCommand) (any, error) {
	return s.app.sessionStats(), nil
}

func (s *rpcServer) cmdExportHTML(_ context.Context, c *rpcCommand) (any, error) {
	path, err := s.app.exportHTML(c.OutputPath)
	if err != nil {
		return nil, err
	}
	return map[string]any{"path": path}, nil
}

func (s *rpcServer) cmdSwitchSession(ctx context.Context, c *rpcCommand) (any, error) {
	s.quiesce()
	return map[string]any{"cancelled": false}, s.app.switchSession(ctx, c.SessionPath)
}

func (s *rpcServer) cmdFork(_ context.Context, c *rpcCommand) (any, error) {
	s.quiesce()
	text, err := s.app.forkAt(c.EntryID)
	return map[string]any{"text": text, "cancelled": false}, err
}

func (s *rpcServer) cmdClone(context.Context, *rpcCommand) (any, error) {
	s.quiesce()
	return map[string]any{"cancelled": false}, s.app.cloneSession()
}

func (s *rpcServer) cmdForkMessages(context.Context, *rpcCommand) (any, error) {
	msgs, err := s.app.forkMessages()
	return map[string]any{"messages": msgs}, err
}

func (s *rpcServer) cmdLastAssistantText(context.Context, *rpcCommand) (any, error) {
	text, ok := s.app.lastAssistantText()
	if !ok {
		return map[string]any{"text": nil}, nil
	}
	return map[string]any{"text": text}, nil
}

func (s *rpcServer) cmdSetSessionName(_ context.Context, c *rpcCommand) (any, error) {
	return nil, s.app.setSessionName(c.Name)
}

// cmdGetCommands lists the scripts' commands; skills come from the bundled skills script as
// "skill:<name>".
func (s *rpcServer) cmdGetCommands(context.Context, *rpcCommand) (any, error) {
	cmds := []rpcSlashCommand{}
	if rt := s.app.lua.rt; rt != nil {
		for _, c := range rt.Commands() {
			source := "extension"
			if strings.HasPrefix(c.Name, "skill:") {
				source = "skill"
			}
			cmds = append(cmds, rpcSlashCommand{Name: c.Name, Description: c.Description, Source: source})
		}
	}
	return map[string]any{"commands": cmds}, nil
}

// The extension UI sub-protocol. select, confirm, input and editor send an
// extension_ui_request and wait for the client's extension_ui_response with the same id;
// notify and setStatus only inform. The server's Confirm, Select, Input and Notify are what the
// Lua wiring's user interface asks for, so scripts get the same answers in RPC mode as in the
// terminal UI.

// uiRequest sends {"type":"extension_ui_request","id","method",…fields} and waits for the
// answer. A "timeout" field (milliseconds) makes it give up and answer {"cancelled": true},
// as does the end of the session; the end of ctx does too, with ctx's error.
func (s *rpcServer) uiRequest(ctx context.Context, method string, fields map[string]any) (map[string]any, error) {
	id := newRequestID()
	ch := make(chan map[string]any, 1)
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return map[string]any{"cancelled": true}, nil
	}
	s.uiWaiting[id] = ch
	s.mu.Unlock()
	defer func() {
		s.mu.Lock()
		delete(s.uiWaiting, id)
		s.mu.Unlock()
	}()
	s.write(uiRequestLine(id, method, fields))
	var timeout <-chan time.Time
	if d := uiTimeout(fields["timeout"]); d > 0 {
		t := time.NewTimer(d)
		defer t.Stop()
		timeout = t.C
	}
	select {
	case r := <-ch:
		return r, nil
	case <-timeout:
		return map[string]any{"cancelled": true}, nil
	case <-ctx.Done():
		return map[string]any{"cancelled": true}, fmt.Errorf("waiting for the client to answer %s: %w", method, ctx.Err())
	}
}

// uiTimeout reads a timeout in milliseconds, as pi sends it to its clients.
func uiTimeout(v any) time.Duration {
	switch t := v.(type) {
	case int:
		return time.Duration(t) * time.Millisecond
	case int64:
		return time.Duration(t) * time.Millisecond
	case float64:
		return time.Duration(t * float64(time.Millisecond))
	}
	return 0
}

// uiNotice sends a request that expects no answer.
func (s *rpcServer) uiNotice(method string, fields map[string]any) {
	s.write(uiRequestLine(newRequestID(), method, fields))
}

func uiRequestLine(id, method string, extra map[string]any) fields {
	f := fields{{"type", "extension_ui_request"}, {"id", id}, {"method", method}}
	for _, k := range sortedKeys(extra) {
		if k != "type" && k != "id" && k != "method" {
			f = append(f, field{k, extra[k]})
		}
	}
	return f
}

// routeUIResponse hands an extension_ui_response to the request waiting for it and reports
// whether line was one. Answers to unknown or expired requests are dropped.
func (s *rpcServer) routeUIResponse(line []byte) bool {
	if !bytes.Contains(line, []byte("extension_ui_response")) {
		return false
	}
	var r map[string]any
	if json.Unmarshal(line, &r) != nil || r["type"] != "extension_ui_response" {
		return false
	}
	id, _ := r["id"].(string)
	s.mu.Lock()
	ch := s.uiWaiting[id]
	delete(s.uiWaiting, id)
	s.mu.Unlock()
	if ch != nil {
		ch <- r // buffered; the entry was removed, so nobody else sends
	}
	return true
}

// Confirm asks a yes/no question; a dismissed or timed-out question is a no.
func (s *rpcServer) Confirm(ctx context.Context, title, message string) (bool, error) {
	r, err := s.uiRequest(ctx, "confirm", map[string]any{"title": title, "message": message})
	yes, _ := r["confirmed"].(bool)
	return yes && r["cancelled"] != true, err
}

// Select asks to pick one of options; ok is false when the client dismissed it.
func (s *rpcServer) Select(ctx context.Context, title string, options []string) (string, bool, error) {
	r, err := s.uiRequest(ctx, "select", map[string]any{"title": title, "options": options})
	return uiValue(r, err)
}

// Input asks for a line of text.
func (s *rpcServer) Input(ctx context.Context, title, placeholder string) (string, bool, error) {
	f := map[string]any{"title": title}
	if placeholder != "" {
		f["placeholder"] = placeholder
	}
	return uiValue(s.uiRequest(ctx, "input", f))
}

// Editor asks for a longer text, starting from prefill.
func (s *rpcServer) Editor(ctx context.Context, title, prefill string) (string, bool, error) {
	f := map[string]any{"title": title}
	if prefill != "" {
		f["prefill"] = prefill
	}
	return uiValue(s.uiRequest(ctx, "editor", f))
}

func uiValue(r map[string]any, err error) (string, bool, error) {
	v, ok := r["value"].(string)
	return v, ok && r["cancelled"] != true, err
}

// Notify shows a message; level is info, warning or error.
func (s *rpcServer) Notify(message, level string) {
	f := map[string]any{"message": message}
	if level != "" {
		f["notifyType"] = level
	}
	s.uiNotice("notify", f)
}

// SetStatus sets (or with empty text clears) a status line the client shows under key.
func (s *rpcServer) SetStatus(key, text string) {
	f := map[string]any{"statusKey": key}
	if text != "" {
		f["statusText"] = text
	}
	s.uiNotice("setStatus", f)
}

// ExtensionError reports a script's failure as pi's extension_error event.
func (s *rpcServer) ExtensionError(path, event, message string) {
	s.write(fields{{"type", "extension_error"}, {"extensionPath", path}, {"event", event}, {"error", message}})
}
