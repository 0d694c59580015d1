package ext

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// Limits bound what loading reads, so a stray huge tree cannot slow
// start-up or eat memory.
const (
	// MaxFileBytes is the largest extension file read (256 KiB); a larger
	// one is skipped with a notice.
	MaxFileBytes = 256 << 10
	// MaxPerKind is how many commands, skills or agents are loaded at most
	// (each kind counted on its own, over all folders).
	MaxPerKind = 1000
	// maxDirEntries is how many entries of one folder are looked at.
	maxDirEntries = 4096
	// maxDepth is how deep command subfolders (a/b/c.md) and agent
	// subfolders are walked.
	maxDepth = 4
	// maxProjectLevels bounds the walk from the working directory up to
	// the git root.
	maxProjectLevels = 64
)

// Options say where to look.
type Options struct {
	// Home is $TALARIA_HOME; its commands/, skills/ and agents/ come first.
	// Empty skips it.
	Home string
	// Cwd is the working directory; it and its parents up to the git root
	// are the project's folders. Empty skips the project.
	Cwd string
	// ClaudeDirs reads .claude/ folders (extensions.claude_dirs).
	ClaudeDirs bool
	// Builtins are the built-in slash command names (without "/"); a
	// custom command or skill of such a name is dropped with a notice.
	Builtins []string
}

// Tree is one extension folder: its root and which kinds it may hold.
type Tree struct {
	// Dir is the folder, e.g. /p/.claude.
	Dir string `json:"dir"`
	// Label is ".claude", ".agents", ".talaria" or "$TALARIA_HOME".
	Label string `json:"label"`
	// Origin is home or project.
	Origin Origin `json:"origin"`
	// Kinds are the subfolders read: commands, skills, agents.
	Kinds []string `json:"kinds"`
}

// Load finds and parses every extension, in the contract's order: home,
// then each project folder from the git root down to the working directory
// (.claude, .agents, .talaria in each), a later file of the same name
// winning. Problems become notices; Load never fails.
func Load(o Options) *Set {
	s := &Set{Commands: map[string]*Command{}, Skills: map[string]*Skill{}, Agents: map[string]*Agent{}, builtins: map[string]bool{}}
	for _, b := range o.Builtins {
		s.builtins[strings.TrimPrefix(b, "/")] = true
	}
	s.dirs = &dirCache{open: map[string]*os.File{}}
	defer func() { s.dirs.close(); s.dirs = nil }()
	seen := map[string]bool{}
	for _, t := range Trees(o) {
		for _, kind := range t.Kinds {
			dir := filepath.Join(t.Dir, kind)
			key := realPath(dir)
			if seen[key] {
				continue // $TALARIA_HOME inside the project, or a symlinked twin
			}
			seen[key] = true
			if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
				continue
			}
			src := Source{Origin: t.Origin, Tree: t.Label}
			switch kind {
			case "commands":
				s.loadCommands(dir, src)
			case "skills":
				s.loadSkills(dir, src)
			case "agents":
				s.loadAgents(dir, src)
			}
		}
	}
	for name := range s.builtins {
		if c, ok := s.Commands[name]; ok {
			s.note(c.Source.Path, 0, fmt.Sprintf("/%s is a built-in command; this custom command is ignored (rename the file to use it)", name))
			delete(s.Commands, name)
		}
		if sk, ok := s.Skills[name]; ok {
			s.note(sk.Source.Path, 0, fmt.Sprintf("/%s is a built-in command; the skill stays listed for the model but /%s runs the built-in", name, name))
		}
	}
	return s
}

// Trees returns the extension folders in load order (later wins), whether
// or not they exist.
func Trees(o Options) []Tree {
	var out []Tree
	if o.Home != "" {
		out = append(out, Tree{Dir: o.Home, Label: "$TALARIA_HOME", Origin: OriginHome, Kinds: []string{"commands", "skills", "agents"}})
	}
	for _, dir := range ProjectDirs(o.Cwd) {
		if o.ClaudeDirs {
			out = append(out, Tree{Dir: filepath.Join(dir, ".claude"), Label: ".claude", Origin: OriginProject, Kinds: []string{"commands", "skills", "agents"}})
		}
		out = append(out,
			Tree{Dir: filepath.Join(dir, ".agents"), Label: ".agents", Origin: OriginProject, Kinds: []string{"skills"}},
			Tree{Dir: filepath.Join(dir, ".talaria"), Label: ".talaria", Origin: OriginProject, Kinds: []string{"commands", "skills", "agents"}})
	}
	return out
}

// ProjectDirs returns the project's folders from the git root down to cwd
// (just cwd when no parent holds .git). The nearer folder comes later, so
// its files win.
func ProjectDirs(cwd string) []string {
	if cwd == "" {
		return nil
	}
	cwd, err := filepath.Abs(cwd)
	if err != nil {
		return nil
	}
	var up []string
	for d, i := cwd, 0; i < maxProjectLevels; i++ {
		up = append(up, d)
		if _, err := os.Lstat(filepath.Join(d, ".git")); err == nil {
			// Reverse: root first.
			for l, r := 0, len(up)-1; l < r; l, r = l+1, r-1 {
				up[l], up[r] = up[r], up[l]
			}
			return up
		}
		parent := filepath.Dir(d)
		if parent == d {
			break
		}
		d = parent
	}
	return []string{cwd}
}

// ProjectRoot is the git root above cwd, or cwd itself.
func ProjectRoot(cwd string) string {
	dirs := ProjectDirs(cwd)
	if len(dirs) == 0 {
		return cwd
	}
	return dirs[0]
}

func realPath(p string) string {
	if r, err := filepath.EvalSymlinks(p); err == nil {
		return r
	}
	return filepath.Clean(p)
}

func (s *Set) note(file string, line int, msg string) {
	s.Notices = append(s.Notices, Notice{File: file, Line: line, Msg: msg})
}

// noteErr records err as a notice for file, with its line when it has one.
func (s *Set) noteErr(file string, err error) {
	var fe *fileError
	if errors.As(err, &fe) {
		s.note(file, fe.line, fe.msg+"; skipped")
		return
	}
	s.note(file, 0, err.Error()+"; skipped")
}

func sortEntries(ents []fs.DirEntry) {
	slices.SortFunc(ents, func(a, b fs.DirEntry) int { return strings.Compare(a.Name(), b.Name()) })
}

// isDir reports whether the entry is a folder, following a symlink.
func isDir(parent string, e fs.DirEntry) bool {
	if e.IsDir() {
		return true
	}
	if e.Type()&fs.ModeSymlink != 0 {
		fi, err := os.Stat(filepath.Join(parent, e.Name()))
		return err == nil && fi.IsDir()
	}
	return false
}

// hidden reports names loading skips (dotfiles, editor backups).
func hidden(name string) bool {
	return strings.HasPrefix(name, ".") || strings.HasSuffix(name, "~")
}
