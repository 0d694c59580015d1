package app

import (
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"time"

	"talaria/loop"
	"talaria/persist"
	"talaria/providers"
	"talaria/providers/scripted"
	"talaria/tools"
)

// DemoPrompt is the first message of the offline tour.
const DemoPrompt = "Give me a tour of this repository."

// demoWordDelay paces the scripted stream so it reads as live.
const demoWordDelay = 35 * time.Millisecond

// OpenDemo wires the offline tour: a scripted provider behind the real
// Transport interface, the real loop, and read-only tools on the working
// directory. Nothing is saved.
func OpenDemo(f Flags, sink loop.Sink) (*Session, error) {
	if f.Record != "" {
		return nil, usage("--record records provider traffic; the tour has none")
	}
	cwd, err := resolveCwd(f.Cwd)
	if err != nil {
		return nil, err
	}
	cfg, err := LoadConfig(f)
	if err != nil {
		return nil, err
	}
	id := persist.NewSessionID(time.Now())
	prompt := BuildSystemPrompt(cwd, "demo", "talaria-tour", time.Now())
	rec := &persist.Session{ID: id, Title: DemoPrompt, Cwd: cwd, Provider: "demo", Model: "talaria-tour", SystemPrompt: &prompt}
	readOnly := tools.NewRegistry(tools.ReadFileTool{}, tools.SearchFilesTool{})
	s := &Session{Config: cfg, Home: Home(f.Home), Cwd: cwd, Record: rec,
		Notice: "offline tour: a scripted model drives the real loop with read-only tools on " + cwd}
	s.Backend.Provider, s.Backend.Model = "demo", "talaria-tour"
	win := newSteerWindow(time.Second)
	s.Agent = loop.New(loop.Options{
		SessionID:     id,
		Transport:     scripted.New(demoScript(cwd, win), demoWordDelay),
		Provider:      "demo",
		Model:         "talaria-tour",
		SystemPrompt:  prompt,
		Tools:         readOnly,
		ToolEnv:       tools.Env{Cwd: cwd, SessionID: id},
		Sink:          s.keepTimelines(win.watch(sink)),
		MaxIterations: 8,
		Retry:         loop.RetryPolicy{MaxRetries: 3, BaseDelay: time.Second, MaxDelay: 4 * time.Second, RetryAfterCap: time.Minute},
	})
	return s, nil
}

// demoScript is the tour: a parallel read segment, a 429 with its
// countdown, an invitation to steer, a repeated failing call that trips the
// guardrail, and a streamed markdown summary.
func demoScript(cwd string, win *steerWindow) scripted.Script {
	readme := firstExisting(cwd, "README.md", "README", "readme.md", "go.mod", "main.go")
	return func(n int, req providers.Request) scripted.Reply {
		switch n {
		case 1:
			return scripted.Reply{
				Reasoning: "A tour: read the README and look for source files and entry points, all at once since these reads are independent.",
				Text:      "Let me look around — three independent reads, run side by side.",
				Calls: []providers.ToolCall{
					call("t1", "read_file", fmt.Sprintf(`{"path":%q,"limit":40}`, readme)),
					call("t2", "search_files", `{"pattern":"*.go","target":"files","limit":15}`),
					call("t3", "search_files", `{"pattern":"func main","limit":5}`),
				},
			}
		case 2:
			return scripted.Reply{Err: &providers.APIError{Provider: "demo", Status: http.StatusTooManyRequests,
				Headers: http.Header{"Retry-After": []string{"3"}}, Message: "Rate limit reached (a scripted 429: watch the countdown; Esc would cancel)", Code: "rate_limit_exceeded"}}
		case 3:
			return scripted.Reply{
				Text:  "The rate limit passed. **Try steering now:** type something like `focus on the tests` and press Enter while I keep working.",
				After: win.countdown,
				Calls: []providers.ToolCall{call("t4", "read_file", `{"path":"docs/ARCHITECTURE.md"}`)},
			}
		case 4:
			return scripted.Reply{
				Text:  "That file is missing — a careless model would try the same call again, and the guardrail notices:",
				Calls: []providers.ToolCall{call("t5", "read_file", `{"path":"docs/ARCHITECTURE.md"}`)},
			}
		case 5:
			text := "No steer arrived, so I'll look at the tests myself."
			if s := lastSteer(req); s != "" {
				text = fmt.Sprintf("Got your steer — %q. Looking at the tests.", s)
			}
			return scripted.Reply{Text: text, Calls: []providers.ToolCall{call("t6", "search_files", `{"pattern":"*_test.go","target":"files","limit":10}`)}}
		default:
			return scripted.Reply{Text: demoSummary}
		}
	}
}

func call(id, name, args string) providers.ToolCall {
	return providers.ToolCall{ID: id, Name: name, Arguments: args}
}

func firstExisting(dir string, names ...string) string {
	for _, n := range names {
		if _, err := os.Stat(filepath.Join(dir, n)); err == nil {
			return n
		}
	}
	return names[0]
}

// lastSteer extracts the newest steer text delivered into a tool message.
func lastSteer(req providers.Request) string {
	for i := len(req.Messages) - 1; i >= 0; i-- {
		m := req.Messages[i]
		if m.Role != providers.RoleTool {
			continue
		}
		_, after, ok := strings.Cut(m.Content, loop.SteerOpen+"\n")
		if !ok {
			continue
		}
		text, _, _ := strings.Cut(after, "\n"+loop.SteerClose)
		return text
	}
	return ""
}

const demoSummary = `## What you just watched

1. **A parallel read segment** — read-only calls ran side by side, each in its own lane.
2. **A 429 with a countdown** — the retry pane showed the reason, attempt n/N and the wait.
3. **Steering** — text you type while a turn runs is delivered into the next model call.
4. **A guardrail** — the same failing call twice earns a warning in the tool result.
5. **The budget gauge** — every model call spends one of this tour's 8 iterations.

To use a real model, set a key and start again:

` + "```sh\nexport OPENAI_API_KEY=sk-...   # or ANTHROPIC_API_KEY, OPENROUTER_API_KEY, GEMINI_API_KEY\ntalaria\n```" + `

Or run a local server (Ollama, llama.cpp, LM Studio, vLLM): talaria finds it on its own.`
