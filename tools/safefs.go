//go:build unix

package tools

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"
)

// The write tools (write_file, patch, every V4A section) decide and write
// on one directory handle. The approver judged a path as the model gave it
// (and as its symlinks resolved at that moment); by the time the tool
// writes, a symlink in the path may lead elsewhere. So the tool opens the
// file's directory once, asks the kernel where that handle really is, checks
// that place with the approver's own rule (protectedIn, isWithin), and then
// reads, creates its temporary file and renames through that handle only
// (openat, mkdirat, renameat, unlinkat): what was checked is what is
// written.
//
// The rule: symlinks in the path are followed (a tree may hold src ->
// packages/src), but a write whose path, as given, names no .git directory
// and does not lie in $TALARIA_HOME must not land in one, and a write whose
// path lies in the working directory must not land outside it. Such a
// write is refused, naming the real path: a call on that path is then
// approved as what it is.

// maxLinkHops bounds how many symlinks a file name may go through, as the
// kernel's own limit does.
const maxLinkHops = 40

// errChanged is the error of a directory or file that changed while a tool
// was writing it (a directory renamed or a file replaced by a link).
var errChanged = errors.New("it changed while it was being written (a directory was moved or a file replaced by a link); nothing was written there. Check the path and retry")

// writeGuard holds what a write is checked against: the working directory
// and $TALARIA_HOME, each as given and where it really is. Build it with
// newWriteGuard once per tool call.
type writeGuard struct {
	cwd     string   // the working directory, clean and absolute
	cwdReal string   // where it really is
	homes   []string // $TALARIA_HOME as given and resolved; nil for none
	files   FileIO   // where contents are read and written; nil: the disk
}

// newWriteGuard builds the guard of one call in env.
func newWriteGuard(env *Env) *writeGuard {
	g := &writeGuard{cwd: filepath.Clean(envCwd(env))}
	if abs, err := ResolvePath("", g.cwd); err == nil {
		g.cwd = abs
	}
	if fd, err := unix.Open(g.cwd, dirOpenFlags, 0); err == nil {
		g.cwdReal, _ = fdRealPath(fd, g.cwd)
		unix.Close(fd)
	}
	if g.cwdReal == "" {
		g.cwdReal = resolveExistingPrefix(g.cwd)
	}
	if env != nil {
		g.homes = homeForms(env.Home)
		g.files = env.Files
	}
	return g
}

// check refuses a write of the path lex (as given, clean and absolute)
// that lands on real (symlink-free) in a protected place lex does not
// name, or outside the working directory when lex lies in it.
func (g *writeGuard) check(lex, real string) error {
	if why := protectedIn(g.homes, real); why != "" && protectedIn(g.homes, lex) == "" {
		return fmt.Errorf("refusing to write %s: through a symlink it leads to %s, inside %s, which the path as given does not name; nothing was written there. "+
			"If you mean to change that file, give its real path (protected paths are always put to the user)", g.shown(lex), real, why)
	}
	if (isWithin(g.cwd, lex) || isWithin(g.cwdReal, lex)) && !isWithin(g.cwdReal, real) {
		return fmt.Errorf("refusing to write %s: through a symlink it leads to %s, outside the working directory; nothing was written there. "+
			"If you mean to change that file, give its real path (edits outside the working directory are put to the user each time)", g.shown(lex), real)
	}
	return nil
}

// shown is lex as the model may pass it back.
func (g *writeGuard) shown(lex string) string { return displayPath(g.cwd, lex) }

// fileTarget is one file a tool reads, writes or removes, reached through
// an open handle on its directory (or, when directories are missing, on
// the deepest one that exists) whose real place passed the guard.
type fileTarget struct {
	g       *writeGuard
	lex     string   // the path as given, clean and absolute
	dirfd   int      // the checked directory handle; -1 once closed
	dirReal string   // where dirfd really is
	missing []string // directories still to create below dirfd
	name    string   // the file's name in its directory
}

// real is where the file really is (or will be).
func (t *fileTarget) real() string {
	return filepath.Join(append(append([]string{t.dirReal}, t.missing...), t.name)...)
}

// close releases the directory handle; it may be called more than once.
func (t *fileTarget) close() {
	if t != nil && t.dirfd >= 0 {
		unix.Close(t.dirfd)
		t.dirfd = -1
	}
}

