// Package lsp runs language servers for the files the agent edits and
// reports their diagnostics: one server per language and workspace root,
// started on the first edit of a file of its language, stopped (shutdown,
// exit, then its process group killed) when the session closes. It speaks
// LSP through go.lsp.dev/jsonrpc2 (framing, request/response matching)
// and decodes only the few protocol structures it uses.
package lsp

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"
)

// Defaults of Options.
const (
	DefaultWait           = 3 * time.Second
	DefaultMaxDiagnostics = 20
	// MaxRestarts is how often a crashed server is started again.
	MaxRestarts = 3
	// maxFileBytes: a bigger file is not sent to a server.
	maxFileBytes = 8 << 20
	// startTimeout bounds starting and initializing a server.
	startTimeout = 30 * time.Second
	// closeGrace bounds shutdown/exit of one server.
	closeGrace = 2 * time.Second
)

// Options configure a Manager.
type Options struct {
	// Servers are the servers to use, in order of preference for a file
	// type (DefaultServers when nil).
	Servers []ServerConfig
	// Wait bounds the wait for a file's diagnostics after an edit
	// (DefaultWait when 0).
	Wait time.Duration
	// MaxDiagnostics caps the diagnostics reported per edit
	// (DefaultMaxDiagnostics when 0).
	MaxDiagnostics int
	// Cwd is the session's directory: the root when no marker is found,
	// and what reported paths are relative to.
	Cwd string
	// Environ is the servers' environment (nil: the process's).
	Environ []string
	// Track records a started server's process group with the reaper and
	// returns the function that forgets it; nil records nothing.
	Track func(pgid int) (release func())
	// LookPath finds a program (exec.LookPath when nil).
	LookPath func(string) (string, error)
}

// Severity names of diagnostics, as reported.
const (
	SeverityError   = "error"
	SeverityWarning = "warning"
)

// Diagnostic is one problem a server reported in a file.
type Diagnostic struct {
	// Path is the file, relative to the session's directory when inside it.
	Path string `json:"path"`
	// Line and Col are 1-based (Col counts UTF-16 units, as LSP does).
	Line int `json:"line"`
	Col  int `json:"col"`
	// Severity is "error" or "warning".
	Severity string `json:"severity"`
	// Message is the server's text; Source what produced it ("compiler").
	Message string `json:"message"`
	Source  string `json:"source,omitempty"`
	// Existing marks a diagnostic the file already had before this edit.
	Existing bool `json:"existing,omitempty"`
}

// String is the diagnostic as `path:line:col: severity: message`.
func (d Diagnostic) String() string {
	s := fmt.Sprintf("%s:%d:%d: %s: %s", d.Path, d.Line, d.Col, d.Severity, d.Message)
	if d.Existing {
		s += " (already there before this edit)"
	}
	return s
}

// Report is what checking edited files found.
type Report struct {
	// Diagnostics are the files' errors then warnings, capped.
	Diagnostics []Diagnostic
	// Omitted counts diagnostics left out by the cap.
	Omitted int
	// Notes say why diagnostics were not available for some file.
	Notes []string
	// Servers names the servers that answered.
	Servers []string

	omittedErrors int
}

// Text renders the report for the tool result: "" when there is nothing
// to say.
func (r Report) Text() string {
	var b strings.Builder
	if len(r.Servers) > 0 {
		errs := 0
		for _, d := range r.Diagnostics {
			if d.Severity == SeverityError {
				errs++
			}
		}
		switch n := len(r.Diagnostics) + r.Omitted; {
		case n == 0:
			fmt.Fprintf(&b, "Diagnostics (%s): none.", strings.Join(r.Servers, ", "))
		default:
			fmt.Fprintf(&b, "Diagnostics (%s): %d, %d of them errors:", strings.Join(r.Servers, ", "), n, errs+countOmittedErrors(r))
			for _, d := range r.Diagnostics {
				b.WriteString("\n" + d.String())
			}
			if r.Omitted > 0 {
				fmt.Fprintf(&b, "\n... and %d more", r.Omitted)
			}
		}
	}
	for _, n := range r.Notes {
		if b.Len() > 0 {
			b.WriteString("\n")
		}
		b.WriteString(n)
	}
	return b.String()
}

