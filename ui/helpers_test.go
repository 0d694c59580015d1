package ui

import (
	"context"
	"flag"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"talaria/loop"
	"talaria/loop/trace"
	"talaria/tools"
)

// updateGolden reports -update (the flag is registered by the golden
// package that teatest brings in; both rewrite files under testdata).
func updateGolden() bool {
	f := flag.Lookup("update")
	return f != nil && f.Value.String() == "true"
}

// t0 is the fixed start time of every test clock.
var t0 = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)

// fakeAgent records the calls the screen makes.
type fakeAgent struct {
	mu       sync.Mutex
	calls    []string
	startErr error
	steers   int
	// refuseSteers makes Steer answer 0, as the agent does for a steer it
	// does not take.
	refuseSteers bool
}

func (f *fakeAgent) record(s string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.calls = append(f.calls, s)
}

func (f *fakeAgent) Start(_ context.Context, input string) error {
	f.record("run:" + input)
	return f.startErr
}

// Steer records the steer and numbers it 1, 2, … as the agent does (or
// refuses it).
func (f *fakeAgent) Steer(text string) int {
	f.record("steer:" + text)
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.refuseSteers {
		return 0
	}
	f.steers++
	return f.steers
}
func (f *fakeAgent) Interrupt() { f.record("interrupt") }

func (f *fakeAgent) got() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string(nil), f.calls...)
}

// fakePort is the screen's port in tests: Agent runs the turns, and each
// On… field answers one method. A nil field is not offered (Abilities
// says so, and the method answers ErrNotAvailable or nothing), so a test
// sets only what it exercises.
type fakePort struct {
	Agent
	// Approvals, when set, is the approvals mode (a *tools.Approver).
	Approvals interface {
		Mode() tools.ApprovalMode
		SetMode(tools.ApprovalMode)
	}

	OnStartInput     func(ctx context.Context, in loop.Input) error
	OnCancelCall     func(id string) bool
	OnShell          func(ctx context.Context, command string) (tools.Result, error)
	OnMCPStarting    func() []string
	OnMCPNotices     func() []string
	OnNew            func(ctx context.Context) (Session, error)
	OnResume         func(ctx context.Context, id string) (Session, error)
	OnSessions       func(ctx context.Context) ([]SessionInfo, error)
	OnSearch         func(ctx context.Context, query string) ([]SessionInfo, error)
	OnRename         func(ctx context.Context, title string) (string, error)
	OnFork           func(ctx context.Context, title string) (Session, error)
	OnSaveInput      func(text string) error
	OnModel          func(ctx context.Context, spec string) (string, string, error)
	OnModels         func(ctx context.Context) (ModelList, error)
	OnCompress       func(ctx context.Context) error
	OnRewindPoints   func(ctx context.Context) ([]RewindPoint, error)
	OnRewind         func(ctx context.Context, req RewindRequest) (RewindResult, error)
	OnDiff           func(ctx context.Context) (string, error)
	OnTimeline       func(ctx context.Context, turn int) (*trace.Log, error)
	OnSetupOffer     func() SetupOffer
	OnSetupModels    func(ctx context.Context, req SetupRequest) (ModelList, error)
	OnSetupApply     func(ctx context.Context, req SetupRequest) (SetupResult, error)
	OnCustomCommands func() []CustomCommand
	OnExpandCommand  func(name, args string) (string, string, bool)
	OnSkills         func() ([]ExtensionItem, string)
	OnAgents         func() []ExtensionItem
	OnTrust          func() *TrustRequest
	OnTrustProject   func() (string, error)
	OnOlder          func(ctx context.Context, session string, before, n int) (Page, error)
}

// fake is the harness's fake port, for a newHarness option to fill.
func fake(o *Options) *fakePort { return o.Port.(*fakePort) }

// portOf is a fake port that runs turns on a and offers nothing else.
func portOf(a Agent) *fakePort { return &fakePort{Agent: a} }