// open resolves the clean absolute path lex to a checked target. With
// follow, a symlink as the last component is followed (to at most
// maxLinkHops links, each resolved from the handle of the directory that
// holds it, as the kernel would), so that writing it writes its target;
// without, the name itself is the target. Missing directories are left to
// write.
func (g *writeGuard) open(lex string, follow bool) (*fileTarget, error) {
	dir, name := filepath.Dir(lex), filepath.Base(lex)
	if dir == lex || name == "." || name == ".." {
		return nil, fmt.Errorf("%s is a directory; give the path of a file inside it", g.shown(lex))
	}
	fd, dirReal, missing, err := openDirOrAncestor(dir)
	if err != nil {
		return nil, fmt.Errorf("cannot open the directory of %s: %w", g.shown(lex), err)
	}
	for hop := 0; ; hop++ {
		t := &fileTarget{g: g, lex: lex, dirfd: fd, dirReal: dirReal, missing: missing, name: name}
		if err := g.check(lex, t.real()); err != nil {
			t.close()
			return nil, err
		}
		var st unix.Stat_t
		if len(missing) > 0 || !follow || unix.Fstatat(fd, name, &st, unix.AT_SYMLINK_NOFOLLOW) != nil || st.Mode&unix.S_IFMT != unix.S_IFLNK {
			return t, nil // a missing name, or not a link: the checked target
		}
		link, err := readlinkAt(fd, name)
		if err != nil {
			t.close()
			return nil, fmt.Errorf("cannot read the symlink %s: %w", g.shown(lex), err)
		}
		if hop >= maxLinkHops {
			t.close()
			return nil, fmt.Errorf("%s goes through more than %d symlinks", g.shown(lex), maxLinkHops)
		}
		linkDir, linkName := ".", link
		if i := strings.LastIndexByte(link, '/'); i >= 0 {
			linkDir, linkName = link[:i+1], link[i+1:]
		}
		if linkName == "" || linkName == "." || linkName == ".." {
			t.close()
			return nil, fmt.Errorf("%s is a symlink to the directory %s; give the path of a file inside it", g.shown(lex), link)
		}
		nfd, err := unix.Openat(fd, linkDir, dirOpenFlags, 0)
		t.close()
		if err != nil {
			return nil, fmt.Errorf("%s is a symlink to %s, whose directory cannot be opened: %w", g.shown(lex), link, err)
		}
		hint := linkDir
		if !filepath.IsAbs(linkDir) {
			hint = filepath.Join(dirReal, linkDir)
		}
		if dirReal, err = fdRealPath(nfd, hint); err != nil {
			unix.Close(nfd)
			return nil, err
		}
		fd, name = nfd, linkName
	}
}

// openDirOrAncestor opens the directory dir (following symlinks) or, when
// it does not exist, its deepest existing ancestor, and returns the handle,
// its real path and the names of the missing directories below it.
func openDirOrAncestor(dir string) (fd int, real string, missing []string, err error) {
	cur := dir
	for {
		fd, err = unix.Open(cur, dirOpenFlags, 0)
		if err == nil {
			break
		}
		if !errors.Is(err, unix.ENOENT) {
			if errors.Is(err, unix.ENOTDIR) {
				return -1, "", nil, fmt.Errorf("%s is not a directory", cur)
			}
			return -1, "", nil, &fs.PathError{Op: "open", Path: cur, Err: err}
		}
		parent := filepath.Dir(cur)
		if parent == cur {
			return -1, "", nil, &fs.PathError{Op: "open", Path: dir, Err: err}
		}
		missing = append([]string{filepath.Base(cur)}, missing...)
		cur = parent
	}
	real, err = fdRealPath(fd, cur)
	if err != nil {
		unix.Close(fd)
		return -1, "", nil, err
	}
	return fd, real, missing, nil
}

// ensureDir creates the missing directories of t one at a time with mkdirat
// on the handle of their parent, moving the handle down and re-checking
// where it really is after each step.
func (t *fileTarget) ensureDir() error {
	for len(t.missing) > 0 {
		c := t.missing[0]
		if err := unix.Mkdirat(t.dirfd, c, 0o755); err != nil && !errors.Is(err, unix.EEXIST) {
			return fmt.Errorf("cannot create directory %s: %w", filepath.Join(t.dirReal, c), err)
		}
		fd, err := unix.Openat(t.dirfd, c, dirOpenFlags, 0)
		if err != nil {
			return fmt.Errorf("cannot open directory %s: %w", filepath.Join(t.dirReal, c), err)
		}
		real, err := fdRealPath(fd, filepath.Join(t.dirReal, c))
		if err != nil {
			unix.Close(fd)
			return err
		}
		unix.Close(t.dirfd)
		t.dirfd, t.dirReal, t.missing = fd, real, t.missing[1:]
		if err := t.g.check(t.lex, t.real()); err != nil {
			return err
		}
	}
	return nil
}

