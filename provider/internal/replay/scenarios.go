package replay

import (
	"context"
	"reflect"
	"testing"

	"pi/provider"
)

// Scenario is one recorded stream every adapter is tested with, named as its fixture file
// (without extension), and the stop reason the reply must end with.
type Scenario struct {
	Name string
	Stop provider.StopReason
}

// Scenarios lists the streams each adapter has a recording of: text, thinking, one and two
// tool calls, a length stop, an error mid-stream, a malformed chunk, a 429, an overflow.
func Scenarios() []Scenario {
	return []Scenario{
		{"text", provider.StopStop},
		{"thinking", provider.StopStop},
		{"tool_call", provider.StopToolUse},
		{"parallel_tools", provider.StopToolUse},
		{"length", provider.StopLength},
		{"error_midstream", provider.StopError},
		{"malformed", provider.StopError},
		{"rate_limited", provider.StopError},
		{"overflow", provider.StopError},
	}
}

// Run streams req through p and checks that the last event carries the returned message.
func Run(t testing.TB, p provider.Provider, req *provider.Request) ([]provider.Event, provider.Message) {
	t.Helper()
	var evs []provider.Event
	msg := p.Stream(context.Background(), req, func(e provider.Event) { evs = append(evs, e) })
	if len(evs) == 0 {
		t.Fatalf("no events")
	}
	if last := evs[len(evs)-1]; last.Message == nil || !reflect.DeepEqual(*last.Message, msg) {
		t.Errorf("the last event does not carry the returned message")
	}
	return evs, msg
}