// countOmittedErrors is how many of the diagnostics the cap left out are
// errors.
func countOmittedErrors(r Report) int { return r.omittedErrors }

// key names one server instance.
type key struct{ server, root string }

// instance is one server for one root, with its restart count.
type instance struct {
	mu       sync.Mutex
	c        *client
	starting chan struct{} // non-nil while a start runs; closed when it ends
	startErr error         // why the last start failed
	starts   int           // starts so far
	err      error         // why it is not started again (given up)
}

// Manager owns the session's language servers. It is safe for concurrent
// use; a nil Manager checks nothing.
type Manager struct {
	opts Options

	// ctx ends when the Manager closes: it cancels starts in progress.
	ctx      context.Context
	cancel   context.CancelFunc
	starters sync.WaitGroup

	mu        sync.Mutex
	closed    bool
	instances map[key]*instance
	said      map[string]bool // notes given once per session
}

// New returns a Manager; no server starts until a file is checked.
func New(opts Options) *Manager {
	if opts.Servers == nil {
		opts.Servers = DefaultServers()
	}
	if opts.Wait <= 0 {
		opts.Wait = DefaultWait
	}
	if opts.MaxDiagnostics <= 0 {
		opts.MaxDiagnostics = DefaultMaxDiagnostics
	}
	if opts.LookPath == nil {
		opts.LookPath = exec.LookPath
	}
	if opts.Environ == nil {
		opts.Environ = os.Environ()
	}
	ctx, cancel := context.WithCancel(context.Background())
	return &Manager{opts: opts, ctx: ctx, cancel: cancel, instances: map[key]*instance{}, said: map[string]bool{}}
}

// serverFor returns the server for a file type: the first whose program
// is found, or, when none is, the first configured one (to say it is
// missing) and a note.
func (m *Manager) serverFor(ft string) (ServerConfig, string, bool) {
	var missing []string
	for _, s := range m.opts.Servers {
		if !contains(s.Filetypes, ft) || len(s.Command) == 0 {
			continue
		}
		if _, err := m.opts.LookPath(s.Command[0]); err == nil {
			return s, "", true
		}
		missing = append(missing, s.Command[0])
	}
	if len(missing) == 0 {
		return ServerConfig{}, "", false
	}
	return ServerConfig{}, fmt.Sprintf("Diagnostics not available for .%s files: no language server found (%s not on PATH).", ft, strings.Join(missing, ", ")), false
}

// Check sends the edited files' new content to their servers, waits (at
// most Options.Wait in all) for the diagnostics of those versions and
// returns them. Files of languages without a server are skipped; a
// missing, failing or slow server becomes a note, never an error.
func (m *Manager) Check(ctx context.Context, paths ...string) Report {
	if m == nil || len(paths) == 0 {
		return Report{}
	}
	ctx, cancel := context.WithTimeout(ctx, m.opts.Wait)
	defer cancel()
	type one struct {
		diags  []Diagnostic
		note   string
		server string
	}
	results := make([]one, len(paths))
	var wg sync.WaitGroup
	for i, p := range paths {
		wg.Add(1)
		go func() {
			defer wg.Done()
			d, server, note := m.checkOne(ctx, p)
			results[i] = one{diags: d, note: note, server: server}
		}()
	}
	wg.Wait()
	var r Report
	var all []Diagnostic
	servers := map[string]bool{}
	for _, o := range results {
		all = append(all, o.diags...)
		if o.note != "" && !contains(r.Notes, o.note) {
			r.Notes = append(r.Notes, o.note)
		}
		if o.server != "" && !servers[o.server] {
			servers[o.server] = true
			r.Servers = append(r.Servers, o.server)
		}
	}
	sort.SliceStable(all, func(i, j int) bool { return rank(all[i]) < rank(all[j]) })
	if len(all) > m.opts.MaxDiagnostics {
		for _, d := range all[m.opts.MaxDiagnostics:] {
			if d.Severity == SeverityError {
				r.omittedErrors++
			}
		}
		r.Omitted = len(all) - m.opts.MaxDiagnostics
		all = all[:m.opts.MaxDiagnostics]
	}
	r.Diagnostics = all
	return r
}

// rank orders new errors, new warnings, then existing ones.
func rank(d Diagnostic) int {
	n := 0
	if d.Severity != SeverityError {
		n++
	}
	if d.Existing {
		n += 2
	}
	return n
}

