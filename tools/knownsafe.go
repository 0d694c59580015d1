package tools

import "strings"

// safeRule says when a call of one program is known not to destroy:
// not to delete, overwrite or truncate a file, and not to run another
// program or script that could. The words it is given are the call's
// arguments, after the program name.
type safeRule struct {
	// anyArgs: no option or operand of the program writes a file or runs
	// another program, so its arguments need not be known (they may come
	// from a variable or a substitution).
	anyArgs bool
	// denyShort lists the single-letter options that write or run
	// things; alone or anywhere in a bundle ("-nro" holds "o") the call
	// is not known safe.
	denyShort string
	// denyLong lists the long options that write or run things, matched
	// also abbreviated ("--out", as getopt_long and git take it) and with
	// a value ("--output=f").
	denyLong []string
	// denyWords are words that make the call unsafe wherever they stand
	// (find's -delete).
	denyWords []string
	// maxOperands is the most operands (words that are not options, and
	// every word after "--") the call may have; 0 means any number, and
	// noOperands none.
	maxOperands int
	// check judges the arguments further (a subcommand, a script, the
	// files it writes); it returns why the call is not known safe, or "".
	// It gets static words only (unless anyArgs).
	check func(j *safeJudge, args []string) string
}

// noOperands as safeRule.maxOperands allows none.
const noOperands = -1

