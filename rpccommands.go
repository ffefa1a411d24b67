package main

// rpccommands.go maps each of pi's RPC commands to one call of the live session.

import (
	"cmp"
	"context"
	"errors"
	"maps"

	"pi/agent"
	"pi/config"
	"pi/live"
	"pi/lua"
	"pi/rpcwire"
)

// commandTable maps pi's command names to their handlers.
func commandTable() map[string]rpcHandler {
	table := map[string]rpcHandler{
		"prompt":                        cmdPrompt,
		"steer":                         cmdQueue,
		"follow_up":                     cmdQueue,
		"abort":                         cmdAbort,
		"new_session":                   cmdNewSession,
		"get_state":                     cmdGetState,
		"get_messages":                  cmdGetMessages,
		"set_model":                     cmdSetModel,
		"cycle_model":                   cmdCycleModel,
		"get_available_models":          cmdAvailableModels,
		"set_thinking_level":            cmdSetThinking,
		"cycle_thinking_level":          cmdCycleThinking,
		"get_available_thinking_levels": cmdThinkingLevels,
		"set_steering_mode":             cmdQueueMode,
		"set_follow_up_mode":            cmdQueueMode,
		"compact":                       cmdCompact,
		"set_auto_compaction":           cmdAutoCompaction,
		"set_auto_retry":                cmdAutoRetry,
		"set_full_updates":              cmdFullUpdates,
		"abort_retry":                   cmdAbortRetry,
		"bash":                          cmdBash,
		"abort_bash":                    cmdAbortBash,
		"get_session_stats":             cmdSessionStats,
		"export_html":                   cmdExportHTML,
		"switch_session":                cmdSwitchSession,
		"fork":                          cmdFork,
		"clone":                         cmdClone,
		"get_fork_messages":             cmdForkMessages,
		"get_last_assistant_text":       cmdLastAssistantText,
		"set_session_name":              cmdSetSessionName,
		"get_commands": func(_ context.Context, s *rpcServer, _ *rpcwire.Command) (any, error) {
			return slashCommands(s.h.SlashCommands()), nil
		},
		"get_tree":      cmdGetTree,
		"navigate_tree": cmdNavigateTree,
		"set_label":     cmdSetLabel,
	}
	maps.Copy(table, ownCommands())
	return table
}

// ownCommands are pi's own commands, beyond pi's protocol, for pi attach: the terminal UI's
// commands that need the session itself.
func ownCommands() map[string]rpcHandler {
	return map[string]rpcHandler{
		"import_session": cmdImportSession, // /import and /debug

		"debug_report": func(_ context.Context, s *rpcServer, _ *rpcwire.Command) (any, error) {
			return rpcwire.DebugReport{Report: "## pi (the session's)\n\n" + versionText() + "\n\n" + s.h.DebugReport()}, nil
		},
		// the /scoped-models of the terminal UI, and whether a /tree move leaves messages
		// behind (then a summary is offered)
		"scoped_models": cmdScopedModels,
		"leaves_conversation": func(_ context.Context, s *rpcServer, c *rpcwire.Command) (any, error) {
			return rpcwire.Leaves{Leaves: s.h.LeavesConversation(c.TargetID)}, nil
		},
		// the scripts' shortcut keys, run on the session, and /reload
		"get_shortcuts": func(_ context.Context, s *rpcServer, _ *rpcwire.Command) (any, error) {
			return shortcuts(s.h.Shortcuts()), nil
		},
		"run_shortcut": func(ctx context.Context, s *rpcServer, c *rpcwire.Command) (any, error) {
			return nil, s.h.RunShortcut(ctx, c.Key)
		},
		"reload": func(ctx context.Context, s *rpcServer, _ *rpcwire.Command) (any, error) {
			return nil, s.h.Reload(ctx)
		},
	}
}

