package tools

import (
	"path"
	"regexp"
	"strings"
)

// destructiveCommands are commands that delete, move or overwrite files
// whatever their arguments.
var destructiveCommands = map[string]bool{
	"rm": true, "rmdir": true, "cp": true, "install": true, "mv": true,
	"truncate": true, "dd": true, "shred": true, "unlink": true, "srm": true,
	"wipefs": true, "fdisk": true, "parted": true,
}

// commandWrappers run the command that follows their own options.
var commandWrappers = map[string]bool{
	"sudo": true, "doas": true, "env": true, "nohup": true, "time": true, "nice": true,
	"ionice": true, "command": true, "exec": true, "xargs": true, "stdbuf": true,
	"timeout": true, "builtin": true,
	// Shell keywords that can precede a command.
	"if": true, "then": true, "else": true, "elif": true, "do": true,
	"while": true, "until": true, "!": true,
}

// Whole-command patterns that the word-level checks cannot see.
var (
	pipeToShellRe = regexp.MustCompile(`\b(curl|wget|fetch)\b[^|;&]*\|\s*(sudo\s+)?(env\s+)?(ba|z|da|k|fi)?sh\b`)
	forkBombRe    = regexp.MustCompile(`([A-Za-z_:][A-Za-z0-9_:]*)\s*\(\)\s*\{[^}]*\|[^}]*&[^}]*\}\s*;`)
)

// IsDestructiveCommand reports whether the shell command line cmd may
// destroy data, and why. It is the heuristic of Hermes, applied to every
// simple command of the line (after ;, &&, ||, |, &, $( and backticks, and
// behind wrappers such as sudo, env or xargs): rm, rmdir, cp, install, mv,
// truncate, dd, shred, sed -i, git reset|clean|checkout (and push --force),
// find -delete or -exec rm, chmod/chown -R, mkfs, tee without -a, any sudo,
// an overwriting redirect (> or >|, not >>, nor to /dev/null), a download
// piped into a shell, and a fork bomb. It errs on the side of yes.
func IsDestructiveCommand(cmd string) (bool, string) {
	if m := pipeToShellRe.FindStringSubmatch(cmd); m != nil {
		return true, m[1] + " piped into a shell"
	}
	if forkBombRe.MatchString(cmd) {
		return true, "fork bomb"
	}
	segs, redirect := shellSegments(cmd)
	for _, words := range segs {
		if why := destructiveWords(words); why != "" {
			return true, why
		}
	}
	if redirect != "" {
		return true, "overwriting redirect > " + redirect
	}
	return false, ""
}

// destructiveWords checks one simple command, given as its words.
func destructiveWords(words []string) string {
	sudo := ""
	i := 0
	for i < len(words) {
		w := words[i]
		switch {
		case strings.Contains(w, "=") && !strings.HasPrefix(w, "-") && isAssignment(w):
			i++
			continue
		case commandWrappers[path.Base(w)]:
			if b := path.Base(w); b == "sudo" || b == "doas" {
				sudo = b
			}
			i++
			// Skip the wrapper's options and their values (a guess: an
			// option followed by a non-option word takes it for nice -n 5,
			// timeout 10 and the like).
			for i < len(words) && (strings.HasPrefix(words[i], "-") || isNumber(words[i])) {
				i++
			}
			continue
		}
		break
	}
	if i >= len(words) {
		if sudo != "" {
			return sudo
		}
		return ""
	}
	name, args := path.Base(words[i]), words[i+1:]
	switch {
	case destructiveCommands[name]:
		return name
	case strings.HasPrefix(name, "mkfs"):
		return name
	case name == "sed" && hasFlag(args, "-i", "--in-place"):
		return "sed -i"
	case name == "git":
		if sub := gitSubcommand(args); sub != "" {
			return "git " + sub
		}
	case name == "find":
		for j, a := range args {
			if a == "-delete" {
				return "find -delete"
			}
			if (a == "-exec" || a == "-execdir" || a == "-ok") && j+1 < len(args) {
				if why := destructiveWords(args[j+1:]); why != "" {
					return "find -exec " + why
				}
			}
		}
	case name == "chmod" || name == "chown" || name == "chgrp":
		if hasFlag(args, "-R", "--recursive") {
			return name + " -R"
		}
		for _, a := range args {
			if a == "777" || a == "a+rwx" || a == "0777" {
				return name + " " + a
			}
		}
	case name == "tee" && !hasFlag(args, "-a", "--append"):
		for _, a := range args {
			if !strings.HasPrefix(a, "-") && !isDevNull(a) {
				return "tee (overwrites " + a + ")"
			}
		}
	}
	if sudo != "" {
		return sudo
	}
	return ""
}

// gitSubcommand returns the destructive git subcommand in args, if any.
func gitSubcommand(args []string) string {
	for j := 0; j < len(args); j++ {
		a := args[j]
		if a == "-C" || a == "-c" || a == "--git-dir" || a == "--work-tree" {
			j++
			continue
		}
		if strings.HasPrefix(a, "-") {
			continue
		}
		switch a {
		case "reset", "clean", "checkout", "restore":
			return a
		case "push":
			if hasFlag(args[j+1:], "-f", "--force") || hasFlag(args[j+1:], "--force-with-lease", "--mirror") {
				return "push --force"
			}
		case "branch":
			if hasFlag(args[j+1:], "-D", "--delete") {
				return "branch -D"
			}
		case "stash":
			if j+1 < len(args) && (args[j+1] == "drop" || args[j+1] == "clear") {
				return "stash " + args[j+1]
			}
		}
		return ""
	}
	return ""
}

