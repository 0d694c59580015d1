package tools

import (
	"slices"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// The checks of knownSafePrograms that a list of options cannot say.

// testArgs refuses test -v and -R, which evaluate a subscript (and so can
// run a command substitution held in it).
func testArgs(_ *safeJudge, args []string) string {
	for _, a := range args {
		if a == "-v" || a == "-R" {
			return "test " + a + ", which evaluates a subscript"
		}
	}
	return ""
}

// testOperators are the words of test and [ that take an operand after
// them or stand between two.
var testOperators = map[string]bool{
	"=": true, "==": true, "!=": true, "<": true, ">": true, "-eq": true, "-ne": true, "-lt": true,
	"-le": true, "-gt": true, "-ge": true, "-nt": true, "-ot": true, "-ef": true,
}

// testWords judges the words of test or [: static ones by testArgs; a
// word known only when it runs must be one field (quoted) standing as an
// operand, right after a static operator ("-n", "=") or right before a
// static binary one, so that it cannot become -v and its subscript.
func testWords(words []*syntax.Word) string {
	rws := make([]shWord, len(words))
	var static []string
	for i, w := range words {
		rws[i] = readWord(w)
		if rws[i].static {
			static = append(static, rws[i].lit)
		}
	}
	if why := testArgs(nil, static); why != "" {
		return why
	}
	isOp := func(k int, binary bool) bool {
		if k < 0 || k >= len(rws) || !rws[k].static {
			return false
		}
		l := rws[k].lit
		return testOperators[l] || !binary && len(l) == 2 && l[0] == '-' && l != "-a" && l != "-o"
	}
	for i, w := range words {
		if rws[i].static {
			continue
		}
		if !singleField(w) {
			return "an unquoted expansion in test"
		}
		if !isOp(i-1, false) && !isOp(i+1, true) {
			return "a test operand not known before it runs, where an operator could stand"
		}
	}
	return ""
}

// singleField reports whether w expands to exactly one field: nothing in
// it is an unquoted expansion or glob.
func singleField(w *syntax.Word) bool {
	for _, p := range w.Parts {
		switch p := p.(type) {
		case *syntax.SglQuoted, *syntax.DblQuoted:
		case *syntax.Lit:
			if _, glob := unquotedLit(p.Value); glob {
				return false
			}
		default:
			return false
		}
	}
	return true
}

// setArgs allows set with the options that only change how the rest of
// the line fails or is traced, not what it runs.
func setArgs(_ *safeJudge, args []string) string {
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "-o" || a == "+o":
			if i+1 >= len(args) {
				return ""
			}
			i++
			switch args[i] {
			case "pipefail", "errexit", "nounset", "xtrace", "noclobber", "noglob", "verbose", "errtrace":
				continue
			}
			return "set -o " + args[i]
		case len(a) > 1 && (a[0] == '-' || a[0] == '+') && strings.Trim(a[1:], "euxvfCnbhBHPTE") == "":
			continue
		case len(a) > 2 && (a[0] == '-' || a[0] == '+') && strings.HasSuffix(a, "o") && strings.Trim(a[1:len(a)-1], "euxvfCnbhBHPTE") == "":
			// -euo pipefail: the option name follows.
			args = append(append(args[:i:i], a[:1]+"o"), args[i+1:]...)
			i--
			continue
		}
		return "set " + a
	}
	return ""
}

// teeArgs allows tee to write only files that do not exist yet.
func teeArgs(j *safeJudge, args []string) string {
	after := false
	for _, a := range args {
		switch {
		case after || a == "-" || !strings.HasPrefix(a, "-"):
			if why := j.newFile(a, "tee"); why != "" {
				return why
			}
		case a == "--":
			after = true
		case a == "-a" || a == "-i" || a == "-p" || a == "--append" || a == "--ignore-interrupts" ||
			a == "--output-error" || strings.HasPrefix(a, "--output-error="):
		default:
			return "tee " + a + " is not on the known-safe list"
		}
	}
	return ""
}

// dateArgs allows date to print only: an operand that is not +FORMAT
// sets the clock.
func dateArgs(_ *safeJudge, args []string) string {
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "-d" || a == "-f" || a == "-r" || a == "--date" || a == "--file" || a == "--reference":
			i++
		case strings.HasPrefix(a, "-"):
		case !strings.HasPrefix(a, "+"):
			return "date " + a + " (sets the clock)"
		}
	}
	return ""
}

// subcommandIn returns a check that the first operand is one of allowed
// ("" for none).
func subcommandIn(allowed ...string) func(*safeJudge, []string) string {
	return func(_ *safeJudge, args []string) string {
		first := ""
		for _, a := range args {
			if !strings.HasPrefix(a, "-") {
				first = a
				break
			}
		}
		for _, s := range allowed {
			if first == s {
				return ""
			}
		}
		return "subcommand " + first + " is not on the known-safe list"
	}
}