// Abilities offers what has a field set.
func (f *fakePort) Abilities() Abilities {
	return Abilities{
		Images: f.OnStartInput != nil, Shell: f.OnShell != nil, CancelCall: f.OnCancelCall != nil,
		Approvals: f.Approvals != nil,
		New:       f.OnNew != nil, Resume: f.OnResume != nil, Sessions: f.OnSessions != nil, Search: f.OnSearch != nil,
		Model: f.OnModel != nil, Models: f.OnModels != nil, Compress: f.OnCompress != nil,
		SaveInput: f.OnSaveInput != nil, Rewind: f.OnRewind != nil && f.OnRewindPoints != nil,
		Diff: f.OnDiff != nil, Timeline: f.OnTimeline != nil, Rename: f.OnRename != nil, Fork: f.OnFork != nil,
		Setup: f.OnSetupOffer != nil,
		Extensions: f.OnCustomCommands != nil || f.OnExpandCommand != nil || f.OnSkills != nil ||
			f.OnAgents != nil || f.OnTrust != nil || f.OnTrustProject != nil,
	}
}

func (f *fakePort) StartInput(ctx context.Context, in loop.Input) error {
	if f.OnStartInput == nil {
		return ErrNotAvailable
	}
	return f.OnStartInput(ctx, in)
}

func (f *fakePort) CancelCall(id string) bool { return f.OnCancelCall != nil && f.OnCancelCall(id) }

func (f *fakePort) Shell(ctx context.Context, command string) (tools.Result, error) {
	if f.OnShell == nil {
		return tools.Result{}, ErrNotAvailable
	}
	return f.OnShell(ctx, command)
}

func (f *fakePort) ApprovalMode() tools.ApprovalMode {
	if f.Approvals == nil {
		return tools.ApprovalAsk
	}
	return f.Approvals.Mode()
}

func (f *fakePort) SetApprovalMode(m tools.ApprovalMode) {
	if f.Approvals != nil {
		f.Approvals.SetMode(m)
	}
}

func (f *fakePort) MCPStarting() []string { return call0(f.OnMCPStarting) }

func (f *fakePort) Older(ctx context.Context, session string, before, n int) (Page, error) {
	if f.OnOlder == nil {
		return Page{}, ErrNotAvailable
	}
	return f.OnOlder(ctx, session, before, n)
}
func (f *fakePort) MCPNotices() []string { return call0(f.OnMCPNotices) }

// call0 calls get, nil when there is none.
func call0[T any](get func() T) T {
	var zero T
	if get == nil {
		return zero
	}
	return get()
}

func (f *fakePort) New(ctx context.Context) (Session, error) {
	if f.OnNew == nil {
		return Session{}, ErrNotAvailable
	}
	return f.OnNew(ctx)
}

func (f *fakePort) Resume(ctx context.Context, id string) (Session, error) {
	if f.OnResume == nil {
		return Session{}, ErrNotAvailable
	}
	return f.OnResume(ctx, id)
}

func (f *fakePort) Sessions(ctx context.Context) ([]SessionInfo, error) {
	if f.OnSessions == nil {
		return nil, ErrNotAvailable
	}
	return f.OnSessions(ctx)
}

func (f *fakePort) Search(ctx context.Context, query string) ([]SessionInfo, error) {
	if f.OnSearch == nil {
		return nil, ErrNotAvailable
	}
	return f.OnSearch(ctx, query)
}

func (f *fakePort) Rename(ctx context.Context, title string) (string, error) {
	if f.OnRename == nil {
		return "", ErrNotAvailable
	}
	return f.OnRename(ctx, title)
}

func (f *fakePort) Fork(ctx context.Context, title string) (Session, error) {
	if f.OnFork == nil {
		return Session{}, ErrNotAvailable
	}
	return f.OnFork(ctx, title)
}

func (f *fakePort) SaveInput(text string) error {
	if f.OnSaveInput == nil {
		return ErrNotAvailable
	}
	return f.OnSaveInput(text)
}

func (f *fakePort) Model(ctx context.Context, spec string) (string, string, error) {
	if f.OnModel == nil {
		return "", "", ErrNotAvailable
	}
	return f.OnModel(ctx, spec)
}

