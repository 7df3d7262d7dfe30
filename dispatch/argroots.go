package dispatch

import (
	"os"
	"path/filepath"
	"runtime"
)

// argumentScope is where argumentsFile may read besides this process's
// result files: roots, or none with the reason the default was refused.
type argumentScope struct {
	roots []string
	// broadDir is the working directory when it was refused as the
	// default root (a filesystem root, the home directory or above it).
	broadDir string
}

// argumentScope returns the roots argumentsFile may read under. The
// default root is the working directory, unless that directory is a
// filesystem root or the user's home (or above it): Claude Desktop starts
// its servers in /, and there the default would hand an agent
// /etc/shadow, ~/.ssh and dispatch's own token store. Then only result
// files are read until --args-dir names roots.
func (s *Service) argumentScope() argumentScope {
	roots := s.opts.ArgumentRoots
	if len(roots) == 0 {
		wd, err := os.Getwd()
		if err != nil {
			return argumentScope{}
		}
		if tooBroadForDefault(wd) {
			return argumentScope{broadDir: wd}
		}
		roots = []string{wd}
	}
	return argumentScope{roots: resolvedDirs(roots)}
}

// tooBroadForDefault reports whether dir, as the default argument root,
// would expose the host's files: a filesystem root, or the user's home
// directory or a directory holding it.
func tooBroadForDefault(dir string) bool {
	dir = resolvedDir(dir)
	// Compared by identity too: a bind mount of / (containers mount the
	// host at /host) is the root under another name.
	if filepath.Dir(dir) == dir || sameDir(dir, string(filepath.Separator)) {
		return true
	}
	for _, homes := range homesDirs() {
		// Every user's home, whoever runs dispatch (root's home is /root).
		if sameDir(dir, homes) {
			return true
		}
	}
	home, err := os.UserHomeDir()
	if err != nil || home == "" {
		return false
	}
	home = resolvedDir(home)
	if home == dir || sameDir(dir, home) {
		return true
	}
	_, within := relWithin(home, dir)
	return within
}

// homesDirs are the directories that hold users' homes.
func homesDirs() []string {
	switch runtime.GOOS {
	case "windows":
		return nil
	case "darwin":
		return []string{"/Users"}
	}
	return []string{"/home"}
}

// sameDir reports whether a and b are one directory (device and inode),
// however each is reached.
func sameDir(a, b string) bool {
	ai, err := os.Stat(a)
	if err != nil {
		return false
	}
	bi, err := os.Stat(b)
	return err == nil && os.SameFile(ai, bi)
}

// resolvedDirs returns each directory as spelled and as its symlinks
// resolve, so that a path under either spelling is found (on macOS /tmp
// is /private/tmp). A directory that does not resolve is left out.
func resolvedDirs(dirs []string) []string {
	out := make([]string, 0, 2*len(dirs))
	for _, d := range dirs {
		abs, err := filepath.Abs(d)
		if err != nil {
			continue
		}
		real, err := filepath.EvalSymlinks(abs)
		if err != nil {
			continue
		}
		out = append(out, real)
		if abs != real {
			out = append(out, abs)
		}
	}
	return out
}

// resolvedDir is dir made absolute with its symlinks resolved, or as
// given when that fails.
func resolvedDir(dir string) string {
	if abs, err := filepath.Abs(dir); err == nil {
		dir = abs
	}
	if real, err := filepath.EvalSymlinks(dir); err == nil {
		dir = real
	}
	return dir
}

// systemDirs are never argument roots, whatever --args-dir says: their
// files are the running system's and processes' (an environment, memory,
// kernel messages) or devices whose reads may never end.
func systemDirs() []string {
	if runtime.GOOS == "windows" {
		return nil
	}
	return []string{"/proc", "/sys", "/dev"}
}

// forbiddenDir returns the directory that path lies in, if argumentsFile
// must never read it: dispatch's own state (OAuth tokens), catalog cache
// and session directories (Options.PrivateDirs), and the system's.
func (s *Service) forbiddenDir(path string) (string, bool) {
	dirs := append(append([]string(nil), s.opts.PrivateDirs...), systemDirs()...)
	for _, d := range resolvedDirsOrSpelled(dirs) {
		if path == d {
			return d, true
		}
		if _, within := relWithin(path, d); within {
			return d, true
		}
	}
	return "", false
}

// resolvedDirsOrSpelled is resolvedDirs keeping the spelling of a
// directory that does not exist yet (a token directory made later).
func resolvedDirsOrSpelled(dirs []string) []string {
	out := make([]string, 0, 2*len(dirs))
	for _, d := range dirs {
		abs, err := filepath.Abs(d)
		if err != nil {
			continue
		}
		out = append(out, abs)
		if real, err := filepath.EvalSymlinks(abs); err == nil && real != abs {
			out = append(out, real)
		}
	}
	return out
}

// checkOpenedArgument refuses an opened argumentsFile that turns out to be
// in a forbidden directory (a symlink swapped after the path checks) or on
// the proc or sys filesystem wherever it is mounted.
func (s *Service) checkOpenedArgument(f *os.File, path string) error {
	if private := s.privateFileOf(f); private != "" {
		return usagef("Name a file of your own: dispatch's config files and token file are never read as arguments (the credentials they hold would reach a tool in clear), whatever path or link reaches them",
			"argumentsFile %s is dispatch's own %s, which argumentsFile never reads", path, private)
	}
	if where := openedFilePath(f); where != "" {
		if dir, bad := s.forbiddenDir(where); bad {
			return privateDirErr(path, dir)
		}
	}
	if kernelFS(f) {
		return privateDirErr(path, "a kernel filesystem (proc, sys)")
	}
	return nil
}

func privateDirErr(path, dir string) error {
	return usagef("Name a file of your own: dispatch's token, cache and session directories and /proc, /sys and /dev are never read as arguments, whatever --args-dir says",
		"argumentsFile %s is in %s, which argumentsFile never reads", path, dir)
}

// privateFileOf names the private file (Options.PrivateFiles) that f is,
// by device and inode, so that a hard link, a bind mount or another
// spelling of a config or token file is refused as the file itself;
// "" when it is none of them.
func (s *Service) privateFileOf(f *os.File) string {
	if len(s.opts.PrivateFiles) == 0 {
		return ""
	}
	opened, err := f.Stat()
	if err != nil {
		return ""
	}
	for _, p := range s.opts.PrivateFiles {
		if info, err := os.Stat(p); err == nil && os.SameFile(info, opened) {
			return filepath.Base(p)
		}
	}
	return ""
}
