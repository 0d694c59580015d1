package tools

import (
	"path"
	"strings"

	"mvdan.cc/sh/v3/syntax"
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
	"timeout": true, "builtin": true, "busybox": true, "chronic": true,
	// Wrappers that change what the kernel lets the command do.
	"strace": true, "ltrace": true, "unshare": true, "chroot": true, "setpriv": true,
	"nsenter": true, "capsh": true, "runuser": true, "firejail": true, "proot": true,
	// Shell keywords that can precede a command.
	"if": true, "then": true, "else": true, "elif": true, "do": true,
	"while": true, "until": true, "!": true,
}

// maxShellNesting is how deep IsDestructiveCommand follows scripts given
// to sh -c or eval; a deeper one counts as destructive.
const maxShellNesting = 8

// IsDestructiveCommand reports whether the shell command line cmd may
// destroy data, and why. It is the heuristic of Hermes, applied to every
// simple command of the line as mvdan.cc/sh parses it (in lists, pipes,
// subshells, loops, command and process substitutions, behind wrappers
// such as sudo, env, xargs or strace) and, recursively, to the script of
// sh/bash/zsh/dash/ksh/fish -c, of env -S, of a here-string or
// here-document fed to a shell, and to the arguments of eval: rm, rmdir,
// cp, install, mv, truncate, dd, shred, sed -i, perl -i, rsync --delete,
// git reset|clean|checkout|restore|checkout-index|read-tree -u|switch -f,
// git push --force (or a +refspec, a deletion), git -c alias.x='!…', find
// -delete, -exec rm or -fprint, chmod/chown -R or a mode such as 0 or 777,
// mkfs, tee without -a, sort -o, ln -f, tar -x, curl -o, wget -O, awk
// system(), any sudo, a command name made by an expansion or written in
// ANSI-C quotes ($'\x72m'), an overwriting redirect (> or >|, not >>, nor
// to /dev/null), anything piped into a shell, and a fork bomb. A line that
// does not parse counts as destructive. It errs on the side of yes; it is
// what marks a request destructive in the approval dialog. Inside the
// sandbox the approver asks the inverse question (KnownSafeCommand).
func IsDestructiveCommand(cmd string) (bool, string) {
	why := destructiveLine(cmd, 0, "")
	return why != "", why
}

// destructiveIn is IsDestructiveCommand for a line run in dir: an
// overwriting redirect or tee of a file that does not exist there yet
// creates it and is not destructive.
func destructiveIn(cmd, dir string) (bool, string) {
	why := destructiveLine(cmd, 0, dir)
	return why != "", why
}

// destructiveLine is IsDestructiveCommand for a script nested depth levels
// deep in sh -c or eval, run in dir ("" unknown); it returns why, or "".
func destructiveLine(cmd string, depth int, dir string) string {
	if depth > maxShellNesting {
		return "shell scripts nested too deep to check"
	}
	f, err := parseShell(cmd)
	if err != nil {
		return "it cannot be parsed as a shell command"
	}
	if dir != "" && changesDir(f) {
		dir = "" // a relative path no longer lands below dir
	}
	why, redirect := "", ""
	syntax.Walk(f, func(n syntax.Node) bool {
		if why != "" {
			return false
		}
		switch n := n.(type) {
		case *syntax.Stmt:
			for _, r := range n.Redirs {
				if t := overwriteTarget(r, dir); t != "" && redirect == "" {
					redirect = t
				}
			}
			if c, ok := n.Cmd.(*syntax.CallExpr); ok && len(c.Args) > 0 {
				why = destructiveWords(callSegment(c, n.Redirs, dir), depth)
			}
		case *syntax.BinaryCmd:
			if n.Op == syntax.Pipe || n.Op == syntax.PipeAll {
				why = pipedInto(n, depth)
			}
		case *syntax.FuncDecl:
			if isForkBomb(n) {
				why = "fork bomb"
			}
		}
		return why == ""
	})
	if why == "" && redirect != "" {
		why = "overwriting redirect > " + redirect
	}
	return why
}

