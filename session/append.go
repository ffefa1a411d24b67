package session

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"pi/provider"
)

// AppendMessage records a message (user, assistant, toolResult, or one of pi's application
// messages such as custom or bashExecution) as a child of the leaf and returns its id.
// The first assistant message creates the file. A custom message is recorded as a
// custom_message entry, as pi records them.
func (s *Session) AppendMessage(m provider.Message) (string, error) {
	if m.Role == RoleCustom {
		return s.AppendCustomMessage(CustomType(&m), m.Content, Displayed(&m), m.Details)
	}
	c := m.Clone()
	return s.append(&Entry{Type: TypeMessage, Message: &c})
}

// appendMessages records msgs (user, assistant and tool results) one after the other, as
// AppendMessage does, and writes them at once: a store keeps them in one transaction.
func (s *Session) appendMessages(msgs []provider.Message) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return ErrClosed
	}
	for _, m := range msgs {
		c := m.Clone()
		e := &Entry{Type: TypeMessage, Message: &c, ID: newEntryID(s.taken), ParentID: s.leafID(), Timestamp: isoTime(s.now())}
		s.addEntry(e)
	}
	return s.flushLocked()
}

// AppendModelChange records a switch of model.
func (s *Session) AppendModelChange(providerName, modelID string) (string, error) {
	return s.append(&Entry{Type: TypeModelChange, Provider: providerName, ModelID: modelID})
}

// AppendThinkingLevel records a change of thinking level (off, minimal, low, medium, high, xhigh).
func (s *Session) AppendThinkingLevel(level string) (string, error) {
	return s.append(&Entry{Type: TypeThinking, ThinkingLevel: level})
}

// Compaction is the payload of a compaction entry.
type Compaction struct {
	Summary          string
	FirstKeptEntryID string
	TokensBefore     int
	Details          any  // usually CompactionDetails; nil for none
	FromHook         bool // the summary came from a Lua hook, not from us
}

// AppendCompaction records a compaction. Context building then starts from its summary.
func (s *Session) AppendCompaction(c Compaction) (string, error) {
	details, err := rawJSON(c.Details)
	if err != nil {
		return "", fmt.Errorf("compaction details: %w", err)
	}
	e := &Entry{Type: TypeCompaction, Summary: c.Summary, FirstKeptEntryID: c.FirstKeptEntryID,
		TokensBefore: c.TokensBefore, Details: details}
	if c.FromHook {
		e.FromHook = &c.FromHook
	}
	return s.append(e)
}

// AppendCustom records extension state that does not enter the model's context.
func (s *Session) AppendCustom(customType string, data any) (string, error) {
	raw, err := rawJSON(data)
	if err != nil {
		return "", fmt.Errorf("custom %q data: %w", customType, err)
	}
	return s.append(&Entry{Type: TypeCustom, CustomType: customType, Data: raw})
}

// AppendCustomMessage records an extension's message that enters the context as user input.
// A single text block is written as a plain string, as pi does for string content.
func (s *Session) AppendCustomMessage(customType string, content []provider.Block, display bool, details any) (string, error) {
	raw, err := rawJSON(details)
	if err != nil {
		return "", fmt.Errorf("custom message %q details: %w", customType, err)
	}
	asString := len(content) == 1 && content[0].Type == provider.BlockText
	return s.append(&Entry{Type: TypeCustomMessage, CustomType: customType,
		Content: append([]provider.Block(nil), content...), StringContent: asString, Display: display, Details: raw})
}

// SetLabel labels an entry (a bookmark in the tree); an empty label clears it.
func (s *Session) SetLabel(targetID, label string) (string, error) {
	s.mu.Lock()
	_, ok := s.find(targetID)
	s.mu.Unlock()
	if !ok {
		return "", fmt.Errorf("label: entry %q not found", targetID)
	}
	e := &Entry{Type: TypeLabel, TargetID: targetID}
	if label != "" {
		e.Label = &label
	}
	return s.append(e)
}

// SetName records the session's display name.
func (s *Session) SetName(name string) (string, error) {
	name = strings.TrimSpace(name)
	return s.append(&Entry{Type: TypeSessionInfo, Name: &name})
}

func rawJSON(v any) (json.RawMessage, error) {
	if v == nil {
		return nil, nil
	}
	if r, ok := v.(json.RawMessage); ok {
		return r, nil
	}
	return json.Marshal(v)
}