func (f *fakePort) Models(ctx context.Context) (ModelList, error) {
	if f.OnModels == nil {
		return ModelList{}, ErrNotAvailable
	}
	return f.OnModels(ctx)
}

func (f *fakePort) Compress(ctx context.Context) error {
	if f.OnCompress == nil {
		return ErrNotAvailable
	}
	return f.OnCompress(ctx)
}

func (f *fakePort) RewindPoints(ctx context.Context) ([]RewindPoint, error) {
	if f.OnRewindPoints == nil {
		return nil, ErrNotAvailable
	}
	return f.OnRewindPoints(ctx)
}

func (f *fakePort) Rewind(ctx context.Context, req RewindRequest) (RewindResult, error) {
	if f.OnRewind == nil {
		return RewindResult{}, ErrNotAvailable
	}
	return f.OnRewind(ctx, req)
}

func (f *fakePort) Diff(ctx context.Context) (string, error) {
	if f.OnDiff == nil {
		return "", ErrNotAvailable
	}
	return f.OnDiff(ctx)
}

func (f *fakePort) Timeline(ctx context.Context, turn int) (*trace.Log, error) {
	if f.OnTimeline == nil {
		return nil, ErrNotAvailable
	}
	return f.OnTimeline(ctx, turn)
}

func (f *fakePort) SetupOffer() SetupOffer { return call0(f.OnSetupOffer) }

// SetupModels without a field lists none: the dialog asks for a name.
func (f *fakePort) SetupModels(ctx context.Context, req SetupRequest) (ModelList, error) {
	if f.OnSetupModels == nil {
		return ModelList{Provider: req.Provider, Note: "no list here"}, nil
	}
	return f.OnSetupModels(ctx, req)
}

func (f *fakePort) SetupApply(ctx context.Context, req SetupRequest) (SetupResult, error) {
	if f.OnSetupApply == nil {
		return SetupResult{}, ErrNotAvailable
	}
	return f.OnSetupApply(ctx, req)
}

func (f *fakePort) CustomCommands() []CustomCommand { return call0(f.OnCustomCommands) }

func (f *fakePort) ExpandCommand(name, args string) (string, string, bool) {
	if f.OnExpandCommand == nil {
		return "", "", false
	}
	return f.OnExpandCommand(name, args)
}

func (f *fakePort) Skills() ([]ExtensionItem, string) {
	if f.OnSkills == nil {
		return nil, ""
	}
	return f.OnSkills()
}

func (f *fakePort) Agents() []ExtensionItem { return call0(f.OnAgents) }
func (f *fakePort) Trust() *TrustRequest    { return call0(f.OnTrust) }
func (f *fakePort) TrustProject() (string, error) {
	if f.OnTrustProject == nil {
		return "", ErrNotAvailable
	}
	return f.OnTrustProject()
}

// clock is a settable test clock.
type clock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *clock) advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}

// harness bundles a model with its fakes.
type harness struct {
	t     testing.TB
	m     *Model
	agent *fakeAgent
	port  *fakePort // runs turns on agent; options fill the rest (see fake)
	clk   *clock
}

// newHarness builds a colourless 80×24 model with a fake agent and clock.
func newHarness(t testing.TB, mutate ...func(*Options)) *harness {
	t.Helper()
	h := &harness{t: t, agent: &fakeAgent{}, clk: &clock{now: t0}}
	h.port = portOf(h.agent)
	opts := Options{
		Port: h.port, Provider: "openai", Model: "gpt-4.1", Cwd: "/work/repo",
		SessionID: "0a1b2c3d4e5f", NoColor: true, MaxIterations: 90, ContextLength: 128000,
		Now: h.clk.Now,
	}
	for _, f := range mutate {
		f(&opts)
	}
	h.m = New(opts)
	h.m.comp.born = time.Time{}             // the test clock stands still: no key is typeahead
	h.m.term = termEnv{lookPath: noProgram} // never the real clipboard
	t.Cleanup(h.m.shutdown)
	h.size(80, 24)
	return h
}

