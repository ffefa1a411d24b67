package live

// wiring.go is New: a live session built from its Options and pi.toml: the provider and
// model, the Lua runtime and the host functions scripts call, the toolset and system prompt,
// the agent and its session file. Several sessions can be built in one process; none shares
// state with another but the configuration.

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"pi/agent"
	"pi/config"
	"pi/internal/proc"
	"pi/internal/sandbox"
	"pi/lua"
	"pi/packages"
	"pi/permission"
	"pi/prompt"
	"pi/provider"
	"pi/provider/faux"
	"pi/session"
	"pi/tools"
)

// parts is what a session is assembled from, once the provider and tools are known.
type parts struct {
	cfg          *config.Config
	cwd, piHome  string
	stderr       io.Writer
	provider     provider.Provider
	model        provider.Model
	thinking     string
	scripts      *scripts // tools, prompt parts and runtime, already set up
	stopAfter    func(context.Context, *provider.Message, []provider.Message) bool
	modelProblem string
	picked       string         // why pi picked the model when nothing named one ("" when something did)
	unknownModel bool           // no configured provider has the model: perhaps one the scripts register
	spill        *proc.SpillDir // the tools' folder for bash output, which the user's !cmd shares
	sandbox      *sandbox.Sandbox
	// loadedScripts, for a child under the sandbox, gives the parent's scripts as the parent
	// read them (lua.Options.Loaded); nil reads them from disk.
	loadedScripts func(path string) (string, bool)
}

// newSession is a session before its agent exists: what the scripts' host functions and the
// subagents' factory hold on to while the scripts load. assemble completes it.
func newSession(p parts) *Session {
	h := &Session{cfg: p.cfg, cwd: p.cwd, piHome: p.piHome, stderr: p.stderr, work: newWorkRegistry()}
	h.life, h.endLife = context.WithCancel(context.Background())
	return h
}

// assemble builds the session around its agent. The caller attaches a session file next.
func (h *Session) assemble(p parts) {
	h.scripts = p.scripts
	h.start.set(p.modelProblem, p.model, p.picked)
	s := p.scripts
	active, _ := s.selectActive(false)
	h.compactor = &compactor{scripts: s, cwd: p.cwd}
	secret := p.cfg.SecretPolicy() // key values never reach the model, the session or an export
	hooks := agent.Hooks{PrepareNextTurn: h.compactor.prepareNextTurn, ConvertToLLM: session.ToLLM,
		ShouldStopAfterTurn: p.stopAfter, Redact: func(r tools.Result) tools.Result { return r.Redacted(secret.Redact) }}
	s.hooks(&hooks)
	hooks.PrepareRequest = h.prepareRequest
	h.agent = agent.New(agent.Config{Provider: p.provider, Model: p.model, Thinking: p.thinking,
		SystemPrompt: prompt.Build(s.parts.WithTools(active)), Tools: active, Hooks: hooks,
		SteeringMode: agent.QueueMode(p.cfg.SteeringMode), FollowUpMode: agent.QueueMode(p.cfg.FollowUpMode)})
	s.agent, s.cfg, s.stderr = h.agent, p.cfg, p.stderr
	h.agent.Subscribe(s.onEvent)
	h.agent.Subscribe(h.budgetEvent)
	h.agent.Subscribe(func(_ context.Context, ev agent.Event) {
		if ev.Type == agent.EvAgentEnd {
			h.runEnding.Store(true)
		}
	})
	h.rec = newRecorder(h.agent, p.stderr)
	if path := p.cfg.Log.Responses; path != "" {
		h.agent.Subscribe(newResponseLog(path, p.piHome, func() string { return h.rec.session().ID() }, p.stderr).onEvent)
	}
	h.settings = &settings{agent: h.agent, cfg: p.cfg, rec: h.rec, scripts: s, stderr: p.stderr}
	h.compactor.agent, h.compactor.rec, h.compactor.settings = h.agent, h.rec, h.settings
	h.shell = &userShell{agent: h.agent, rec: h.rec, work: h.work, cfg: p.cfg, cwd: p.cwd, spill: p.spill,
		confine: p.sandbox.Confine, scripts: s}
	if r, ok := p.provider.(*provider.Retrying); ok {
		r.Notify, r.Provider = h.settings.retryNotice, lua.HookProvider(r.Provider, func() *lua.Runtime { return s.rt })
	}
}