// append gives e an id, a parent (the leaf, unless set by the caller for branch summaries) and
// a timestamp, indexes it, moves the leaf, and writes what can be written.
func (s *Session) append(e *Entry) (string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.appendLocked(e, s.leafID())
}

func (s *Session) appendLocked(e *Entry, parent string) (string, error) {
	if s.closed {
		return "", ErrClosed
	}
	e.ID = newEntryID(s.taken)
	e.ParentID = parent
	e.Timestamp = isoTime(s.now())
	s.addEntry(e)
	return e.ID, s.flushLocked()
}

// flushLocked writes every entry not yet in the file, one write per line. A failed write is
// cut back off the file and retried with the next append.
func (s *Session) flushLocked() error {
	if !s.persist || s.written == len(s.nodes) {
		return nil
	}
	if s.f == nil && s.log == nil {
		if !s.hasReply() {
			return nil // nothing until the first reply that did not fail (pi: any reply)
		}
		if err := s.create(); err != nil {
			return err
		}
	}
	if s.log != nil {
		return s.flushToLog()
	}
	sync := false
	for s.written < len(s.nodes) {
		n := &s.nodes[s.written]
		if err := s.writeNode(n); err != nil {
			return err
		}
		sync = sync || n.role == string(provider.RoleAssistant) || n.typ == TypeCompaction || n.typ == TypeBranchSummary
		s.written++
	}
	if sync {
		if err := s.f.Sync(); err != nil {
			return fmt.Errorf("sync session %s: %w", s.path, err)
		}
	}
	return nil
}

func (s *Session) writeNode(n *node) error {
	line, err := encodeLine(n.entry)
	if err != nil {
		return fmt.Errorf("encode entry %s: %w", n.id, err)
	}
	prefix := 0
	if s.needNL {
		line = append([]byte{'\n'}, line...)
		prefix = 1
	}
	if _, err := s.f.Write(line); err != nil {
		_ = s.f.Truncate(s.size) // keep the file made of whole lines
		return fmt.Errorf("write session %s: %w", s.path, err)
	}
	n.off, n.size = s.size+int64(prefix), len(line)-1-prefix
	s.size += int64(len(line))
	s.needNL = false
	return nil
}

// create makes the session's file, or its log in its store.
func (s *Session) create() error {
	if s.backend == nil {
		return s.createFile()
	}
	line, err := encodeLine(s.header)
	if err != nil {
		return fmt.Errorf("encode session header %s: %w", s.header.ID, err)
	}
	log, err := s.backend.Create(s.header, line[:len(line)-1])
	if err != nil {
		return fmt.Errorf("create session %s: %w", s.header.ID, err)
	}
	s.log, s.rd, s.size = log, log, int64(len(line))
	return nil
}

// flushToLog hands every entry not yet in the log to it as one batch: a store writes a batch
// in one transaction, so a fork or clone lands whole or not at all.
func (s *Session) flushToLog() error {
	batch := make([]LogLine, 0, len(s.nodes)-s.written)
	off := s.size
	for i := s.written; i < len(s.nodes); i++ {
		n := &s.nodes[i]
		line, err := encodeLine(n.entry)
		if err != nil {
			return fmt.Errorf("encode entry %s: %w", n.id, err)
		}
		batch = append(batch, LogLine{Entry: n.entry, Line: line[:len(line)-1], Off: off})
		off += int64(len(line))
	}
	if err := s.log.Append(batch, s.leafID()); err != nil {
		return fmt.Errorf("write session %s: %w", s.path, err)
	}
	for k := range batch {
		n := &s.nodes[s.written+k]
		n.off, n.size = batch[k].Off, len(batch[k].Line)
	}
	s.written, s.size = len(s.nodes), off
	return nil
}

// createFile makes the session file, locks it and writes the header.
func (s *Session) createFile() error {
	if err := os.MkdirAll(filepath.Dir(s.path), 0o700); err != nil {
		return fmt.Errorf("create session directory: %w", err)
	}
	f, err := os.OpenFile(s.path, os.O_RDWR|os.O_APPEND|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return fmt.Errorf("create session: %w", err)
	}
	unlock, err := lockFile(f)
	if err != nil {
		f.Close()
		return err
	}
	line, err := encodeLine(s.header)
	if err == nil {
		_, err = f.Write(line)
	}
	if err != nil {
		_ = unlock()
		f.Close()
		_ = os.Remove(s.path)
		return fmt.Errorf("write session header %s: %w", s.path, err)
	}
	s.f, s.rd, s.unlock, s.size = f, f, unlock, int64(len(line))
	return nil
}