// knownSafePrograms is the known-safe list: the programs (by the base
// name of the command word) whose calls run without asking in the
// sandbox in ask mode, each with the options and operands that would
// make it write, delete or run something. A program not listed here is
// not known safe and asks. The options denied are those the program's
// documentation (GNU coreutils, findutils, grep, sed and gawk, git, go,
// ripgrep, fd, jq, tree, file) gives for writing a file or running a
// program; a later version that adds one must be added here. Test runners and build
// tools (go test, go build, make, npm, cargo, pytest) are deliberately
// absent: they run the project's own code, which can delete anything the
// sandbox lets it write. Interpreters and shells (sh -c, python -c, node
// -e, perl, ruby) are absent for the same reason, and so are wrappers
// that change what the kernel lets a program do (sudo, doas, strace,
// unshare, chroot, setpriv, nsenter) or that detach it (nohup, setsid).
// Wrappers that only run the rest of the line (command, builtin, exec,
// env, nice, timeout, stdbuf, xargs, time) are judged by safeJudge,
// which judges the program they run.
//
// The same list is meant to back the known-safe list of permission
// rules; it is read-only.
var knownSafePrograms = map[string]safeRule{
	// Shell builtins and keywords that only read, print or move about.
	":": {anyArgs: true}, "true": {anyArgs: true}, "false": {anyArgs: true},
	"echo": {anyArgs: true}, "pwd": {anyArgs: true}, "type": {anyArgs: true},
	"cd": {anyArgs: true}, "pushd": {anyArgs: true}, "popd": {anyArgs: true}, "dirs": {anyArgs: true},
	"exit": {anyArgs: true}, "return": {anyArgs: true}, "break": {anyArgs: true}, "continue": {anyArgs: true},
	"shift": {anyArgs: true}, "wait": {anyArgs: true},
	// printf -v NAME sets a variable (PATH, say) instead of printing;
	// safeJudge lets printf through when its first word is a known
	// format.
	"printf": {denyShort: "v"},
	// test -v NAME[SUBSCRIPT] evaluates the subscript, which can run a
	// command substitution.
	"test": {check: testArgs}, "[": {check: testArgs}, // see also testWords
	"set": {check: setArgs},

	// Files and text, to standard output only.
	"ls": {anyArgs: true}, "dir": {anyArgs: true}, "vdir": {anyArgs: true},
	"cat": {anyArgs: true}, "tac": {anyArgs: true}, "nl": {anyArgs: true},
	"head": {anyArgs: true}, "tail": {anyArgs: true}, "wc": {anyArgs: true},
	"grep": {anyArgs: true}, "egrep": {anyArgs: true}, "fgrep": {anyArgs: true},
	"cut": {anyArgs: true}, "tr": {anyArgs: true}, "paste": {anyArgs: true},
	"join": {anyArgs: true}, "comm": {anyArgs: true}, "fold": {anyArgs: true},
	"fmt": {anyArgs: true}, "column": {anyArgs: true}, "expand": {anyArgs: true},
	"unexpand": {anyArgs: true}, "rev": {anyArgs: true}, "diff": {anyArgs: true},
	"cmp": {anyArgs: true}, "od": {anyArgs: true}, "hexdump": {anyArgs: true},
	"strings": {anyArgs: true}, "base64": {anyArgs: true}, "base32": {anyArgs: true},
	"md5sum": {anyArgs: true}, "sha1sum": {anyArgs: true}, "sha224sum": {anyArgs: true},
	"sha256sum": {anyArgs: true}, "sha384sum": {anyArgs: true}, "sha512sum": {anyArgs: true},
	"b2sum": {anyArgs: true}, "cksum": {anyArgs: true}, "sum": {anyArgs: true},
	"jq": {anyArgs: true}, "expr": {anyArgs: true}, "seq": {anyArgs: true},
	"basename": {anyArgs: true}, "dirname": {anyArgs: true}, "realpath": {anyArgs: true},
	"readlink": {anyArgs: true}, "stat": {anyArgs: true}, "du": {anyArgs: true},
	"df": {anyArgs: true}, "which": {anyArgs: true},
	// sort -o FILE writes FILE; --compress-program runs a program.
	"sort": {denyShort: "o", denyLong: []string{"--output", "--compress-program"}},
	// uniq IN OUT and xxd IN OUT write OUT.
	"uniq": {maxOperands: 1}, "xxd": {maxOperands: 1},
	// tree -o FILE writes FILE; -R writes 00Tree.html in every directory.
	"tree": {denyShort: "oR"},
	// file -C compiles a magic file into the working directory.
	"file": {denyShort: "C", denyLong: []string{"--compile"}},
	// tee writes its operands: only new files (see teeArgs).
	"tee": {check: teeArgs},
	// Creating files and directories, or setting a time stamp, destroys
	// nothing.
	"touch": {anyArgs: true}, "mkdir": {anyArgs: true},
	// find's actions that delete, run or write a file.
	"find": {denyWords: []string{"-delete", "-exec", "-execdir", "-ok", "-okdir", "-fprint", "-fprint0", "-fprintf", "-fls"}},
	// rg --pre runs a program on every file searched; --hostname-bin
	// runs one.
	"rg": {denyLong: []string{"--pre", "--hostname-bin"}},
	// fd -x/-X run a command on what it finds.
	"fd":     {denyShort: "xX", denyLong: []string{"--exec", "--exec-batch"}},
	"fdfind": {denyShort: "xX", denyLong: []string{"--exec", "--exec-batch"}},
	"sed":    {check: sedArgs},
	"awk":    {check: awkArgs}, "gawk": {check: awkArgs}, "mawk": {check: awkArgs}, "nawk": {check: awkArgs},
	"gofmt": {denyShort: "w"},

	// The system, read only.
	"whoami": {anyArgs: true}, "id": {anyArgs: true}, "groups": {anyArgs: true},
	"uname": {anyArgs: true}, "arch": {anyArgs: true}, "nproc": {anyArgs: true},
	"uptime": {anyArgs: true}, "tty": {anyArgs: true}, "printenv": {anyArgs: true},
	"locale": {anyArgs: true}, "getconf": {anyArgs: true}, "ps": {anyArgs: true},
	"pgrep": {anyArgs: true}, "sleep": {anyArgs: true}, "yes": {anyArgs: true},
	// date -s and date MMDDhhmm set the clock; date +FORMAT prints.
	"date": {denyShort: "s", denyLong: []string{"--set"}, check: dateArgs},

	// Version control and the Go tool, by subcommand (see gitArgs, goArgs).
	"git": {check: gitArgs},
	"go":  {check: goArgs},
}

// safeWrappers are the programs that run the rest of their words as a
// command, with the options each takes (a trailing "=" marks one that
// takes a value, given as the next word or attached). An option not
// listed makes the call unknown, so that no option's value can be taken
// for the command. The wrapped command is judged like any other.
var safeWrappers = map[string][]string{
	"command": {"-p", "-v", "-V"},
	"builtin": {},
	"exec":    {"-c", "-l", "-a="},
	"nice":    {"-n=", "--adjustment="},
	"timeout": {"-s=", "--signal=", "-k=", "--kill-after=", "--preserve-status", "--foreground", "-v", "--verbose"},
	"stdbuf":  {"-i=", "-o=", "-e=", "--input=", "--output=", "--error="},
	"env":     {"-i", "--ignore-environment", "-u=", "--unset=", "-0", "--null"},
	"xargs": {"-0", "--null", "-a=", "--arg-file=", "-d=", "--delimiter=", "-E=", "-I=", "--replace=",
		"-L=", "--max-lines=", "-n=", "--max-args=", "-P=", "--max-procs=", "-r", "--no-run-if-empty",
		"-s=", "--max-chars=", "-t", "--verbose", "-x", "--exit", "--show-limits"},
}