// hasFlag reports whether args hold one of the flags, also as a bundle of
// short flags ("-rf" holds "-f") or with an attached value ("-i.bak",
// "--in-place=.bak").
func hasFlag(args []string, flags ...string) bool {
	for _, a := range args {
		if a == "--" {
			return false
		}
		for _, f := range flags {
			switch {
			case a == f, strings.HasPrefix(f, "--") && strings.HasPrefix(a, f+"="):
				return true
			case len(f) == 2 && f[0] == '-' && len(a) > 1 && a[0] == '-' && a[1] != '-':
				if f == "-i" && strings.HasPrefix(a, "-i") {
					return true // sed -i.bak, -iE
				}
				if strings.ContainsRune(a[1:], rune(f[1])) && isLetters(a[1:]) {
					return true
				}
			}
		}
	}
	return false
}

// isAssignment reports whether w is a shell variable assignment NAME=value.
func isAssignment(w string) bool {
	name, _, _ := strings.Cut(w, "=")
	if name == "" {
		return false
	}
	for i, r := range name {
		if !(r == '_' || r >= 'A' && r <= 'Z' || r >= 'a' && r <= 'z' || i > 0 && r >= '0' && r <= '9') {
			return false
		}
	}
	return true
}

// isNumber reports whether w is a non-empty run of digits, with an
// optional unit suffix as timeout takes (10s, 5m).
func isNumber(w string) bool {
	w = strings.TrimRight(w, "smhd")
	return w != "" && strings.Trim(w, "0123456789.") == ""
}

// isLetters reports whether s holds only ASCII letters.
func isLetters(s string) bool {
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z') {
			return false
		}
	}
	return true
}

// isDevNull reports whether a redirect target is harmless to overwrite.
func isDevNull(t string) bool {
	switch t {
	case "/dev/null", "/dev/stdout", "/dev/stderr", "/dev/tty":
		return true
	}
	return strings.HasPrefix(t, "&") || strings.HasPrefix(t, "/dev/fd/")
}

// shellSegments splits a command line into simple commands, each as its
// words with quotes removed, at ;, &, |, newlines, parentheses, braces,
// $( and backticks outside single quotes. It also returns the target of the
// first overwriting redirect (> or >|, not >> nor a duplication like 2>&1,
// nor to /dev/null), or "".
func shellSegments(s string) ([][]string, string) {
	var segs [][]string
	var words []string
	var cur strings.Builder
	inWord := false
	redirect := ""
	wantTarget := false
	endWord := func() {
		if !inWord {
			return
		}
		w := cur.String()
		cur.Reset()
		inWord = false
		if wantTarget {
			wantTarget = false
			if redirect == "" && !isDevNull(w) {
				redirect = w
			}
			return
		}
		words = append(words, w)
	}
	endSeg := func() {
		endWord()
		if len(words) > 0 {
			segs = append(segs, words)
		}
		words = nil
	}
	// Command substitutions and subshells nest; each remembers the quote
	// it interrupted and whether it is a backtick one.
	type frame struct {
		quote byte
		tick  bool
	}
	var stack []frame
	open := func(quoteWas byte, tick bool) {
		endSeg()
		stack = append(stack, frame{quoteWas, tick})
	}
	quote := byte(0)
	closeFrame := func() {
		endSeg()
		if n := len(stack); n > 0 {
			quote = stack[n-1].quote
			stack = stack[:n-1]
		}
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case quote == '\'':
			if c == '\'' {
				quote = 0
			} else {
				cur.WriteByte(c)
			}
			continue
		case c == '\\' && i+1 < len(s):
			i++
			cur.WriteByte(s[i])
			inWord = true
			continue
		case quote == '"':
			switch {
			case c == '"':
				quote = 0
			case c == '`':
				open('"', true)
				quote = 0
			case c == '$' && i+1 < len(s) && s[i+1] == '(':
				open('"', false)
				quote = 0
				i++
			default:
				cur.WriteByte(c)
			}
			continue
		}
		switch c {
		case '\'', '"':
			quote = c
			inWord = true
		case ' ', '\t':
			endWord()
		case '\n', ';', '&', '|', '{', '}':
			endSeg()
		case '(':
			open(0, false)
		case ')':
			closeFrame()
		case '`':
			if n := len(stack); n > 0 && stack[n-1].tick {
				closeFrame()
			} else {
				open(0, true)
			}
		case '$':
			if i+1 < len(s) && s[i+1] == '(' {
				open(0, false)
				i++
				continue
			}
			cur.WriteByte(c)
			inWord = true
		case '<':
			endWord()
		case '>':
			// Drop a file-descriptor number written just before it.
			if inWord && strings.Trim(cur.String(), "0123456789") == "" {
				cur.Reset()
				inWord = false
			}
			endWord()
			next := byte(0)
			if i+1 < len(s) {
				next = s[i+1]
			}
			switch {
			case next == '>':
				i++ // append: harmless
			case next == '&':
				i++ // duplication such as 2>&1
				for i+1 < len(s) && (s[i+1] >= '0' && s[i+1] <= '9' || s[i+1] == '-') {
					i++
				}
			default:
				if next == '|' {
					i++
				}
				wantTarget = true
			}
		default:
			cur.WriteByte(c)
			inWord = true
		}
	}
	endSeg()
	if wantTarget && redirect == "" {
		redirect = "(missing target)"
	}
	return segs, redirect
}