// cmdScopedModels is scoped_models{patterns?}: patterns (["all"] clears them) set the models
// cycle_model steps through; the answer is those models either way.
func cmdScopedModels(ctx context.Context, s *rpcServer, c *rpcwire.Command) (any, error) {
	if p := c.Patterns; p != nil {
		if len(p) == 1 && p[0] == "all" {
			p = nil
		}
		if err := s.h.SetScope(p); err != nil {
			return nil, err
		}
	}
	models, scoped := s.h.ScopedModels(ctx)
	return rpcwire.ScopedModels{Models: models, Scoped: scoped}, nil
}

// cmdPrompt starts a run, or while one is going queues the message as streamingBehavior says.
// A script command runs at once, even while the agent works.
func cmdPrompt(ctx context.Context, s *rpcServer, c *rpcwire.Command) (any, error) {
	in := live.Input{Text: c.Message, Images: c.Images, Source: live.SourceRPC}
	switch c.StreamingBehavior {
	case "steer", "followUp":
		in.Deliver = live.Delivery(c.StreamingBehavior)
	}
	return s.send(ctx, c, in)
}

// cmdQueue is steer and follow_up: the message waits in its queue for the loop to take it.
func cmdQueue(ctx context.Context, s *rpcServer, c *rpcwire.Command) (any, error) {
	if c.Message == "" && len(c.Images) == 0 {
		return nil, errors.New(c.Type + ": the message is empty")
	}
	in := live.Input{Text: c.Message, Images: c.Images, Source: live.SourceRPC, Deliver: live.DeliverSteer, Queue: true}
	if c.Type == "follow_up" {
		in.Deliver = live.DeliverFollowUp
	}
	return s.send(ctx, c, in)
}

// cmdAbort stops everything in flight: the run, a compaction, a bash command, a branch summary.
func cmdAbort(_ context.Context, s *rpcServer, _ *rpcwire.Command) (any, error) {
	s.h.Quiesce()
	return nil, nil
}

func cmdNewSession(_ context.Context, s *rpcServer, c *rpcwire.Command) (any, error) {
	return rpcwire.Cancelled{}, s.h.NewSession(c.ParentSession)
}

// cmdGetState is pi's RpcSessionState.
func cmdGetState(_ context.Context, s *rpcServer, _ *rpcwire.Command) (any, error) {
	st := s.h.State()
	return rpcwire.State{Model: st.Model, ThinkingLevel: st.Thinking, IsStreaming: st.Streaming, IsCompacting: st.Compacting,
		SteeringMode: string(st.SteeringMode), FollowUpMode: string(st.FollowUpMode), SessionFile: st.SessionFile,
		SessionID: st.SessionID, SessionName: st.SessionName, AutoCompactionEnabled: st.AutoCompaction,
		MessageCount: st.MessageCount, PendingMessageCount: st.PendingCount}, nil
}

func cmdGetMessages(_ context.Context, s *rpcServer, _ *rpcwire.Command) (any, error) {
	return rpcwire.Messages{Messages: nonNilMessages(s.h.Agent().State().Messages)}, nil
}

func cmdSetModel(ctx context.Context, s *rpcServer, c *rpcwire.Command) (any, error) {
	if c.Provider == "" || c.ModelID == "" {
		return nil, errors.New(`set_model needs "provider" and "modelId"`)
	}
	return s.h.SetModel(ctx, c.Provider+"/"+c.ModelID)
}

// cmdCycleModel steps to the next model of the scope; pi's own "step": -1 steps back.
func cmdCycleModel(ctx context.Context, s *rpcServer, c *rpcwire.Command) (any, error) {
	m, err := s.h.CycleModel(ctx, cmp.Or(c.Step, 1))
	if err != nil || m == nil {
		return jsonNull(), err
	}
	st := s.h.State()
	return rpcwire.CycleModel{Model: *m, ThinkingLevel: st.Thinking, IsScoped: st.Scoped}, nil
}

func cmdAvailableModels(ctx context.Context, s *rpcServer, _ *rpcwire.Command) (any, error) {
	return rpcwire.Models{Models: s.h.AvailableModels(ctx)}, nil
}

func cmdSetThinking(_ context.Context, s *rpcServer, c *rpcwire.Command) (any, error) {
	_, err := s.h.SetThinking(c.Level)
	return nil, err
}