// recheck confirms, just before a change, that the handle still passes the
// guard where it is now (a directory renamed since the check would move
// the write with it).
func (t *fileTarget) recheck() error {
	real, err := fdRealPath(t.dirfd, t.dirReal)
	if err != nil {
		return err
	}
	if real != t.dirReal {
		t.dirReal = real
		if err := t.g.check(t.lex, t.real()); err != nil {
			return err
		}
	}
	return nil
}

// mode returns the type and permissions of the file (not following a
// symlink); exists is false when there is none.
func (t *fileTarget) mode() (mode fs.FileMode, exists bool, err error) {
	if len(t.missing) > 0 {
		return 0, false, nil
	}
	var st unix.Stat_t
	if err := unix.Fstatat(t.dirfd, t.name, &st, unix.AT_SYMLINK_NOFOLLOW); err != nil {
		if errors.Is(err, unix.ENOENT) {
			return 0, false, nil
		}
		return 0, false, &fs.PathError{Op: "stat", Path: t.real(), Err: err}
	}
	return statMode(uint32(st.Mode)), true, nil
}

// statMode converts the st_mode of a stat to an fs.FileMode.
func statMode(m uint32) fs.FileMode {
	mode := fs.FileMode(m & 0o777)
	switch m & unix.S_IFMT {
	case unix.S_IFDIR:
		mode |= fs.ModeDir
	case unix.S_IFLNK:
		mode |= fs.ModeSymlink
	case unix.S_IFIFO:
		mode |= fs.ModeNamedPipe
	case unix.S_IFSOCK:
		mode |= fs.ModeSocket
	case unix.S_IFCHR:
		mode |= fs.ModeDevice | fs.ModeCharDevice
	case unix.S_IFBLK:
		mode |= fs.ModeDevice
	}
	return mode
}

// read returns the content of the file through the directory handle
// (never following a link, never opening a FIFO or a device, whose mode
// alone it returns); exists is false when there is none.
func (t *fileTarget) read() (data []byte, mode fs.FileMode, exists bool, err error) {
	if mode, exists, err = t.mode(); err != nil || !exists || !mode.IsRegular() {
		return nil, mode, exists, err
	}
	if t.g.files != nil {
		data, err := readThrough(t.g.files, t.real())
		return data, mode, true, err
	}
	fd, err := unix.Openat(t.dirfd, t.name, unix.O_RDONLY|unix.O_NOFOLLOW|unix.O_NONBLOCK|unix.O_CLOEXEC, 0)
	switch {
	case errors.Is(err, unix.ENOENT):
		return nil, 0, false, nil
	case errors.Is(err, unix.ELOOP):
		return nil, 0, true, fmt.Errorf("%s: %w", t.g.shown(t.lex), errChanged)
	case err != nil:
		return nil, 0, true, &fs.PathError{Op: "open", Path: t.real(), Err: err}
	}
	f := os.NewFile(uintptr(fd), t.real())
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return nil, 0, true, err
	}
	if !info.Mode().IsRegular() {
		return nil, info.Mode(), true, nil
	}
	// Sized by the stat, as os.ReadFile does: one read for the content,
	// one to see the end.
	data = make([]byte, 0, int(min(max(info.Size(), 0), 1<<30))+1)
	for {
		if len(data) == cap(data) {
			data = append(data, 0)[:len(data)]
		}
		n, err := f.Read(data[len(data):cap(data)])
		data = data[:len(data)+n]
		if err == io.EOF {
			return data, info.Mode(), true, nil
		}
		if err != nil {
			return nil, info.Mode(), true, err
		}
	}
}

