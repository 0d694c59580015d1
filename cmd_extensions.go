package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"text/tabwriter"

	"talaria/loop/app"
	"talaria/loop/ext"
	"talaria/ui"
)

// extensionsReport is what `talaria extensions --json` prints.
type extensionsReport struct {
	ProjectRoot string            `json:"project_root"`
	Trusted     bool              `json:"project_trusted"`
	Trees       []ext.Tree        `json:"folders"`
	Commands    []*ext.Command    `json:"commands"`
	Skills      []*ext.Skill      `json:"skills"`
	Agents      []*ext.Agent      `json:"agents"`
	Hooks       []ext.HookSummary `json:"hooks"`
	Rules       []ruleSummary     `json:"rules"`
	Notices     []ext.Notice      `json:"notices"`
}

// ruleSummary is one permission rule as `talaria extensions` lists it.
type ruleSummary struct {
	ext.ProjectRule
	// Applied is false for a project's rule while the project
	// is untrusted.
	Applied bool `json:"applied"`
}

// extensionsCmd is `talaria extensions [--json]`: the custom commands,
// skills, agents and hooks this directory would get, each with the file it
// came from, and the notices of files that were skipped.
func extensionsCmd(o *options, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("extensions", flag.ContinueOnError)
	fs.SetOutput(stderr)
	asJSON := fs.Bool("json", false, "print one JSON object")
	if err := fs.Parse(args); err != nil {
		return app.ExitUsage
	}
	cfg, err := app.LoadConfig(o.flags)
	if err != nil {
		fmt.Fprintln(stderr, "talaria:", err)
		return app.ExitUsage
	}
	cwd := o.flags.Cwd
	if cwd == "" {
		if cwd, err = os.Getwd(); err != nil {
			fmt.Fprintln(stderr, "talaria:", err)
			return 1
		}
	}
	cwd, _ = filepath.Abs(cwd)
	home := app.Home(o.flags.Home)
	opts := ext.Options{Home: home, Cwd: cwd, ClaudeDirs: cfg.Extensions.ReadClaudeDirs(), Builtins: builtinCommandNames()}
	set := ext.Load(opts)
	rep := extensionsReport{ProjectRoot: ext.ProjectRoot(cwd), Trees: ext.Trees(opts), Notices: set.Notices}
	rep.Trusted = ext.Trusted(rep.ProjectRoot, cfg.TrustedProjects)
	for _, n := range set.CommandNames() {
		rep.Commands = append(rep.Commands, set.Commands[n])
	}
	for _, n := range set.SkillNames() {
		rep.Skills = append(rep.Skills, set.Skills[n])
	}
	for _, n := range set.AgentNames() {
		rep.Agents = append(rep.Agents, set.Agents[n])
	}
	cfgPath := o.flags.ConfigPath
	if cfgPath == "" {
		cfgPath = filepath.Join(home, "config.yaml")
	}
	userHooks, notes := ext.CompileHooks(cfg.Hooks, ext.Source{Path: cfgPath, Origin: ext.OriginHome, Tree: "$TALARIA_HOME"})
	rep.Notices = append(rep.Notices, notes...)
	for _, h := range userHooks {
		rep.Hooks = append(rep.Hooks, ext.HookSummary{Hook: h, Trusted: true})
	}
	projHooks, notes := ext.ProjectHooks(rep.ProjectRoot, opts.ClaudeDirs)
	rep.Notices = append(rep.Notices, notes...)
	for _, h := range projHooks {
		rep.Hooks = append(rep.Hooks, ext.HookSummary{Hook: h, Trusted: rep.Trusted})
	}
	userRule := func(list string, rules []string) {
		for _, r := range rules {
			rep.Rules = append(rep.Rules, ruleSummary{ProjectRule: ext.ProjectRule{List: list, Rule: r, Source: ext.Source{Path: cfgPath, Origin: ext.OriginHome, Tree: "$TALARIA_HOME"}}, Applied: true})
		}
	}
	userRule(ext.ListDeny, cfg.Permissions.Deny)
	userRule(ext.ListAsk, cfg.Permissions.Ask)
	userRule(ext.ListAllow, cfg.Permissions.Allow)
	projRules, notes := ext.ProjectPermissions(rep.ProjectRoot, opts.ClaudeDirs)
	rep.Notices = append(rep.Notices, notes...)
	for _, r := range projRules {
		rep.Rules = append(rep.Rules, ruleSummary{ProjectRule: r, Applied: rep.Trusted})
	}
	if *asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		_ = enc.Encode(rep)
		return 0
	}
	writeExtensions(stdout, rep)
	return 0
}