func cmdCycleThinking(_ context.Context, s *rpcServer, _ *rpcwire.Command) (any, error) {
	level, ok, err := s.h.CycleThinking()
	if err != nil || !ok {
		return jsonNull(), err
	}
	return rpcwire.CycleThinking{Level: level}, nil
}

func cmdThinkingLevels(_ context.Context, s *rpcServer, _ *rpcwire.Command) (any, error) {
	levels := []string{"off"}
	if s.h.Agent().Model().Reasoning {
		levels = config.ThinkingLevels()
	}
	return rpcwire.ThinkingLevels{Levels: levels}, nil
}

func cmdQueueMode(_ context.Context, s *rpcServer, c *rpcwire.Command) (any, error) {
	which := "steer"
	if c.Type == "set_follow_up_mode" {
		which = "followUp"
	}
	return nil, s.h.SetQueueMode(which, agent.QueueMode(c.Mode))
}

// cmdCompact compacts in the background (a run is stopped first); abort cancels it.
func cmdCompact(ctx context.Context, s *rpcServer, c *rpcwire.Command) (any, error) {
	compact, err := s.h.StartCompact(ctx, c.CustomInstructions)
	if err != nil {
		return nil, err
	}
	return s.background(c, func() (any, error) {
		res, err := compact()
		if err != nil {
			return nil, err
		}
		return rpcwire.Compact{Summary: res.Summary, FirstKeptEntryID: res.FirstKeptEntryID, TokensBefore: res.TokensBefore,
			TokensAfter: res.TokensAfter, Details: s.h.CompactionDetails(res)}, nil
	}), nil
}

func cmdAutoCompaction(_ context.Context, s *rpcServer, c *rpcwire.Command) (any, error) {
	if c.Enabled == nil {
		return nil, errors.New(`set_auto_compaction needs "enabled": true or false`)
	}
	s.h.SetAutoCompaction(*c.Enabled)
	return nil, nil
}

// cmdFullUpdates is set_full_updates{enabled}: every message_update carries the whole partial
// reply (pi's shape, at a cost quadratic in the reply), or only now and then (the default).
func cmdFullUpdates(_ context.Context, s *rpcServer, c *rpcwire.Command) (any, error) {
	if c.Enabled == nil {
		return nil, errors.New(`set_full_updates needs "enabled": true or false`)
	}
	s.updates.SetFull(*c.Enabled)
	return nil, nil
}

func cmdAutoRetry(_ context.Context, s *rpcServer, c *rpcwire.Command) (any, error) {
	if c.Enabled == nil {
		return nil, errors.New(`set_auto_retry needs "enabled": true or false`)
	}
	s.h.SetAutoRetry(*c.Enabled)
	return nil, nil
}

// cmdAbortRetry stops a run that is waiting to retry a failed call; the failure then stands.
func cmdAbortRetry(_ context.Context, s *rpcServer, _ *rpcwire.Command) (any, error) {
	s.h.AbortRetry()
	return nil, nil
}

// cmdBash claims the shell at once and runs the command in the background, so abort_bash
// can reach it and a second command sent meanwhile is refused.
func cmdBash(ctx context.Context, s *rpcServer, c *rpcwire.Command) (any, error) {
	run, err := s.h.StartBash(ctx, c.Command, c.ExcludeFromContext)
	if err != nil {
		return nil, err
	}
	return s.background(c, func() (any, error) {
		res, err := run()
		if err != nil {
			return nil, err
		}
		return res, nil
	}), nil
}

func cmdAbortBash(_ context.Context, s *rpcServer, _ *rpcwire.Command) (any, error) {
	s.h.AbortBash()
	return nil, nil
}

func cmdSessionStats(_ context.Context, s *rpcServer, _ *rpcwire.Command) (any, error) {
	return s.h.Stats(), nil
}

func cmdExportHTML(_ context.Context, s *rpcServer, c *rpcwire.Command) (any, error) {
	path, err := s.h.Export(c.OutputPath)
	if err != nil {
		return nil, err
	}
	return rpcwire.ExportHTML{Path: path}, nil
}

