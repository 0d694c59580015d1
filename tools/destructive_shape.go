package tools

import (
	"path"
	"regexp"
	"strings"
)

// Whole-line shapes that run code the line does not show.
var (
	// A command word made by a substitution or a variable, at the start
	// of the line or of a command: "$(echo rm) -rf", "`x` y", "$X y".
	substCommandRe = regexp.MustCompile("(?:^|[;&|(\\n]|\\bthen|\\bdo|\\belse)\\s*(?:[A-Za-z_][A-Za-z0-9_]*=\\S*\\s+)*(?:\\$\\(|\\$\\{|\\$[A-Za-z_]|`)")
	// Anything piped into a shell, which then runs it.
	pipeShellRe = regexp.MustCompile(`\|\s*(?:(?:sudo|env|exec|command|nohup)\s+)*(?:\S*/)?(?:ba|z|da|k|mk|fi|a)?sh\b`)
	// Anything piped into an interpreter reading its program from stdin.
	pipeInterpRe = regexp.MustCompile(`\|\s*(?:(?:sudo|env|exec)\s+)*(?:\S*/)?(python[0-9.]*|perl|ruby|node|nodejs|php|lua|bun|deno|osascript)\s*(?:-\s*)?(?:$|[;&|)\n])`)
	// A shell or interpreter (or source) fed a process substitution:
	// "sh <(curl …)", "source <(…)".
	procSubstRe = regexp.MustCompile(`(?:^|[;&|(\s])(?:(?:\S*/)?(?:ba|z|da|k|mk|fi|a)?sh|source|\.|python[0-9.]*|perl|ruby|node)\s+(?:-\S+\s+)*<\(`)
	// A shell script that is the output of a substitution: bash -c
	// "$(curl …)". (eval "$(ssh-agent -s)" is an everyday idiom, and
	// eval's words are checked as a script.)
	substScriptRe = regexp.MustCompile("\\b(?:ba|z|da|k|mk|fi|a)?sh\\s+(?:-\\S+\\s+)*-[A-Za-z]*c[A-Za-z]*\\s+[\"']?\\s*(?:\\$\\(|`|\\$[A-Za-z_{])")
	// What inline code does that deletes, writes or runs things.
	inlineEffectRe = regexp.MustCompile(`\b(?:remove|removedirs|unlink|unlinkSync|rmtree|rmdir|rmdirSync|rmSync|rm|rename|renameSync|replace|move|write|writeFile|writeFileSync|write_text|write_bytes|appendFile|truncate|system|popen|subprocess|exec|execSync|spawn|spawnSync|child_process|chmod|chown|kill|shutil|File\.delete|FileUtils)\b|open\s*\([^)]*,\s*['"][wax+]|open\s*\(?\s*[A-Za-z$]*\s*,?\s*['"]?\s*[>+]|>>?\s*['"]`)
)

// destructiveShape checks the whole line for code it cannot see: a
// substituted command word, a pipe into a shell or interpreter, a process
// substitution fed to one.
func destructiveShape(cmd string) string {
	switch {
	case substCommandRe.MatchString(cmd):
		return "command name from a variable or substitution"
	case pipeShellRe.MatchString(cmd):
		return "piped into a shell"
	case pipeInterpRe.MatchString(cmd):
		m := pipeInterpRe.FindStringSubmatch(cmd)
		return "piped into " + m[1]
	case substScriptRe.MatchString(cmd):
		return "a script made by a substitution"
	case procSubstRe.MatchString(cmd):
		return "process substitution run by a shell or interpreter"
	}
	return ""
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
				if why := destructiveLine(rest[j+1], depth+1); why != "" {
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
			if why := destructiveLine(strings.Join(words[k:], " "), depth+1); why != "" {
				return "watch: " + why, true
			}
		}
		return "", true
	}
	return "", false
}