// destructiveWords checks one simple command, given as its words; depth
// is how deep in sh -c or eval scripts the command is.
func destructiveWords(sg segment, depth int) string {
	words := sg.words
	sudo := ""
	i := 0
	for i < len(words) {
		w := words[i]
		if sg.ansiC[i] && !(strings.Contains(w, "=") && isAssignment(w)) {
			return "ANSI-C quoted command name $'…'"
		}
		if why, done := detachOrWrap(sg, i, depth); done {
			return why
		}
		switch {
		case strings.Contains(w, "=") && !strings.HasPrefix(w, "-") && isAssignment(w):
			i++
			continue
		case commandWrappers[path.Base(w)]:
			if b := path.Base(w); b == "sudo" || b == "doas" {
				sudo = b
			}
			b := path.Base(w)
			i++
			// Skip the wrapper's options and their values (a guess: an
			// option followed by a non-option word takes it for nice -n 5,
			// timeout 10 and the like; strace's and ltrace's values are
			// known).
			for i < len(words) && (strings.HasPrefix(words[i], "-") || isNumber(words[i])) {
				if why := wrapperOptionWhy(b, words[i:], depth, sg.dir); why != "" {
					return why
				}
				if b == "command" && (words[i] == "-v" || words[i] == "-V") {
					return sudo // command -v only says what the name is
				}
				if (b == "strace" || b == "ltrace") && len(words[i]) == 2 && strings.ContainsRune("eopsuEabIOSPX", rune(words[i][1])) {
					i++
				}
				i++
			}
			if b == "chroot" && i < len(words) {
				i++ // the new root
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
	case sg.dynamic[i]:
		// "$x -rf /", "${X}", "$(echo rm) -rf".
		return "command name from a variable or substitution"
	case name == "perl" && perlInPlace(args):
		return "perl -i"
	case isInterpreter(name):
		if sg.procSubst {
			return "process substitution run by a shell or interpreter"
		}
		if why := inlineCode(name, args); why != "" {
			return why
		}
	case name == "kill" || name == "pkill" || name == "killall":
		for _, a := range args {
			if a == "-1" && name == "kill" {
				return "kill -1 (every process)"
			}
		}
	case name == "crontab" && hasFlag(args, "-r", "--remove"):
		return "crontab -r"
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
			if (a == "-fprint" || a == "-fprint0" || a == "-fprintf" || a == "-fls") && j+1 < len(args) && !isDevNull(args[j+1]) {
				return "find " + a + " (overwrites " + args[j+1] + ")"
			}
			if (a == "-exec" || a == "-execdir" || a == "-ok") && j+1 < len(args) {
				if why := destructiveWords(sg.from(i+2+j), depth); why != "" {
					return "find -exec " + why
				}
			}
		}
	case name == "chmod" || name == "chown" || name == "chgrp":
		if hasFlag(args, "-R", "--recursive") {
			return name + " -R"
		}
		for _, a := range args {
			switch {
			case a == "777", a == "a+rwx", a == "0777", a == "a-rwx", a == "ugo-rwx", a == "a=", a == "ugo=",
				name == "chmod" && isDigits(a) && strings.Trim(a, "0") == "":
				return name + " " + a
			}
		}
	case isShell(name) || name == "source" || name == ".":
		if sg.procSubst {
			return "process substitution run by a shell or interpreter"
		}
		if k, ok := shellScript(args); ok {
			if sg.dynamic[i+1+k] {
				return "a script made by a substitution"
			}
			if why := destructiveLine(args[k], depth+1, sg.dir); why != "" {
				return name + " -c: " + why
			}
		} else if isShell(name) && (sg.stdin != "" || sg.stdinDynamic) {
			if sg.stdinDynamic {
				return name + " reading a script made by a substitution"
			}
			if why := destructiveLine(sg.stdin, depth+1, sg.dir); why != "" {
				return name + " <<<: " + why
			}
		}
	case name == "eval":
		if why := destructiveLine(strings.Join(args, " "), depth+1, sg.dir); why != "" {
			return "eval: " + why
		}
	case name == "rsync":
		for _, a := range args {
			if a == "--del" || strings.HasPrefix(a, "--delete") || a == "--remove-source-files" {
				return "rsync " + a
			}
		}
	case name == "tee" && !hasFlag(args, "-a", "--append"):
		for k, a := range args {
			if !strings.HasPrefix(a, "-") && !isDevNull(a) && (sg.dynamic[i+1+k] || sg.dir == "" || !createsFile(sg.dir, a)) {
				return "tee (overwrites " + a + ")"
			}
		}
	default:
		if why := destructiveMore(sg, i, depth); why != "" {
			return why
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
		if a == "-c" && j+1 < len(args) {
			if k, v, _ := strings.Cut(args[j+1], "="); strings.HasPrefix(strings.ToLower(k), "alias.") && strings.HasPrefix(strings.TrimSpace(v), "!") {
				return "-c alias running a shell command"
			}
		}
		if a == "-C" || a == "-c" || a == "--git-dir" || a == "--work-tree" {
			j++
			continue
		}
		if strings.HasPrefix(a, "-") {
			continue
		}
		switch a {
		case "reset", "clean", "checkout", "restore", "checkout-index":
			return a
		case "switch":
			if hasFlag(args[j+1:], "-f", "--force", "--discard-changes", "-C", "--force-create") {
				return "switch --force"
			}
		case "read-tree":
			if hasFlag(args[j+1:], "-u", "--reset") {
				return "read-tree -u"
			}
		case "rm":
			if hasFlag(args[j+1:], "-r", "-f", "--force") {
				return "rm -r"
			}
		case "push":
			rest := args[j+1:]
			if hasFlag(rest, "-f", "--force") || hasFlag(rest, "--force-with-lease", "--mirror") ||
				hasFlag(rest, "--force-if-includes", "--prune") {
				return "push --force"
			}
			if hasFlag(rest, "-d", "--delete") {
				return "push --delete"
			}
			for _, r := range rest {
				if strings.HasPrefix(r, "+") {
					return "push --force"
				}
				if strings.HasPrefix(r, ":") {
					return "push --delete"
				}
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

// perlInPlace reports whether perl's arguments hold -i, alone or bundled
// (-pi, -pi.bak, -i.orig), before "--". Letters of
// switches that take the rest of the argument as their value (-Mmod,
// -Ilib, -e) end the bundle.
func perlInPlace(args []string) bool {
	for _, a := range args {
		if a == "--" {
			return false
		}
		if len(a) < 2 || a[0] != '-' || a[1] == '-' {
			continue // an operand, a value such as the code of -e, or a long option
		}
		for _, r := range a[1:] {
			if r == 'i' {
				return true
			}
			if strings.ContainsRune("MmIeExdDCFl0123456789", r) || !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z') {
				break
			}
		}
	}
	return false
}

// isShell reports whether name is a shell that runs a script given with -c.
func isShell(name string) bool {
	switch name {
	case "sh", "bash", "zsh", "dash", "ksh", "mksh", "fish", "ash":
		return true
	}
	return false
}

// shellScript returns the index in args of the script a shell runs with
// -c: the first operand after options that include c (alone or bundled, as in
// -ec or -lc). Options that take a value (-o opt, -O opt, --rcfile f) are
// skipped with it.
func shellScript(args []string) (int, bool) {
	dashC := false
	for j := 0; j < len(args); j++ {
		a := args[j]
		switch {
		case a == "--":
			if dashC && j+1 < len(args) {
				return j + 1, true
			}
			return 0, false
		case a == "-c" || a == "--command":
			dashC = true
			continue
		case a == "-o" || a == "+o" || a == "-O" || a == "+O" || a == "--rcfile" || a == "--init-file" || a == "--init-command":
			j++
			continue
		case strings.HasPrefix(a, "--"):
			continue
		case len(a) > 1 && (a[0] == '-' || a[0] == '+') && isLetters(a[1:]):
			if a[0] == '-' && strings.ContainsRune(a[1:], 'c') {
				dashC = true
			}
			continue
		}
		if dashC {
			return j, true
		}
		return 0, false
	}
	return 0, false
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