// checkOne checks one file: its diagnostics, the server's name when it
// answered, or a note saying why not.
func (m *Manager) checkOne(ctx context.Context, path string) ([]Diagnostic, string, string) {
	path = m.abs(path)
	ft := fileType(path)
	cfg, note, ok := m.serverFor(ft)
	if !ok {
		if note != "" && m.once("missing:"+ft) {
			return nil, "", note
		}
		return nil, "", ""
	}
	text, err := os.ReadFile(path)
	if err != nil {
		return nil, "", fmt.Sprintf("Diagnostics not available for %s: %v.", m.rel(path), err)
	}
	if len(text) > maxFileBytes {
		return nil, "", fmt.Sprintf("Diagnostics not available for %s: the file is over %d MiB.", m.rel(path), maxFileBytes>>20)
	}
	root := findRoot(filepath.Dir(path), cfg.RootMarkers, m.rootFallback(path))
	c, err := m.client(ctx, cfg, root)
	if err != nil {
		return nil, "", fmt.Sprintf("Diagnostics not available for %s: %s: %v.", m.rel(path), cfg.Name, err)
	}
	before := c.current()[path]
	v, since, err := c.sync(ctx, path, text)
	if err != nil && c.exitedWithin(ctx, time.Second) {
		// The server had stopped before its exit was seen: the file goes
		// to a new one, started like after any crash (and counted).
		if c, err = m.client(ctx, cfg, root); err != nil {
			return nil, "", fmt.Sprintf("Diagnostics not available for %s: %s: %v.", m.rel(path), cfg.Name, err)
		}
		before = c.current()[path]
		v, since, err = c.sync(ctx, path, text)
	}
	if err != nil {
		return nil, "", fmt.Sprintf("Diagnostics not available for %s: %s: %v.", m.rel(path), cfg.Name, err)
	}
	items, ok := c.waitFor(ctx, path, v, since)
	if !ok {
		if !c.alive() {
			return nil, "", fmt.Sprintf("Diagnostics not available for %s: %s stopped%s.", m.rel(path), cfg.Name, c.stderrNote())
		}
		return nil, "", fmt.Sprintf("Diagnostics not available for %s: %s did not publish them within %s.", m.rel(path), cfg.Name, m.opts.Wait)
	}
	return m.convert(path, items, before), cfg.Name, ""
}

// convert turns a server's diagnostics into ours: errors and warnings
// only, each marked Existing when the file had the same one before.
func (m *Manager) convert(path string, items, before []lspDiagnostic) []Diagnostic {
	had := map[string]int{}
	for _, d := range before {
		had[sig(d)]++
	}
	var out []Diagnostic
	for _, d := range items {
		sev := SeverityError
		switch d.Severity {
		case 0, 1:
		case 2:
			sev = SeverityWarning
		default:
			continue // information and hints
		}
		existing := had[sig(d)] > 0
		if existing {
			had[sig(d)]--
		}
		out = append(out, Diagnostic{Path: m.rel(path), Line: d.Range.Start.Line + 1, Col: d.Range.Start.Character + 1,
			Severity: sev, Message: strings.TrimSpace(d.Message), Source: d.Source, Existing: existing})
	}
	return out
}

// sig identifies a diagnostic across an edit that moves lines.
func sig(d lspDiagnostic) string { return fmt.Sprint(d.Severity, "\x00", d.Source, "\x00", d.Message) }

// Current returns the last published errors and warnings of path, or of
// every open file when path is "".
func (m *Manager) Current(path string) []Diagnostic {
	if m == nil {
		return nil
	}
	if path != "" {
		path = m.abs(path)
	}
	m.mu.Lock()
	clients := make([]*client, 0, len(m.instances))
	for _, in := range m.instances {
		in.mu.Lock()
		if in.c != nil {
			clients = append(clients, in.c)
		}
		in.mu.Unlock()
	}
	m.mu.Unlock()
	var out []Diagnostic
	for _, c := range clients {
		for p, items := range c.current() {
			if path == "" || p == path {
				out = append(out, m.convert(p, items, nil)...)
			}
		}
	}
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].Path != out[j].Path {
			return out[i].Path < out[j].Path
		}
		if rank(out[i]) != rank(out[j]) {
			return rank(out[i]) < rank(out[j])
		}
		return out[i].Line < out[j].Line
	})
	return out
}

