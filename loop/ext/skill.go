package ext

import (
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"regexp"
	"strings"
)

// Skill is skills/NAME/SKILL.md: a name, a description the model reads in
// the system prompt, and a body it reads on demand; the folder's other
// files are its resources.
type Skill struct {
	// Name is the folder's name (the spec's name, when given, must equal it).
	Name string `json:"name"`
	// Description says what it does and when to use it.
	Description string `json:"description"`
	// Body is SKILL.md after the front matter.
	Body string `json:"-"`
	// Dir is the skill's folder.
	Dir string `json:"dir"`
	// Source is SKILL.md.
	Source Source `json:"source"`
}

// Spec limits (agentskills specification).
const (
	maxSkillName        = 64
	maxSkillDescription = 1024
	maxResources        = 200
)

var skillNameRE = regexp.MustCompile(`^[a-z0-9]+(-[a-z0-9]+)*$`)

func (s *Set) loadSkills(dir string, src Source) {
	ents, more := s.readDir(dir)
	if more {
		s.note(dir, 0, fmt.Sprintf("more than %d entries; only the first are read", maxDirEntries))
	}
	for _, e := range ents {
		if hidden(e.Name()) || !isDir(dir, e) {
			continue
		}
		path := filepath.Join(dir, e.Name(), "SKILL.md")
		if len(s.Skills) >= MaxPerKind {
			s.note(path, 0, fmt.Sprintf("more than %d skills; the rest are skipped", MaxPerKind))
			return
		}
		sk := &Skill{Name: e.Name(), Dir: filepath.Join(dir, e.Name()), Source: src}
		sk.Source.Path = path
		if err := sk.parse(path, s.read); errors.Is(err, fs.ErrNotExist) {
			continue // a folder without SKILL.md is not a skill
		} else if err != nil {
			s.noteErr(path, err)
			continue
		}
		s.Skills[sk.Name] = sk
	}
}

// parse reads SKILL.md and checks it against the agentskills spec: a name
// of 1–64 characters a-z 0-9 and single inner hyphens equal to the folder's
// name, and a description of 1–1024 characters. (Claude Code makes both
// optional; talaria needs the description to list the skill and keeps the
// spec's rule for the name so a skill works the same in every agent.)
func (sk *Skill) parse(path string, read func(string) ([]byte, error)) error {
	data, err := read(path)
	if err != nil {
		return err
	}
	if !skillNameRE.MatchString(sk.Name) || len(sk.Name) > maxSkillName {
		return &fileError{msg: fmt.Sprintf("the folder name %q is not a skill name (1-%d characters a-z, 0-9 and single inner hyphens)", sk.Name, maxSkillName)}
	}
	header, first, body, err := splitFrontMatter(data)
	if err != nil {
		return err
	}
	if header == nil {
		return &fileError{line: 1, msg: "SKILL.md needs front matter with name and description"}
	}
	fm, err := parseFrontMatter(header, first)
	if err != nil {
		return err
	}
	name, err := fm.str("name")
	if err != nil {
		return err
	}
	if name != "" && name != sk.Name {
		return &fileError{line: fm.line("name", first), msg: fmt.Sprintf("name %q differs from the folder's name %q", name, sk.Name)}
	}
	if sk.Description, err = fm.str("description"); err != nil {
		return err
	}
	sk.Description = strings.TrimSpace(sk.Description)
	switch n := len([]rune(sk.Description)); {
	case n == 0:
		return &fileError{line: first, msg: "description is required (what the skill does and when to use it)"}
	case n > maxSkillDescription:
		return &fileError{line: fm.line("description", first), msg: fmt.Sprintf("description has %d characters, more than %d", n, maxSkillDescription)}
	}
	sk.Body = string(body)
	return nil
}

// AsCommand returns the skill as a slash command running its body.
func (sk *Skill) AsCommand() *Command {
	return &Command{Name: sk.Name, Description: sk.Description, Body: sk.Body, Skill: true, Source: sk.Source}
}

// Resources lists the skill's other files, relative to its folder, sorted
// (at most 200; read when asked, not at start-up).
func (sk *Skill) Resources() []string {
	var out []string
	_ = filepath.WalkDir(sk.Dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		if d.IsDir() {
			if p != sk.Dir && hidden(d.Name()) {
				return filepath.SkipDir
			}
			return nil
		}
		rel, _ := filepath.Rel(sk.Dir, p)
		if rel == "SKILL.md" || hidden(d.Name()) {
			return nil
		}
		out = append(out, filepath.ToSlash(rel))
		if len(out) >= maxResources {
			return filepath.SkipAll
		}
		return nil
	})
	return out
}

// SkillsPrompt renders the system-prompt section that lists the skills:
// each one's name, description and SKILL.md path, sorted by name so the
// prompt is byte-stable for the session. Empty when there are none.
func (s *Set) SkillsPrompt() string {
	if s == nil || len(s.Skills) == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString("# Skills\nSkills are instructions for specific tasks, each in a SKILL.md file. ")
	b.WriteString("When a task matches a skill's description, read its SKILL.md with read_file first and follow it; ")
	b.WriteString("files it mentions are relative to its folder.\n\n")
	for _, name := range s.SkillNames() {
		sk := s.Skills[name]
		fmt.Fprintf(&b, "- %s: %s (%s)\n", sk.Name, oneLine(sk.Description), sk.Source.Path)
	}
	return b.String()
}