// send runs one message through Update and executes the commands it
// returns (without feeding their results back).
func (h *harness) send(msg tea.Msg) []tea.Msg {
	_, cmd := h.m.Update(msg)
	return execCmd(cmd)
}

// settle sends msg and feeds back the results of its commands, except
// ticks and waits that do not finish at once.
func (h *harness) settle(msg tea.Msg) {
	queue := []tea.Msg{msg}
	for i := 0; len(queue) > 0 && i < 50; i++ {
		next := queue[0]
		queue = queue[1:]
		queue = append(queue, h.send(next)...)
	}
}

func (h *harness) size(w, hgt int) { h.send(tea.WindowSizeMsg{Width: w, Height: hgt}) }

// key presses a named key ("enter", "ctrl+c", "tab", ...).
func (h *harness) key(name string) []tea.Msg { return h.send(keyMsg(name)) }

// typeText types text into the composer.
func (h *harness) typeText(s string) {
	for _, r := range s {
		h.send(tea.KeyPressMsg{Code: r, Text: string(r)})
	}
}

// events applies events as one batch from the channel.
func (h *harness) events(evs ...loop.Event) []tea.Msg {
	return h.send(eventsMsg{evs: evs, closed: true})
}

// screen returns the whole frame without escape codes.
func (h *harness) screen() string { return plain(h.m.View().Content) }

// keyMsg builds a key press from its name.
func keyMsg(name string) tea.KeyPressMsg {
	var k tea.Key
	parts := strings.Split(name, "+")
	for _, p := range parts[:len(parts)-1] {
		switch p {
		case "ctrl":
			k.Mod |= tea.ModCtrl
		case "alt":
			k.Mod |= tea.ModAlt
		case "shift":
			k.Mod |= tea.ModShift
		}
	}
	switch last := parts[len(parts)-1]; last {
	case "enter":
		k.Code = tea.KeyEnter
	case "tab":
		k.Code = tea.KeyTab
	case "esc":
		k.Code = tea.KeyEscape
	case "up":
		k.Code = tea.KeyUp
	case "down":
		k.Code = tea.KeyDown
	case "pgup":
		k.Code = tea.KeyPgUp
	case "pgdown":
		k.Code = tea.KeyPgDown
	case "backspace":
		k.Code = tea.KeyBackspace
	case "left":
		k.Code = tea.KeyLeft
	case "right":
		k.Code = tea.KeyRight
	case "space":
		k.Code, k.Text = tea.KeySpace, " "
	default:
		k.Code = []rune(last)[0]
		if k.Mod == 0 {
			k.Text = last
		}
	}
	return tea.KeyPressMsg(k)
}

// execCmd runs a command tree the way the runtime would (batches
// concurrently) and returns the messages its commands produce. A command
// found waiting for something outside the test (a frame tick, the event
// channel, the next dialog, a dialog's caller: see waiterFrames) is
// abandoned; every other command is waited for until it returns, up to
// commandBound, so that a loaded machine that runs a command's goroutine
// late does not lose its result (a fixed 40 ms cut made
// TestGoldenPickerSearch fail under load).
func execCmd(cmd tea.Cmd) []tea.Msg { return execCmdWait(cmd, commandBound) }

// Bounds of execCmd.
const (
	// waiterPoll is how often a command still running is looked at: a
	// waiter is abandoned at the first look that finds it parked.
	waiterPoll = 20 * time.Millisecond
	// commandBound only fails a hung command; nothing waits on it
	// otherwise.
	commandBound = 10 * time.Second
	// stackCap bounds the goroutine dump a look reads.
	stackCap = 64 << 20
)

// waiterFrames name the functions of the screen's commands that wait for
// something outside the test: a command goroutine parked in one of them
// is not coming back. Names, not code pointers: the compiler copies a
// closure where it inlines the function that makes it.
var waiterFrames = []string{
	"watchDialog.func", "waitDialogs.func", "waitEvents.func",
	"bubbletea/v2.Tick.func", "bubbletea/v2.Every.func",
}