// client returns the running server for cfg and root. A server is
// started in the background (within startTimeout, whatever ctx allows) so
// that a slow start costs this edit at most ctx's time and is ready for
// the next; a crashed or failed one is started again at most MaxRestarts
// times.
func (m *Manager) client(ctx context.Context, cfg ServerConfig, root string) (*client, error) {
	m.mu.Lock()
	if m.closed {
		m.mu.Unlock()
		return nil, fmt.Errorf("the session is closing")
	}
	k := key{cfg.Name, root}
	in := m.instances[k]
	if in == nil {
		in = &instance{}
		m.instances[k] = in
	}
	in.mu.Lock()
	if in.c != nil && in.c.alive() {
		c := in.c
		in.mu.Unlock()
		m.mu.Unlock()
		return c, nil
	}
	if in.starting == nil {
		if in.c != nil { // it crashed
			in.startErr = fmt.Errorf("it stopped%s", in.c.stderrNote())
			in.c.kill()
			in.c = nil
		}
		if in.err == nil && in.starts > MaxRestarts {
			in.err = fmt.Errorf("not started again this session after %d failed starts or crashes (last: %v)", in.starts, in.startErr)
		}
		if in.err != nil {
			in.mu.Unlock()
			m.mu.Unlock()
			return nil, in.err
		}
		in.starts++
		in.starting = make(chan struct{})
		m.starters.Add(1)
		go m.start(in, cfg, root)
	}
	ch := in.starting
	in.mu.Unlock()
	m.mu.Unlock()
	select {
	case <-ch:
	case <-ctx.Done():
		return nil, fmt.Errorf("still starting")
	}
	in.mu.Lock()
	defer in.mu.Unlock()
	if in.c != nil {
		return in.c, nil
	}
	return nil, in.startErr
}

// start runs one start of in's server.
func (m *Manager) start(in *instance, cfg ServerConfig, root string) {
	defer m.starters.Done()
	ctx, cancel := context.WithTimeout(m.ctx, startTimeout)
	defer cancel()
	c, err := startClient(ctx, cfg, root, &m.opts)
	m.mu.Lock()
	closed := m.closed
	m.mu.Unlock()
	if err == nil && closed {
		c.kill()
		c, err = nil, fmt.Errorf("the session is closing")
	}
	in.mu.Lock()
	defer in.mu.Unlock()
	in.c, in.startErr = c, err
	close(in.starting)
	in.starting = nil
}

// Close stops every server: shutdown and exit, then the process group is
// killed. Starts in progress are cancelled. Later checks do nothing.
func (m *Manager) Close() error {
	if m == nil {
		return nil
	}
	m.mu.Lock()
	m.closed = true
	ins := make([]*instance, 0, len(m.instances))
	for _, in := range m.instances {
		ins = append(ins, in)
	}
	m.mu.Unlock()
	m.cancel()
	m.starters.Wait()
	var wg sync.WaitGroup
	for _, in := range ins {
		wg.Add(1)
		go func() {
			defer wg.Done()
			in.mu.Lock()
			c := in.c
			in.c = nil
			in.mu.Unlock()
			if c != nil {
				c.close(closeGrace)
			}
		}()
	}
	wg.Wait()
	return nil
}

// once reports whether note key is given for the first time.
func (m *Manager) once(k string) bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.said[k] {
		return false
	}
	m.said[k] = true
	return true
}

func (m *Manager) abs(p string) string {
	if !filepath.IsAbs(p) && m.opts.Cwd != "" {
		p = filepath.Join(m.opts.Cwd, p)
	}
	return filepath.Clean(p)
}

func (m *Manager) rel(p string) string {
	if m.opts.Cwd != "" {
		if r, err := filepath.Rel(m.opts.Cwd, p); err == nil && !strings.HasPrefix(r, "..") {
			return r
		}
	}
	return p
}

// rootFallback is the root of a file no marker places: the session's
// directory when the file is inside it, else the file's own directory.
func (m *Manager) rootFallback(path string) string {
	if m.opts.Cwd != "" {
		if r, err := filepath.Rel(m.opts.Cwd, path); err == nil && !strings.HasPrefix(r, "..") {
			return m.opts.Cwd
		}
	}
	return filepath.Dir(path)
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