// New loads the configuration and builds a live session as o says. Without a usable model an
// interactive session still starts and says what to do (ModelProblem); otherwise that advice
// is the error.
func New(ctx context.Context, o Options) (*Session, error) {
	cwd, err := o.Cwd, error(nil)
	if cwd == "" {
		if cwd, err = os.Getwd(); err != nil {
			return nil, fmt.Errorf("finding the working directory: %w", err)
		}
	}
	if o.PiHome == "" {
		o.PiHome = Home()
	}
	if o.Stderr == nil {
		o.Stderr = io.Discard
	}
	p := parts{cwd: cwd, piHome: o.PiHome, stderr: o.Stderr, stopAfter: o.StopAfterTurn}
	if p.cfg, err = config.Load(p.piHome, cwd, ProjectTrusted(o.Trust, p.piHome, cwd)); err != nil {
		return nil, err
	}
	var notices []string // at most one: what the kernel cannot do of what [sandbox] asks
	if p.sandbox, notices, err = sandbox.New(p.cfg.Sandbox, cwd, sandbox.Options{Mode: o.Sandbox}); err != nil {
		return nil, err
	}
	p.cfg.Warnings = append(p.cfg.Warnings, notices...)
	p.provider, p.model, p.picked, err = resolveProvider(ctx, &o, p.cfg)
	for _, w := range p.cfg.Warnings { // the file's, the sandbox's, then the model's (a smaller window)
		fmt.Fprintln(o.Stderr, "pi: warning:", w)
	}
	if p.unknownModel = errors.Is(err, config.ErrNotConfigured); err != nil && !p.unknownModel && (!o.Interactive || p.provider == nil) {
		return nil, err
	}
	if err != nil {
		p.modelProblem = err.Error() // the terminal UI starts anyway and shows this first
	}
	if p.thinking = o.Thinking; p.thinking == "" {
		p.thinking = p.cfg.ThinkingLevel(o.Model)
	}
	return setupScripts(ctx, &o, p)
}

// setupScripts starts the Lua runtime (scripts load in the background while the rest of pi
// starts), builds the toolset, and opens the session.
func setupScripts(ctx context.Context, o *Options, p parts) (*Session, error) {
	ps := p.cfg.Permissions // the permission settings of pi.toml under --permissions and --yes
	p.scripts = &scripts{cfg: p.cfg, stderr: p.stderr, gate: permission.New(permission.Settings{Mode: cmp.Or(o.Permissions, ps.Mode),
		Allow: ps.Allow, Ask: ps.Ask, Deny: ps.Deny, Yes: o.Yes}, p.piHome, p.cwd)}
	h := newSession(p) // the host functions and the children's factory reach it; assemble completes it
	h.start.spec, h.start.resolvable = startSpec(o), o.Provider == nil && o.FauxScript == "" && o.ProviderName != "faux"
	h.warmOn = o.Prewarm
	subs := newSubagents(o, p, h)
	p.scripts.children = subs.M
	var askTrust func(context.Context, string) (bool, error)
	if o.Interactive { // the terminal UI asks on its own screen once it is up (trust.go)
		askTrust = func(context.Context, string) (bool, error) { return false, lua.ErrAskLater }
		p.scripts.askTrust = !o.Trust && !o.NoExtensions
	}
	box := p.cfg.Sandbox // as in force: --sandbox replaces its mode
	box.Mode = cmp.Or(o.Sandbox, box.Mode)
	rt, err := lua.New(ctx, lua.Options{PiHome: p.piHome, Cwd: p.cwd, Trust: o.Trust, Disabled: p.cfg.Lua.Disable,
		NoProject: o.NoExtensions, Environ: p.cfg.SecretPolicy().Environ, Host: scriptHost(p.scripts, h, subs),
		AskTrust: askTrust, Confine: p.sandbox.Confine, HTTPAllowed: box.HTTPAllowed, Loaded: p.loadedScripts, Extensions: o.Extensions, Flags: o.ScriptFlags,
		Packages: packages.Dirs(packages.Root(p.piHome, p.cwd, false)), ProjectPackages: packages.Dirs(packages.Root(p.piHome, p.cwd, true))})
	if err != nil {
		return nil, fmt.Errorf("starting the Lua runtime: %w", err)
	}
	p.scripts.rt, p.cfg = rt, p.cfg.WithDefinitions(rt.Providers)
	if err := p.resolveLater(ctx, o); err != nil {
		rt.Close()
		return nil, err
	}
	if err := buildTools(o, &p); err != nil {
		rt.Close()
		return nil, err
	}
	if _, err := p.scripts.selectActive(!o.InheritedTools); err != nil {
		rt.Close()
		return nil, err
	}
	h.assemble(p)
	context.AfterFunc(h.life, subs.M.Close)
	if err := h.settings.setScoped(o.Scope); err != nil {
		h.close()
		return nil, fmt.Errorf("--models: %w", err)
	}
	sess, err := openSession(ctx, o, p, h)
	if err == nil {
		err = h.attachSession(sess, restore{keepModel: o.Model != "", keepThinking: o.Thinking != ""})
	}
	if err != nil {
		h.close()
		return nil, err
	}
	rt.SessionStarted(ctx) // session_start, then resources_discover
	h.prewarm()
	return h, nil
}