func cmdSwitchSession(ctx context.Context, s *rpcServer, c *rpcwire.Command) (any, error) {
	return rpcwire.Cancelled{}, s.h.SwitchSession(ctx, c.SessionPath)
}

func cmdFork(_ context.Context, s *rpcServer, c *rpcwire.Command) (any, error) {
	text, err := s.h.ForkAt(c.EntryID)
	return rpcwire.Fork{Text: text}, err
}

func cmdClone(_ context.Context, s *rpcServer, _ *rpcwire.Command) (any, error) {
	return rpcwire.Cancelled{}, s.h.Clone()
}

func cmdForkMessages(_ context.Context, s *rpcServer, _ *rpcwire.Command) (any, error) {
	msgs, err := s.h.ForkPoints()
	return rpcwire.ForkMessages{Messages: msgs}, err
}

func cmdLastAssistantText(_ context.Context, s *rpcServer, _ *rpcwire.Command) (any, error) {
	text, ok := s.h.LastReply()
	if !ok {
		return rpcwire.LastAssistantText{}, nil
	}
	return rpcwire.LastAssistantText{Text: &text}, nil
}

func cmdSetSessionName(_ context.Context, s *rpcServer, c *rpcwire.Command) (any, error) {
	return nil, s.h.SetName(c.Name)
}

// cmdGetTree is the RPC command get_tree: every entry of the session with its parent, type,
// role, a short preview and its label, and the current leaf (null before the first entry).
func cmdGetTree(_ context.Context, s *rpcServer, _ *rpcwire.Command) (any, error) {
	entries, leafID, err := s.h.Tree()
	if err != nil {
		return nil, err
	}
	tree := rpcwire.Tree{Entries: entries}
	if leafID != "" {
		tree.LeafID = &leafID
	}
	return tree, nil
}

// cmdNavigateTree is the RPC command navigate_tree{targetId, summarize?, customInstructions?}.
// It answers when the move is done; the live session keeps runs off the branch being left.
func cmdNavigateTree(ctx context.Context, s *rpcServer, c *rpcwire.Command) (any, error) {
	if c.TargetID == "" {
		return nil, errors.New(`navigate_tree needs "targetId"`)
	}
	text, err := s.h.NavigateTree(ctx, c.TargetID, c.Summarize, c.CustomInstructions)
	if err != nil {
		return nil, err
	}
	return rpcwire.NavigateTree{EditorText: text, LeafID: s.h.State().Leaf}, nil
}

// cmdSetLabel is set_label{entryId, label}: an empty or missing label clears it.
func cmdSetLabel(_ context.Context, s *rpcServer, c *rpcwire.Command) (any, error) {
	if c.EntryID == "" {
		return nil, errors.New(`set_label needs "entryId"`)
	}
	return nil, s.h.SetLabel(c.EntryID, c.Label)
}

// slashCommands is get_commands' data: the scripts' commands and the skills.
func slashCommands(cmds []lua.SlashCommand) rpcwire.Commands {
	out := rpcwire.Commands{Commands: make([]rpcwire.SlashCommand, len(cmds))}
	for i, c := range cmds {
		out.Commands[i] = rpcwire.SlashCommand{Name: c.Name, Description: c.Description, Source: c.Source}
	}
	return out
}

// shortcuts is get_shortcuts' data: the keys the scripts bound.
func shortcuts(keys []lua.Shortcut) rpcwire.Shortcuts {
	out := rpcwire.Shortcuts{Shortcuts: make([]rpcwire.Shortcut, len(keys))}
	for i, k := range keys {
		out.Shortcuts[i] = rpcwire.Shortcut{Key: k.Key, Description: k.Description, Source: k.Source}
	}
	return out
}

// cmdImportSession is import_session{sessionPath}: a pi or Claude Code session file opened as a
// new session, which this one continues in (pi's own, for /import under pi attach).
func cmdImportSession(ctx context.Context, s *rpcServer, c *rpcwire.Command) (any, error) {
	if c.SessionPath == "" {
		return nil, errors.New(`import_session needs "sessionPath"`)
	}
	skipped, err := s.h.Import(ctx, c.SessionPath)
	return rpcwire.Import{Skipped: skipped}, err
}
