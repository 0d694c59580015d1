package ext

import (
	"fmt"
	"path/filepath"
	"regexp"
	"strings"
)

// Command is a custom slash command: commands/NAME.md (a/b.md is "a:b"),
// or a skill run as one.
type Command struct {
	// Name is what follows the "/".
	Name string `json:"name"`
	// Description is the front matter's, else the body's first line.
	Description string `json:"description"`
	// ArgumentHint is shown after the name in completion ("[file]").
	ArgumentHint string `json:"argument_hint,omitempty"`
	// Model is a model id for this command's turn; empty: the session's.
	Model string `json:"model,omitempty"`
	// Arguments names the words for $NAME placeholders (front matter
	// arguments: [a, b] makes $a the first word).
	Arguments []string `json:"arguments,omitempty"`
	// Body is the prompt template.
	Body string `json:"-"`
	// Skill is set when the command runs a skill's body.
	Skill bool `json:"skill,omitempty"`
	// Source is the file it came from.
	Source Source `json:"source"`
}

// maxDescription caps a description taken from the body's first line.
const maxDescription = 200

var segmentRE = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_.-]*$`)

func (s *Set) loadCommands(dir string, src Source) {
	s.walkMarkdown(dir, 0, "commands", func(path, _ string) bool {
		if len(s.Commands) >= MaxPerKind {
			s.note(path, 0, fmt.Sprintf("more than %d commands; the rest are skipped", MaxPerKind))
			return false
		}
		rel, _ := filepath.Rel(dir, strings.TrimSuffix(path, ".md"))
		segs := strings.Split(filepath.ToSlash(rel), "/")
		ok := true
		for _, seg := range segs {
			ok = ok && segmentRE.MatchString(seg)
		}
		if !ok {
			s.note(path, 0, "a command name may hold only letters, digits, _ . - (and / for a subfolder); skipped")
			return true
		}
		c := &Command{Name: strings.Join(segs, ":"), Source: src}
		c.Source.Path = path
		if err := c.parse(path, s.read); err != nil {
			s.noteErr(path, err)
			return true
		}
		s.Commands[c.Name] = c
		return true
	})
}

// walkMarkdown calls visit for each .md file below dir (hidden names
// skipped, at most maxDepth folders deep, maxDirEntries per folder) until
// visit returns false. A folder past the depth is skipped, with a notice
// naming kind when kind is not "".
func (s *Set) walkMarkdown(dir string, depth int, kind string, visit func(path, name string) bool) bool {
	ents, more := s.readDir(dir)
	if more {
		s.note(dir, 0, fmt.Sprintf("more than %d entries; only the first are read", maxDirEntries))
	}
	for _, e := range ents {
		name := e.Name()
		if hidden(name) {
			continue
		}
		path := filepath.Join(dir, name)
		if isDir(dir, e) {
			if depth+1 >= maxDepth {
				if kind != "" {
					s.note(path, 0, fmt.Sprintf("%s nested deeper than %d folders are not read", kind, maxDepth))
				}
				continue
			}
			if !s.walkMarkdown(path, depth+1, kind, visit) {
				return false
			}
			continue
		}
		if strings.HasSuffix(name, ".md") && !visit(path, name) {
			return false
		}
	}
	return true
}

// parse reads the command file into c.
func (c *Command) parse(path string, read func(string) ([]byte, error)) error {
	data, err := read(path)
	if err != nil {
		return err
	}
	header, first, body, err := splitFrontMatter(data)
	if err != nil {
		return err
	}
	fm, err := parseFrontMatter(header, first)
	if err != nil {
		return err
	}
	if c.Description, err = fm.str("description"); err != nil {
		return err
	}
	if c.ArgumentHint, err = fm.str("argument-hint"); err != nil {
		return err
	}
	if c.Model, err = fm.str("model"); err != nil {
		return err
	}
	if c.Arguments, _, err = fm.list("arguments", " "); err != nil {
		return err
	}
	c.Body = string(body)
	if c.Description == "" {
		c.Description = firstLine(c.Body)
	}
	return nil
}

// firstLine is the body's first non-empty line, without a heading's #s,
// capped.
func firstLine(body string) string {
	for l := range strings.SplitSeq(body, "\n") {
		l = strings.TrimSpace(strings.TrimLeft(strings.TrimSpace(l), "#"))
		if l == "" {
			continue
		}
		if len(l) > maxDescription {
			cut := maxDescription
			for cut > 0 && !isRuneStart(l[cut]) {
				cut--
			}
			l = l[:cut] + "…"
		}
		return l
	}
	return ""
}

func isRuneStart(b byte) bool { return b&0xC0 != 0x80 }