// buildTools makes the built-in tools, picks the allow-list and gathers the system prompt's
// other inputs.
func buildTools(o *Options, p *parts) error {
	env, err := tools.NewEnv(p.cwd)
	if err != nil {
		return err
	}
	s := p.scripts
	env.ImagesAllowed = func() bool { m := s.agent.Model(); return m.AcceptsImages() }
	env.Window, s.limits = func() int { return s.agent.Model().ContextWindow }, env.Limits
	if p.cfg.Bash.TimeoutSeconds > 0 {
		env.BashTimeout = time.Duration(p.cfg.Bash.TimeoutSeconds) * time.Second
	}
	env.Shell, env.Confine, env.Environ = p.cfg.Bash.Shell, p.sandbox.Confine, p.cfg.SecretPolicy().Environ
	env.WriteNeedsRead = p.cfg.Permissions.WriteNeedsRead()
	p.spill = env.Spill
	for _, name := range tools.Offered() {
		t, err := tools.New(name, env)
		if err != nil {
			return err
		}
		s.builtins = append(s.builtins, t)
	}
	switch {
	case o.NoTools:
		s.noTools = true
	case len(o.Tools) > 0:
		s.allowlist = o.Tools
	default:
		s.allowlist = p.cfg.Tools
	}
	return loadPromptParts(o, p)
}

func loadPromptParts(o *Options, p *parts) error {
	parts := prompt.Parts{Body: o.SystemPrompt}
	files, err := prompt.LoadPromptFiles(p.piHome, p.cwd, ProjectTrusted(o.Trust, p.piHome, p.cwd))
	if err != nil {
		return err
	}
	if files.Demoted != "" {
		fmt.Fprintf(p.stderr, "pi: %s is added after pi's system prompt, not in its place: this project is not trusted\n", files.Demoted)
	}
	if parts.Body == "" {
		parts.Body = files.Body
	}
	parts.Append = []string{files.Append, o.AppendPrompt}
	if !o.NoContextFiles {
		if parts.ContextFiles, err = prompt.LoadContextFiles(p.piHome, p.cwd); err != nil {
			return err
		}
	}
	p.scripts.parts = parts
	return nil
}

// scriptHost is what scripts can do to the live session; every message they send goes
// through the front door like the user's. Scripts load before h is assembled; until then
// they may only report problems (Notify) and read their configuration.
func scriptHost(s *scripts, h *Session, subs lua.Subagents) lua.Host {
	ui := s.currentUI
	return lua.Host{Subagents: subs,
		SendUserMessage: func(text, deliverAs string) error {
			in := Input{Text: text, Source: SourceExtension, Deliver: DeliverFollowUp}
			if deliverAs == "steer" {
				in.Deliver = DeliverSteer
			}
			h.scriptSends.add()
			go func() { // the script's own goroutine must stay free for the input hooks
				defer h.scriptSends.done()
				if err := h.Send(h.life, in); err != nil && h.life.Err() == nil {
					h.scripts.notify("pi.send_user_message: "+err.Error(), "error")
				}
			}()
			return nil
		},
		Notify:  s.notify,
		Session: scriptSession{s, h},
		Confirm: func(ctx context.Context, title, msg string) (bool, error) {
			if u := ui(); u != nil {
				return u.Confirm(ctx, title, msg)
			}
			return false, nil
		},
		Select: func(ctx context.Context, title string, options []string) (string, bool, error) {
			if u := ui(); u != nil {
				return u.Select(ctx, title, options)
			}
			return "", false, nil
		},
		Input: func(ctx context.Context, title, placeholder string) (string, bool, error) {
			if u := ui(); u != nil {
				return u.Input(ctx, title, placeholder)
			}
			return "", false, nil
		},
		Model: func() string { m := h.agent.Model(); return m.Provider + "/" + m.ID },
		SetModel: func(ctx context.Context, spec string) error {
			_, err := h.settings.setModel(ctx, spec, "set")
			return err
		},
		ActiveTools:    func() []string { return toolNames(h.agent.State().Tools) },
		SetActiveTools: func(names []string) error { return h.scripts.setActiveTools(names) },
		Complete: func(ctx context.Context, prompt string, opts lua.CompleteOptions) (string, error) {
			return h.scripts.completeOnce(ctx, prompt, opts)
		},
		Config:        func(name string) map[string]any { return s.cfg.ScriptConfig(name) }, // set before loading starts
		Permissions:   s.gate.Policy,
		AskPermission: s.askPermission,
	}
}

