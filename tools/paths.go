package tools

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// ResolvePath turns a path given by the model into a clean absolute path:
// a leading "~" or "~/" is expanded to the user's home directory and a
// relative path is joined to cwd (the process working directory when cwd is
// empty). Symlinks are not resolved.
func ResolvePath(cwd, p string) (string, error) {
	p = strings.TrimSpace(p)
	if p == "" {
		return "", fmt.Errorf("path is empty")
	}
	if p == "~" || strings.HasPrefix(p, "~/") {
		home, err := os.UserHomeDir()
		if err != nil {
			return "", fmt.Errorf("cannot expand ~ in %q: %v", p, err)
		}
		p = filepath.Join(home, p[1:])
	}
	if !filepath.IsAbs(p) {
		if cwd == "" {
			wd, err := os.Getwd()
			if err != nil {
				return "", fmt.Errorf("cannot resolve relative path %q: %v", p, err)
			}
			cwd = wd
		}
		p = filepath.Join(cwd, p)
	}
	return filepath.Clean(p), nil
}

// envCwd returns the working directory of env, falling back to the process
// working directory.
func envCwd(env *Env) string {
	if env != nil && env.Cwd != "" {
		return env.Cwd
	}
	wd, err := os.Getwd()
	if err != nil {
		return "/"
	}
	return wd
}

// resolveArgPath resolves p against the working directory of env.
func resolveArgPath(env *Env, p string) (string, error) {
	return ResolvePath(envCwd(env), p)
}

// isWithin reports whether p is dir itself or lies below it. Both must be
// clean absolute paths.
func isWithin(dir, p string) bool {
	if p == dir {
		return true
	}
	if !strings.HasSuffix(dir, string(filepath.Separator)) {
		dir += string(filepath.Separator)
	}
	return strings.HasPrefix(p, dir)
}

// displayPath shows abs relative to cwd when it lies below cwd, else as is,
// so that the model can pass it straight back to another tool.
func displayPath(cwd, abs string) string {
	if cwd != "" && isWithin(cwd, abs) {
		if rel, err := filepath.Rel(cwd, abs); err == nil {
			return filepath.ToSlash(rel)
		}
	}
	return abs
}

// resolveExistingPrefix resolves the symlinks of the longest prefix of the
// clean absolute path abs that exists, and appends the rest unchanged.
func resolveExistingPrefix(abs string) string {
	var rest []string
	cur := abs
	for {
		if _, err := os.Lstat(cur); err == nil {
			if r, err := filepath.EvalSymlinks(cur); err == nil {
				cur = r
				break
			}
		}
		parent := filepath.Dir(cur)
		if parent == cur {
			break
		}
		rest = append(rest, filepath.Base(cur))
		cur = parent
	}
	for i := len(rest) - 1; i >= 0; i-- {
		cur = filepath.Join(cur, rest[i])
	}
	return cur
}

// resolvesWithin reports whether the path p given by the model (resolved
// against cwd as ResolvePath does) lies in cwd or below it once symlinks
// are followed: the longest existing prefix of each is resolved, so that
// "vendor/x" with vendor -> /elsewhere is outside cwd, as the write that
// follows the link would be. An empty cwd is the process working
// directory.
func resolvesWithin(cwd, p string) bool {
	if cwd == "" {
		wd, err := os.Getwd()
		if err != nil {
			return false
		}
		cwd = wd
	}
	base, err := ResolvePath("", cwd)
	if err != nil {
		return false
	}
	abs, err := ResolvePath(base, p)
	if err != nil {
		return false
	}
	return isWithin(resolveExistingPrefix(base), resolveExistingPrefix(abs))
}