func writeExtensions(w io.Writer, rep extensionsReport) {
	trust := "untrusted: its hooks and rules are listed, not applied"
	if rep.Trusted {
		trust = "trusted"
	}
	fmt.Fprintf(w, "Project %s (%s)\n", rep.ProjectRoot, trust)
	section := func(title string, n int, rows func(tw *tabwriter.Writer)) {
		fmt.Fprintf(w, "\n%s (%d):\n", title, n)
		if n == 0 {
			fmt.Fprintln(w, "  none")
			return
		}
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
		rows(tw)
		_ = tw.Flush()
	}
	section("Commands", len(rep.Commands), func(tw *tabwriter.Writer) {
		for _, c := range rep.Commands {
			name := "/" + c.Name
			if c.ArgumentHint != "" {
				name += " " + c.ArgumentHint
			}
			fmt.Fprintf(tw, "  %s\t%s\t%s\n", name, oneLineText(c.Description, 60), c.Source.Path)
		}
	})
	section("Skills", len(rep.Skills), func(tw *tabwriter.Writer) {
		for _, s := range rep.Skills {
			fmt.Fprintf(tw, "  %s\t%s\t%s\n", s.Name, oneLineText(s.Description, 60), s.Source.Path)
		}
	})
	section("Agents", len(rep.Agents), func(tw *tabwriter.Writer) {
		for _, a := range rep.Agents {
			tools := "all but delegate_task"
			if a.Tools != nil {
				tools = strings.Join(a.Tools, ",")
			}
			fmt.Fprintf(tw, "  %s\t%s\ttools: %s\t%s\n", a.Name, oneLineText(a.Description, 50), tools, a.Source.Path)
		}
	})
	section("Hooks", len(rep.Hooks), func(tw *tabwriter.Writer) {
		for _, h := range rep.Hooks {
			m := h.Matcher
			if m == "" {
				m = "*"
			}
			state := ""
			if !h.Trusted {
				state = "  [untrusted project: not run]"
			}
			fmt.Fprintf(tw, "  %s\t%s\t%s\t%s%s\n", h.Event, m, oneLineText(h.Command, 60), h.Source.Path, state)
		}
	})
	section("Permission rules", len(rep.Rules), func(tw *tabwriter.Writer) {
		for _, r := range rep.Rules {
			state := ""
			if !r.Applied {
				state = "  [untrusted project: ignored]"
			}
			fmt.Fprintf(tw, "  %s\t%s\t%s%s\n", r.List, r.Rule, r.Source.Path, state)
		}
	})
	if len(rep.Notices) > 0 {
		fmt.Fprintf(w, "\nNotices (%d):\n", len(rep.Notices))
		for _, n := range rep.Notices {
			fmt.Fprintln(w, "  "+n.String())
		}
	}
}

func oneLineText(s string, max int) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > max {
		return string(r[:max-1]) + "…"
	}
	return s
}

// builtinCommandNames are the TUI's slash commands, which no custom
// command may shadow.
func builtinCommandNames() []string {
	var out []string
	for _, c := range ui.CommandHelp() {
		name, _, _ := strings.Cut(strings.TrimPrefix(c[0], "/"), " ")
		out = append(out, name)
	}
	return out
}