// gitConfigWrites are the options of git config that write.
var gitConfigWrites = safeRule{denyShort: "e", denyLong: []string{"--add", "--unset", "--unset-all", "--replace-all",
	"--rename-section", "--remove-section", "--edit"}}

// gitConfigArgs allows git config to read only: --get*, --list, or the
// get and list subcommands.
func gitConfigArgs(j *safeJudge, args []string) string {
	if why := gitConfigWrites.judge(j, "git config", args); why != "" {
		return why
	}
	for _, a := range args {
		switch a {
		case "-l", "--list", "--get", "--get-all", "--get-regexp", "--get-urlmatch", "--get-color", "--get-colorbool":
			return ""
		}
		if !strings.HasPrefix(a, "-") {
			if a == "get" || a == "list" {
				return ""
			}
			break
		}
	}
	return "git config that may set a value"
}

// gitArgs judges git: its global options (gitGlobal), then the
// subcommand by gitSafe.
func gitArgs(j *safeJudge, args []string) string {
	i := 0
	for i < len(args) && strings.HasPrefix(args[i], "-") {
		a := args[i]
		if a == "--version" || a == "--help" {
			return ""
		}
		takes, ok := wrapperOption(gitGlobal, a)
		if !ok {
			return "git " + a + " is not on the known-safe list"
		}
		i++
		if takes {
			i++
		}
	}
	if i >= len(args) {
		return ""
	}
	rule, ok := gitSafe[args[i]]
	if !ok {
		return "git " + args[i] + " is not on the known-safe list"
	}
	if j.strict && (args[i] == "ls-remote" || args[i] == "remote" && slices.Contains(args[i+1:], "show")) {
		return "git " + args[i] + " contacts a remote (not known safe outside the sandbox)"
	}
	return rule.judge(j, "git "+args[i], args[i+1:])
}

// goArgs judges the go command by goSafe.
func goArgs(j *safeJudge, args []string) string {
	i := 0
	if len(args) > 1 && args[0] == "-C" {
		i = 2
	}
	if i >= len(args) {
		return ""
	}
	rule, ok := goSafe[args[i]]
	if ok && j.strict && (args[i] == "list" || args[i] == "vet") {
		return "go " + args[i] + " may download modules (not known safe outside the sandbox)"
	}
	if !ok {
		return "go " + args[i] + " is not on the known-safe list (it builds or runs the project's code)"
	}
	return rule.judge(j, "go "+args[i], args[i+1:])
}

// sedArgs allows sed without -i (in place) and -f (a script file), with
// scripts that sedScriptSafe accepts: no w, W, e or r command, no w or e
// flag of s.
func sedArgs(_ *safeJudge, args []string) string {
	var scripts []string
	explicit, after := false, false
	operand := 0
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case after || a == "-" || !strings.HasPrefix(a, "-"):
			if !explicit && operand == 0 {
				scripts = append(scripts, a)
			}
			operand++
		case a == "--":
			after = true
		case strings.HasPrefix(a, "--"):
			name, value, hasValue := strings.Cut(a, "=")
			switch name {
			case "--expression":
				explicit = true
				if !hasValue {
					if i+1 >= len(args) {
						return "sed --expression without a script"
					}
					i++
					value = args[i]
				}
				scripts = append(scripts, value)
			case "--quiet", "--silent", "--regexp-extended", "--separate", "--null-data", "--unbuffered",
				"--posix", "--debug", "--sandbox", "--line-length", "--follow-symlinks":
				if name == "--line-length" && !hasValue {
					i++
				}
			default:
				return "sed " + name + " is not on the known-safe list"
			}
		default:
			for k := 1; k < len(a); k++ {
				switch a[k] {
				case 'n', 'E', 'r', 's', 'z', 'u':
					continue
				case 'e', 'l':
					v := a[k+1:]
					if v == "" {
						if i+1 >= len(args) {
							return "sed -" + string(a[k]) + " without a value"
						}
						i++
						v = args[i]
					}
					if a[k] == 'e' {
						explicit = true
						scripts = append(scripts, v)
					}
				default:
					return "sed -" + string(a[k]) + " is not on the known-safe list"
				}
				break
			}
		}
	}
	for _, s := range scripts {
		if why := sedScriptSafe(s); why != "" {
			return why
		}
	}
	return ""
}

