package main

import (
	"errors"
	"flag"
	"fmt"
	"slices"
	"strings"

	"talaria/loop/app"
	"talaria/loop/config"
)

// Output formats of -p (--output-format).
const (
	formatText       = "text"
	formatJSON       = "json"
	formatStreamJSON = "stream-json"
)

// scriptOptions are the headless flags scripts bring from claude -p and
// codex exec (the rest land in app.Flags).
type scriptOptions struct {
	outputLast   string
	outputFormat string
	schemaFile   string
}

// defineScriptFlags declares the peer-named headless flags into o.
func defineScriptFlags(fs *flag.FlagSet, o *options) {
	f, s := &o.flags, &o.script
	fs.StringVar(&s.outputLast, "o", "", "with -p: also write the final answer to FILE (only when the turn completed)")
	fs.StringVar(&s.outputLast, "output-last-message", "", "same as -o")
	fs.StringVar(&s.outputFormat, "output-format", "", "with -p: text (the answer) | json (one result object at the end) | stream-json (same as --json)")
	fs.StringVar(&s.schemaFile, "output-schema", "", "with -p: the final answer must be JSON valid against the JSON Schema in FILE; stdout then carries that JSON")
	fs.StringVar(&s.schemaFile, "json-schema", "", "same as --output-schema")
	fs.IntVar(&f.Overrides.MaxIterations, "max-turns", 0, "same as --max-iterations")
	fs.StringVar(&f.Overrides.Approvals, "permission-mode", "", "approvals for this run: ask | auto-edit | read-only | yolo (default approvals)")
	fs.StringVar(&f.Script.AppendSystemPrompt, "append-system-prompt", "", "add TEXT to a new session's system prompt (stored with it)")
	fs.Float64Var(&f.Script.MaxBudgetUSD, "max-budget-usd", 0, "stop before a model call that would pass this many US dollars at list prices")
	fs.BoolVar(&f.Script.Fork, "fork-session", false, "with -c/-r: continue that session's history in a new session")
	fs.Var((*ruleList)(&f.Overrides.AllowedTools), "allowedTools", "permission rules allowed for this run, as in permissions.allow (repeatable; comma- or space-separated: \"Bash(git diff:*),Read\")")
	fs.Var((*ruleList)(&f.Overrides.DisallowedTools), "disallowedTools", "permission rules denied for this run, as in permissions.deny (repeatable, like --allowedTools)")
}

// ruleList is a repeatable flag of permission rules; one value may hold
// several, separated by commas or spaces outside parentheses, as
// `claude -p --allowedTools "Bash(git log:*) Read"` takes them.
type ruleList []string

func (r *ruleList) String() string { return strings.Join(*r, ",") }

func (r *ruleList) Set(v string) error {
	depth, start := 0, 0
	for i, c := range v + "," {
		switch {
		case c == '(':
			depth++
		case c == ')' && depth > 0:
			depth--
		case depth == 0 && (c == ',' || c == ' ' || c == '\t'):
			if w := strings.TrimSpace(v[start:i]); w != "" {
				*r = append(*r, w)
			}
			start = i + 1
		}
	}
	return nil
}

// checkScriptFlags rejects combinations of the script flags that make no
// sense and loads the output schema.
func checkScriptFlags(o *options) error {
	s, f := &o.script, &o.flags
	switch {
	case s.outputFormat != "" && !slices.Contains([]string{formatText, formatJSON, formatStreamJSON}, s.outputFormat):
		return fmt.Errorf("--output-format: %q is not one of text | json | stream-json", s.outputFormat)
	case o.json && s.outputFormat != "" && s.outputFormat != formatStreamJSON:
		return fmt.Errorf("--json is --output-format stream-json; it cannot be combined with --output-format %s", s.outputFormat)
	case !o.promptSet && (s.outputLast != "" || s.outputFormat != "" || s.schemaFile != ""):
		return fmt.Errorf("-o, --output-format and --output-schema need -p PROMPT")
	case f.Script.Fork && !f.Continue && f.Resume == "":
		return fmt.Errorf("--fork-session needs -c or -r ID: it forks the session they continue")
	case f.Script.MaxBudgetUSD < 0:
		return fmt.Errorf("--max-budget-usd: must be above 0, got %v", f.Script.MaxBudgetUSD)
	case strings.TrimSpace(f.Script.AppendSystemPrompt) == "" && f.Script.AppendSystemPrompt != "":
		return fmt.Errorf("--append-system-prompt: the text is empty")
	}
	if o.json {
		s.outputFormat = formatStreamJSON
	}
	if s.outputFormat == "" {
		s.outputFormat = formatText
	}
	if s.outputFormat == formatStreamJSON {
		o.json = true
	}
	if s.schemaFile != "" {
		schema, err := app.LoadOutputSchema(s.schemaFile)
		if err != nil {
			return err
		}
		f.Script.OutputSchema = schema
	}
	return nil
}

// openErrorLine is the one line a headless run prints when its session
// cannot open; with no provider it also points to --help's section.
func openErrorLine(err error) string {
	if errors.Is(err, config.ErrNoProvider) {
		return fmt.Sprintf("%v (see talaria --help, section %q)", err, providersSection)
	}
	return err.Error()
}
