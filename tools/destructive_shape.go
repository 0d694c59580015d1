package tools

import (
	"path"
	"regexp"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// inlineEffectRe matches what inline code does that deletes, writes or
// runs things.
var inlineEffectRe = regexp.MustCompile(`\b(?:remove|removedirs|unlink|unlinkSync|rmtree|rmdir|rmdirSync|rmSync|rm|rename|renameSync|replace|move|write|writeFile|writeFileSync|write_text|write_bytes|appendFile|truncate|system|popen|subprocess|exec|execSync|spawn|spawnSync|child_process|chmod|chown|kill|shutil|File\.delete|FileUtils)\b|open\s*\([^)]*,\s*['"][wax+]|open\s*\(?\s*[A-Za-z$]*\s*,?\s*['"]?\s*[>+]|>>?\s*['"]`)

// pipedInto judges the right side of a pipe: a shell there runs what the
// left side prints (unless it runs a -c script, which is judged), and so
// does an interpreter that reads its program from standard input.
func pipedInto(b *syntax.BinaryCmd, depth int) string {
	name, args := leadProgram(b.Y)
	switch {
	case isShell(name):
		if _, ok := shellScript(args); ok {
			return "" // its own -c script, judged as a segment
		}
		if from, _ := leadProgram(b.X); from == "curl" || from == "wget" || from == "fetch" {
			return from + " piped into a shell"
		}
		return "piped into a shell"
	case isInterpreter(name) && (len(args) == 0 || len(args) == 1 && args[0] == "-"):
		return "piped into " + name
	}
	return ""
}

// leadProgram returns the program a statement runs first (the base name,
// behind sudo, env, exec, command and nohup and their options) and its
// arguments; for a pipe, that of its first part.
func leadProgram(s *syntax.Stmt) (string, []string) {
	if s == nil {
		return "", nil
	}
	switch c := s.Cmd.(type) {
	case *syntax.BinaryCmd:
		if c.Op == syntax.Pipe || c.Op == syntax.PipeAll {
			return leadProgram(c.X)
		}
	case *syntax.CallExpr:
		sg := callSegment(c, nil, "")
		w := sg.words
		for len(w) > 0 {
			switch path.Base(w[0]) {
			case "sudo", "doas", "env", "exec", "command", "nohup":
				w = w[1:]
				for len(w) > 0 && (strings.HasPrefix(w[0], "-") || strings.Contains(w[0], "=")) {
					w = w[1:]
				}
				continue
			}
			return path.Base(w[0]), w[1:]
		}
	}
	return "", nil
}

// isForkBomb reports whether a function calls itself both in a pipe and
// in the background (:(){ :|:& };:).
func isForkBomb(f *syntax.FuncDecl) bool {
	name := f.Name.Value
	piped, background := false, false
	syntax.Walk(f.Body, func(n syntax.Node) bool {
		switch n := n.(type) {
		case *syntax.BinaryCmd:
			if n.Op == syntax.Pipe || n.Op == syntax.PipeAll {
				if a, _ := leadProgram(n.X); a == name {
					piped = true
				}
			}
		case *syntax.Stmt:
			if a, _ := leadProgram(n); n.Background && a == name {
				background = true
			}
		}
		return true
	})
	return piped && background
}

// wrapperOptionWhy judges an option of the wrapper b given as opts[0]
// (with the words after it): env -S runs its value as a command line;
// strace -o and ltrace -o write a file.
func wrapperOptionWhy(b string, opts []string, depth int, dir string) string {
	a := opts[0]
	switch {
	case b == "env" && (a == "-S" || a == "--split-string") && len(opts) > 1:
		if why := destructiveLine(opts[1], depth+1, dir); why != "" {
			return "env -S: " + why
		}
	case b == "env" && (strings.HasPrefix(a, "-S") || strings.HasPrefix(a, "--split-string=")) && a != "-S":
		v := strings.TrimPrefix(strings.TrimPrefix(a, "--split-string="), "-S")
		if why := destructiveLine(v, depth+1, dir); why != "" {
			return "env -S: " + why
		}
	case (b == "strace" || b == "ltrace") && (a == "-o" || strings.HasPrefix(a, "--output")):
		return b + " -o (writes a file)"
	}
	return ""
}

// destructiveMore checks the programs the older word checks do not know,
// at words[i] of sg: sort -o, ln -f, tar -x, curl -o, wget -O, awk
// system() or an output redirection.
func destructiveMore(sg segment, i, depth int) string {
	name, args := path.Base(sg.words[i]), sg.words[i+1:]
	switch name {
	case "sort":
		if v, ok := optionValue(args, 'o', "--output"); ok && !isDevNull(v) {
			return "sort -o (overwrites " + v + ")"
		}
	case "ln":
		if hasFlag(args, "-f", "--force") {
			return "ln -f (replaces a file)"
		}
	case "tar", "bsdtar", "gtar":
		if hasFlag(args, "--extract", "--get") || len(args) > 0 && !strings.HasPrefix(args[0], "-") && strings.ContainsRune(args[0], 'x') ||
			tarShort(args, 'x') {
			return "tar -x (overwrites files)"
		}
	case "curl":
		if v, ok := optionValue(args, 'o', "--output"); ok && !isDevNull(v) && v != "-" {
			return "curl -o (overwrites " + v + ")"
		}
		if hasFlag(args, "-O", "--remote-name", "--remote-name-all") {
			return "curl -O (overwrites a file)"
		}
	case "wget":
		if v, ok := optionValue(args, 'O', "--output-document"); ok && !isDevNull(v) && v != "-" {
			return "wget -O (overwrites " + v + ")"
		}
	case "awk", "gawk", "mawk", "nawk", "busybox":
		for _, a := range args {
			if strings.Contains(a, "system") || strings.Contains(a, "print >") || strings.Contains(a, "printf >") {
				return name + " program with system() or an output redirection"
			}
		}
	}
	return ""
}

// tarShort reports whether tar's first option bundle holds the letter c
// (-xf, -xzf).
func tarShort(args []string, c byte) bool {
	for _, a := range args {
		if len(a) > 1 && a[0] == '-' && a[1] != '-' && strings.IndexByte(a, c) > 0 && isLetters(a[1:]) {
			return true
		}
	}
	return false
}

// optionValue returns the value of the short option c (alone, bundled
// last, or with the value attached: -o f, -so f, -of) or of the long
// option long (--output f, --output=f).
func optionValue(args []string, c byte, long string) (string, bool) {
	for j, a := range args {
		if a == "--" {
			break
		}
		switch {
		case a == long || len(a) > 2 && len(a) < len(long) && strings.HasPrefix(long, a) && strings.HasPrefix(a, "--"):
			if j+1 < len(args) {
				return args[j+1], true
			}
			return "", true
		case strings.HasPrefix(a, long+"="):
			return a[len(long)+1:], true
		case len(a) > 1 && a[0] == '-' && a[1] != '-':
			if k := strings.IndexByte(a[1:], c); k >= 0 && isLetters(a[1:1+k]) {
				if v := a[2+k:]; v != "" {
					return v, true
				}
				if j+1 < len(args) {
					return args[j+1], true
				}
				return "", true
			}
		}
	}
	return "", false
}

// isInterpreter reports whether name runs code given inline with -c/-e.
func isInterpreter(name string) bool {
	switch {
	case strings.HasPrefix(name, "python"), name == "perl", name == "ruby", name == "node", name == "nodejs",
		name == "php", name == "lua", name == "bun", name == "deno", name == "osascript", name == "Rscript":
		return true
	}
	return false
}

// inlineCode says why the inline program of an interpreter call (python
// -c CODE, perl -e CODE, node -e CODE, php -r CODE, ...) counts as
// destructive: it deletes, writes or runs something. Code it cannot find
// is not judged.
func inlineCode(name string, args []string) string {
	for j, a := range args {
		if a == "--" {
			break
		}
		inline := a == "-c" || a == "-e" || a == "-E" || a == "-r" || a == "--eval" || a == "-p" || a == "--print" ||
			(strings.HasPrefix(a, "-") && !strings.HasPrefix(a, "--") && len(a) > 2 && strings.ContainsAny(a[len(a)-1:], "ce"))
		if !inline || j+1 >= len(args) {
			continue
		}
		if inlineEffectRe.MatchString(args[j+1]) {
			return name + " " + a + " with code that deletes, writes or runs commands"
		}
	}
	return ""
}

// detachOrWrap looks at word i of sg when it is a wrapper that
// commandWrappers does not skip: setsid and nohup detach what they run
// from the command (it would outlive it), so they ask on their own; flock
// and watch run a command of their own (after a lock file, or as a
// script), which is checked. done reports that the segment is judged.
func detachOrWrap(sg segment, i, depth int) (why string, done bool) {
	words := sg.words
	switch path.Base(words[i]) {
	case "setsid", "disown":
		return path.Base(words[i]) + " (detaches what it runs)", true
	case "nohup":
		return "nohup (detaches what it runs)", true
	case "flock":
		rest := words[i+1:]
		for j, a := range rest {
			if (a == "-c" || a == "--command") && j+1 < len(rest) {
				if why := destructiveLine(rest[j+1], depth+1, sg.dir); why != "" {
					return "flock -c: " + why, true
				}
				return "", true
			}
		}
		// flock [options] FILE COMMAND...: skip the options and the file.
		k := i + 1
		for k < len(words) && strings.HasPrefix(words[k], "-") {
			k++
		}
		if k+1 < len(words) {
			if why := destructiveWords(sg.from(k+1), depth); why != "" {
				return "flock: " + why, true
			}
		}
		return "", true
	case "watch":
		k := i + 1
		for k < len(words) && strings.HasPrefix(words[k], "-") {
			if words[k] == "-n" || words[k] == "--interval" || words[k] == "-d" {
				k++
			}
			k++
		}
		if k < len(words) {
			if why := destructiveLine(strings.Join(words[k:], " "), depth+1, sg.dir); why != "" {
				return "watch: " + why, true
			}
		}
		return "", true
	}
	return "", false
}