// write replaces the file's content atomically: a temporary file created
// in the same directory handle (O_EXCL|O_NOFOLLOW), written, given the
// mode of the file it replaces (perm for a new one), synced, and renamed
// over the name with renameat on that handle. Missing directories are
// created first.
func (t *fileTarget) write(data []byte, perm fs.FileMode) error {
	if err := t.ensureDir(); err != nil {
		return err
	}
	mode := perm
	cur, exists, err := t.mode()
	if err != nil {
		return err
	}
	if exists {
		switch {
		case cur&fs.ModeSymlink != 0:
			return fmt.Errorf("%s: %w", t.g.shown(t.lex), errChanged)
		case cur.IsDir():
			return fmt.Errorf("%s is a directory", t.g.shown(t.lex))
		case !cur.IsRegular():
			return fmt.Errorf("%s is not a regular file (it is a %s); refusing to replace it", t.g.shown(t.lex), fileKind(cur))
		}
		mode = cur.Perm()
	}
	if t.g.files != nil && len(data) > 0 {
		// The editor writes its buffer (and the file); an empty content
		// goes to the disk, as ACP's write_text_file needs some.
		return writeThrough(t.g.files, t.real(), data)
	}
	tmp, f, err := t.createTemp()
	if err != nil {
		return err
	}
	fail := func(format string, err error) error {
		f.Close()
		unix.Unlinkat(t.dirfd, tmp, 0)
		return fmt.Errorf(format, t.real(), err)
	}
	if _, err := f.Write(data); err != nil {
		return fail("cannot write %s: %v", err)
	}
	if err := f.Chmod(mode); err != nil {
		return fail("cannot set the mode of %s: %v", err)
	}
	if err := f.Sync(); err != nil {
		return fail("cannot write %s: %v", err)
	}
	if err := f.Close(); err != nil {
		unix.Unlinkat(t.dirfd, tmp, 0)
		return fmt.Errorf("cannot write %s: %v", t.real(), err)
	}
	if err := t.recheck(); err != nil {
		unix.Unlinkat(t.dirfd, tmp, 0)
		return err
	}
	if err := unix.Renameat(t.dirfd, tmp, t.dirfd, t.name); err != nil {
		unix.Unlinkat(t.dirfd, tmp, 0)
		return fmt.Errorf("cannot replace %s: %v", t.real(), err)
	}
	return nil
}

// createTemp creates a new temporary file beside the target in its
// directory handle.
func (t *fileTarget) createTemp() (string, *os.File, error) {
	for range 100 {
		tmp := "." + t.name + ".talaria-" + strconv.FormatUint(rand.Uint64(), 36) + ".tmp"
		fd, err := unix.Openat(t.dirfd, tmp, unix.O_WRONLY|unix.O_CREAT|unix.O_EXCL|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0o600)
		if errors.Is(err, unix.EEXIST) {
			continue
		}
		if err != nil {
			return "", nil, fmt.Errorf("cannot write in %s: %v", t.dirReal, err)
		}
		return tmp, os.NewFile(uintptr(fd), filepath.Join(t.dirReal, tmp)), nil
	}
	return "", nil, fmt.Errorf("cannot write in %s: no free temporary name", t.dirReal)
}

// remove deletes the name (a file or a link, never a directory) through
// the directory handle.
func (t *fileTarget) remove() error {
	if len(t.missing) > 0 {
		return &fs.PathError{Op: "remove", Path: t.real(), Err: fs.ErrNotExist}
	}
	if err := t.recheck(); err != nil {
		return err
	}
	if err := unix.Unlinkat(t.dirfd, t.name, 0); err != nil {
		return &fs.PathError{Op: "remove", Path: t.real(), Err: err}
	}
	return nil
}

// readlinkAt reads the symlink name in the directory handle dirfd.
func readlinkAt(dirfd int, name string) (string, error) {
	for size := 256; size <= 1<<16; size *= 4 {
		buf := make([]byte, size)
		n, err := unix.Readlinkat(dirfd, name, buf)
		if err != nil {
			return "", err
		}
		if n < size {
			return string(buf[:n]), nil
		}
	}
	return "", unix.ENAMETOOLONG
}

// readGuarded reads the file at the clean absolute path p (following a
// final symlink) through a checked handle, as a write of it would, for the
// approval's preview: a path the write would refuse is an error, a missing
// file is not (existed is false), and a FIFO or device is never opened.
func readGuarded(env *Env, p string) (data []byte, existed bool, err error) {
	t, err := newWriteGuard(env).open(p, true)
	if err != nil {
		return nil, false, err
	}
	defer t.close()
	data, mode, existed, err := t.read()
	if err == nil && existed && !mode.IsRegular() {
		err = fmt.Errorf("%s is not a regular file", t.g.shown(p))
	}
	return data, existed, err
}