// harmlessVariable reports whether assigning name can change nothing a
// known-safe program does: a name with a lowercase letter (by convention
// the shell's own, which programs do not read) or one of the locale and
// display variables. PATH, IFS, LD_PRELOAD, GIT_*, PAGER and the like ask.
func harmlessVariable(name string) bool {
	if strings.ToUpper(name) != name {
		return true
	}
	switch name {
	case "LANG", "LANGUAGE", "TZ", "TERM", "NO_COLOR", "COLUMNS", "LINES", "FORCE_COLOR",
		"CLICOLOR", "CLICOLOR_FORCE", "GREP_COLOR", "GREP_COLORS":
		return true
	}
	return strings.HasPrefix(name, "LC_")
}

// gitSafe lists the git subcommands that read only, with the options of
// each that write a file or run a program ("" for none); a subcommand
// not listed asks. "--output" writes a diff to a file; git grep -O runs
// a pager on the matches.
var gitSafe = map[string]safeRule{
	"status": {}, "log": {denyLong: []string{"--output"}}, "show": {denyLong: []string{"--output"}},
	"diff": {denyLong: []string{"--output"}}, "diff-tree": {denyLong: []string{"--output"}},
	"diff-files": {denyLong: []string{"--output"}}, "diff-index": {denyLong: []string{"--output"}},
	"whatchanged": {denyLong: []string{"--output"}}, "range-diff": {denyLong: []string{"--output"}},
	"shortlog": {}, "blame": {}, "annotate": {},
	"grep":      {denyShort: "O", denyLong: []string{"--open-files-in-pager"}},
	"rev-parse": {}, "rev-list": {}, "ls-files": {}, "ls-tree": {}, "cat-file": {},
	"describe": {}, "merge-base": {}, "name-rev": {}, "for-each-ref": {}, "show-ref": {},
	"show-branch": {}, "check-ignore": {}, "check-attr": {}, "count-objects": {},
	"var": {}, "version": {}, "cherry": {}, "ls-remote": {},
	"branch": {denyShort: "dDmMcCfu", denyLong: []string{"--delete", "--move", "--copy", "--force",
		"--set-upstream-to", "--unset-upstream", "--edit-description", "--set-upstream"}},
	"tag":      {denyShort: "df", denyLong: []string{"--delete", "--force"}},
	"reflog":   {check: subcommandIn("", "show")},
	"stash":    {check: subcommandIn("list", "show")},
	"remote":   {check: subcommandIn("", "show", "get-url")},
	"worktree": {check: subcommandIn("list")},
	"config":   {check: gitConfigArgs},
}

// gitGlobal lists git's options before the subcommand that change what
// it reads, never what it runs (a trailing "=" marks a value). -c,
// --config-env and --exec-path ask: they can name a program git runs
// (alias.x=!cmd, core.pager, core.fsmonitor).
var gitGlobal = []string{"-C=", "--git-dir=", "--work-tree=", "--namespace=", "--no-pager", "-P",
	"--bare", "--no-replace-objects", "--literal-pathspecs", "--glob-pathspecs", "--noglob-pathspecs",
	"--icase-pathspecs", "--no-optional-locks", "--no-advice", "--version", "--help"}

// goSafe lists the go subcommands that neither build into the tree nor
// run the project's code (the go command takes flags with one dash or
// two, never abbreviated). go vet compiles to a cache but runs no project
// code; -vettool and -toolexec name a program; -mod (=mod) and -modfile
// may rewrite go.mod.
var goSafe = map[string]safeRule{
	"version": {}, "doc": {}, "help": {},
	"env":  {denyWords: []string{"-w", "--w", "-u", "--u"}},
	"list": {denyWords: []string{"-toolexec", "--toolexec", "-modfile", "--modfile", "-mod", "--mod"}},
	"vet":  {denyWords: []string{"-vettool", "--vettool", "-toolexec", "--toolexec", "-modfile", "--modfile", "-mod", "--mod"}},
}