// sedScriptSafe says why a sed script may write a file or run a command,
// or "". It reads the script as a list of commands split at ; and
// newlines, each an optional address and one command; anything it cannot
// read counts as unsafe (a ; inside a regular expression, say).
func sedScriptSafe(script string) string {
	for _, cmd := range strings.FieldsFunc(script, func(r rune) bool { return r == ';' || r == '\n' }) {
		c := strings.TrimSpace(cmd)
		c, ok := skipSedAddress(c)
		if !ok {
			return "a sed script the classifier cannot read"
		}
		c = strings.TrimLeft(c, " !")
		if c == "" {
			continue
		}
		switch op := c[0]; {
		case strings.IndexByte("pdqQ=nNPDgGhHxlzF{}", op) >= 0:
			if rest := strings.TrimSpace(c[1:]); rest != "" && strings.Trim(rest, "0123456789") != "" {
				return "a sed script the classifier cannot read"
			}
		case op == 'b' || op == 't' || op == 'T' || op == ':' || op == '#':
			// branches, labels and comments
		case op == 's' || op == 'y':
			flags, ok := sedSubstFlags(c)
			if !ok {
				return "a sed script the classifier cannot read"
			}
			if op == 's' && strings.Trim(flags, "gpiImM0123456789 ") != "" {
				return "sed s///" + flags + " (w writes a file, e runs a command)"
			}
		default:
			return "sed command " + string(op) + " (it may write a file or run a command)"
		}
	}
	return ""
}

// skipSedAddress returns c after its address (N, $, /re/, \cREc, first~step,
// addr1,addr2, addr,+N).
func skipSedAddress(c string) (string, bool) {
	for range 2 {
		switch {
		case c == "":
			return c, true
		case c[0] >= '0' && c[0] <= '9':
			c = strings.TrimLeft(c, "0123456789~")
		case c[0] == '$':
			c = c[1:]
		case c[0] == '/' || c[0] == '\\':
			d := byte('/')
			if c[0] == '\\' {
				if len(c) < 2 {
					return c, false
				}
				d, c = c[1], c[1:]
			}
			end := sedDelimited(c, d)
			if end < 0 {
				return c, false
			}
			c = strings.TrimLeft(c[end+1:], "IM")
		default:
			return c, true
		}
		if !strings.HasPrefix(c, ",") {
			return c, true
		}
		c = strings.TrimLeft(c[1:], "+~")
	}
	return c, true
}

// sedDelimited returns the index of the delimiter d that closes the part
// of c starting at c[0] (itself a d), or -1.
func sedDelimited(c string, d byte) int {
	for i := 1; i < len(c); i++ {
		switch c[i] {
		case '\\':
			i++
		case d:
			return i
		}
	}
	return -1
}

// sedSubstFlags returns the flags after s/re/repl/ or y/a/b/.
func sedSubstFlags(c string) (string, bool) {
	if len(c) < 2 || c[1] == '\\' || c[1] == '\n' || c[1] == ' ' {
		return "", false
	}
	d := c[1]
	rest := c[1:]
	for range 2 {
		end := sedDelimited(rest, d)
		if end < 0 {
			return "", false
		}
		rest = rest[end:]
	}
	return rest[1:], true
}

// awkArgs allows awk with -F, -v and a program (given inline, never from
// a file or a library) that awkProgramSafe accepts.
func awkArgs(_ *safeJudge, args []string) string {
	var programs []string
	explicit := false
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--":
			if !explicit && i+1 < len(args) {
				programs = append(programs, args[i+1])
			}
			i = len(args)
		case a == "-F" || a == "-v":
			i++
		case strings.HasPrefix(a, "-F") || strings.HasPrefix(a, "-v") || a == "-S" || a == "--sandbox" ||
			strings.HasPrefix(a, "--field-separator=") || strings.HasPrefix(a, "--assign="):
		case a == "-e" || a == "--source":
			if i+1 >= len(args) {
				return "awk -e without a program"
			}
			explicit = true
			i++
			programs = append(programs, args[i])
		case strings.HasPrefix(a, "-"):
			return "awk " + a + " is not on the known-safe list"
		default:
			if !explicit {
				programs = append(programs, a)
			}
			i = len(args) // the rest are files and var=value operands
		}
	}
	for _, p := range programs {
		if why := awkProgramSafe(p); why != "" {
			return why
		}
	}
	return ""
}

// awkProgramSafe says why an awk program may write a file or run a
// command, or "": system(), any redirection or pipe (> and | also stand
// for comparison and alternation, and ask all the same), close and
// fflush of them, and gawk's @ (@load, @include, indirect calls).
func awkProgramSafe(p string) string {
	for _, bad := range []string{"system", ">", "|", "@", "close", "fflush"} {
		if strings.Contains(p, bad) {
			return "an awk program with " + bad + " (it may write a file or run a command)"
		}
	}
	return ""
}