// openSession picks the session the flags ask for (session.Choose).
func openSession(ctx context.Context, o *Options, p parts, h *Session) (*session.Session, error) {
	c := o.Session
	c.Dir, c.Home, c.Cwd = cmp.Or(c.Dir, p.cfg.SessionDir), p.piHome, p.cwd
	if o.OpenStore != nil && !c.InMemory {
		st, err := o.OpenStore(ctx, p.cfg, p.piHome)
		if err != nil {
			return nil, err
		}
		c.Store, h.store = st, st
	}
	return session.Choose(ctx, c)
}

// resolveProvider picks the provider and model from the flags and pi.toml, wrapped so that
// transient failures are retried, and says why pi picked the model when nothing named one. A
// failure to find a model is returned with the unavailable provider, so the terminal UI can
// still start and say what to do.
func resolveProvider(ctx context.Context, o *Options, cfg *config.Config) (provider.Provider, provider.Model, string, error) {
	if o.Provider != nil {
		return o.Provider, o.ProviderModel, "", nil
	}
	if o.FauxScript != "" || o.ProviderName == "faux" {
		p, m, err := faux.FromCommandLine(o.FauxScript, o.Model)
		return p, m, "", err
	}
	p, model, picked, err := cfg.ResolveModelPicked(ctx, startSpec(o))
	if err != nil {
		return provider.Unavailable(err), noModel(), "", err
	}
	return &provider.Retrying{Provider: p, Policy: cfg.RetryPolicy()}, model, picked, nil
}

// startSpec is the model the command line names ("" for pi.toml's, or discovery).
func startSpec(o *Options) string {
	spec := o.Model
	if o.ProviderName != "" && !strings.Contains(spec, "/") {
		spec = strings.TrimSuffix(o.ProviderName+"/"+spec, "/")
	}
	return spec
}

// noModel is the placeholder of a session that has no usable model yet; pickers leave it out.
func noModel() provider.Model { return provider.Model{ID: "none", Provider: "none"} }

func isNoModel(m provider.Model) bool { return m.Provider == "none" && m.ID == "none" }

// WithScriptProviders is cfg with the providers the user's scripts register, for listing
// models without a session; stop ends the scripts.
func WithScriptProviders(ctx context.Context, cfg *config.Config, piHome string, trust bool, cwd string) (_ *config.Config, stop func()) {
	rt, err := lua.New(ctx, lua.Options{PiHome: piHome, Cwd: cwd, Trust: trust, Disabled: append([]string{"mcp"}, cfg.Lua.Disable...),
		Host: lua.Host{Config: cfg.ScriptConfig}, Packages: packages.Dirs(packages.Root(piHome, cwd, false))})
	if err != nil {
		return cfg, func() {}
	}
	if rt.Ready(ctx) != nil {
		rt.Close()
		return cfg, func() {}
	}
	return cfg.WithDefinitions(rt.Providers), rt.Close
}

// resolveLater resolves a model no configured provider has once the scripts, which may
// register its provider, are loaded.
func (p *parts) resolveLater(ctx context.Context, o *Options) error {
	if !p.unknownModel {
		return nil
	}
	if err := p.scripts.rt.Ready(ctx); err != nil {
		return err
	}
	pr, m, picked, err := resolveProvider(ctx, o, p.cfg)
	if err == nil {
		p.provider, p.model, p.picked, p.modelProblem = pr, m, picked, ""
	} else if !o.Interactive {
		return err
	}
	return nil
}

// Home is $PI_HOME, else ~/.pi.
func Home() string { h, _ := session.Home(); return h }
