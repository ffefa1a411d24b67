// Package ollamasetup owns what pi offers a new user whose Ollama is not ready: telling an
// Ollama that is installed but not serving from one that is missing, starting `ollama serve`
// (a child for this run, or detached), naming a model that fits the machine's memory, and
// pulling it through Ollama's /api/pull with its progress.
//
// It decides nothing and asks nothing: the front end asks the user and calls it with the
// answer (the host comes from provider/ollama.Host). It must not write configuration, choose
// pi's model, or print; it imports nothing of pi's and has no package-level mutable state.
package ollamasetup

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"syscall"
	"time"

	"github.com/ollama/ollama/api"
)

// State is what Detect found.
type State int

const (
	Serving      State = iota // the server answers
	NotServing                // nothing listens, and an ollama program is installed: it can be started
	NotInstalled              // nothing listens, and there is no ollama program to start
	Unreachable               // something else failed (a remote host, a timeout, a refusal that is not "nothing listens")
)

// Check is the state of the Ollama server at Host.
type Check struct {
	Host   string // the server root, e.g. http://127.0.0.1:11434
	State  State
	Binary string   // the ollama program found on PATH (NotServing)
	Models []string // the models pulled (Serving)
	Err    error    // why the server did not answer
}

// Detect asks the server at host for its models; when nothing listens on a loopback host it
// looks for the ollama program with lookPath (exec.LookPath). hc nil is a client with a
// short timeout: a server that is up answers /api/tags at once.
func Detect(ctx context.Context, host string, lookPath func(string) (string, error), hc *http.Client) Check {
	c := Check{Host: host}
	client, err := newClient(host, hc)
	if err != nil {
		c.State, c.Err = Unreachable, err
		return c
	}
	list, err := client.List(ctx)
	if err == nil {
		for _, m := range list.Models {
			c.Models = append(c.Models, m.Name)
		}
		c.State = Serving
		return c
	}
	c.Err = fmt.Errorf("ask %s for its models: %w", host, err)
	if !errors.Is(err, syscall.ECONNREFUSED) || !loopback(host) {
		c.State = Unreachable
		return c
	}
	if bin, lerr := lookPath("ollama"); lerr == nil {
		c.State, c.Binary = NotServing, bin
		return c
	}
	c.State = NotInstalled
	return c
}

// Listening reports whether something accepts connections at host: one loopback dial, far
// cheaper than Detect's model list, for a caller that only needs to know the server is up.
func Listening(ctx context.Context, host string) bool {
	u, err := url.Parse(host)
	if err != nil || u.Host == "" {
		return false
	}
	addr := u.Host
	if u.Port() == "" {
		addr = net.JoinHostPort(u.Hostname(), map[bool]string{true: "443", false: "80"}[u.Scheme == "https"])
	}
	d := net.Dialer{Timeout: time.Second}
	conn, err := d.DialContext(ctx, "tcp", addr)
	if err != nil {
		return false
	}
	conn.Close()
	return true
}

// Advice is what to tell the user about c, in a sentence or two.
func (c Check) Advice() string {
	switch c.State {
	case Serving:
		if len(c.Models) == 0 {
			return fmt.Sprintf("Ollama at %s has no model yet: pull one (ollama pull NAME), or let pi pull one that fits this machine.", c.Host)
		}
		return fmt.Sprintf("Ollama at %s serves %d model(s).", c.Host, len(c.Models))
	case NotServing:
		return fmt.Sprintf("Ollama is installed (%s) but not serving on %s: pi can start `ollama serve` for this run, or you can start it yourself.", c.Binary, c.Host)
	case NotInstalled:
		return fmt.Sprintf("No Ollama server on %s, and no ollama program on PATH: install Ollama (https://ollama.com), or name another provider in pi.toml.", c.Host)
	}
	return fmt.Sprintf("The Ollama server at %s does not answer: %v", c.Host, c.Err)
}

func newClient(host string, hc *http.Client) (*api.Client, error) {
	u, err := url.Parse(host)
	if err != nil || u.Host == "" {
		return nil, fmt.Errorf("ollama host %q is not a URL", host)
	}
	if hc == nil {
		hc = &http.Client{Timeout: 5 * time.Second}
	}
	return api.NewClient(u, hc), nil
}

// loopback reports whether host names this machine: only there can pi start the server.
func loopback(host string) bool {
	u, err := url.Parse(host)
	if err != nil {
		return false
	}
	h := u.Hostname()
	if h == "localhost" {
		return true
	}
	ip := net.ParseIP(h)
	return ip != nil && ip.IsLoopback()
}