// execCmdWait is execCmd with a chosen bound for a command that is not
// found waiting.
func execCmdWait(cmd tea.Cmd, wait time.Duration) []tea.Msg {
	if cmd == nil {
		return nil
	}
	out := make(chan tea.Msg, 1)
	ids := make(chan string, 1)
	go func() {
		ids <- goroutineID()
		out <- cmd()
	}()
	gid := <-ids
	deadline := time.Now().Add(wait)
	poll := time.NewTicker(waiterPoll)
	defer poll.Stop()
	var msg tea.Msg
wait:
	for {
		select {
		case msg = <-out:
			break wait
		case <-poll.C:
		}
		if parkedInWaiter(gid) || time.Now().After(deadline) {
			return nil
		}
	}
	b, ok := msg.(tea.BatchMsg)
	if !ok {
		if msg == nil {
			return nil
		}
		return []tea.Msg{msg}
	}
	var (
		wg  sync.WaitGroup
		mu  sync.Mutex
		all []tea.Msg
	)
	for _, c := range b {
		wg.Add(1)
		go func() {
			defer wg.Done()
			got := execCmdWait(c, wait)
			mu.Lock()
			all = append(all, got...)
			mu.Unlock()
		}()
	}
	wg.Wait()
	return all
}

// goroutineID is the calling goroutine's number, from its stack header
// ("goroutine 123 [running]:").
func goroutineID() string {
	buf := make([]byte, 64)
	buf = buf[:runtime.Stack(buf, false)]
	f := strings.Fields(string(buf))
	if len(f) < 2 {
		return ""
	}
	return f[1]
}

// parkedInWaiter reports whether goroutine gid is blocked (not running)
// inside one of waiterFrames.
func parkedInWaiter(gid string) bool {
	if gid == "" {
		return false
	}
	buf := make([]byte, 1<<20)
	for {
		n := runtime.Stack(buf, true)
		if n < len(buf) || len(buf) >= stackCap {
			buf = buf[:n]
			break
		}
		buf = make([]byte, 2*len(buf))
	}
	head := "goroutine " + gid + " ["
	i := strings.Index(string(buf), head)
	if i < 0 {
		return false
	}
	block := string(buf[i:])
	if j := strings.Index(block, "\n\n"); j >= 0 {
		block = block[:j]
	}
	status := block[len(head):]
	if strings.HasPrefix(status, "running") || strings.HasPrefix(status, "runnable") {
		return false
	}
	for _, w := range waiterFrames {
		if strings.Contains(block, w) {
			return true
		}
	}
	return false
}

// hdr builds an event header for turn n at t0+offset.
func hdr(typ string, turn int, offset time.Duration) loop.Header {
	return loop.Header{Type: typ, SessionID: "0a1b2c3d4e5f", TS: loop.Timestamp(t0.Add(offset)), Turn: turn}
}

// plain strips escape codes and trailing spaces from every line.
func plain(s string) string {
	lines := strings.Split(ansi.Strip(s), "\n")
	for i, l := range lines {
		lines[i] = strings.TrimRight(l, " ")
	}
	return strings.Join(lines, "\n")
}

// golden compares got (escape codes stripped) with
// testdata/<test name>.golden; -update rewrites it.
func golden(t *testing.T, got string) {
	t.Helper()
	got = plain(got)
	path := filepath.Join("testdata", filepath.FromSlash(t.Name())+".golden")
	if updateGolden() {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("missing golden file %s (run go test ./ui -run %s -update): %v", path, t.Name(), err)
	}
	if got != string(want) {
		t.Errorf("%s differs from the golden file (rerun with -update if intended)\n--- got ---\n%s\n--- want ---\n%s", path, got, want)
	}
}

// contains fails unless s contains every part.
func contains(t *testing.T, s string, parts ...string) {
	t.Helper()
	for _, p := range parts {
		if !strings.Contains(s, p) {
			t.Errorf("missing %q in:\n%s", p, s)
		}
	}
}

// noProgram finds no program: tests never run the real clipboard tools.
func noProgram(name string) (string, error) { return "", exec.ErrNotFound }
