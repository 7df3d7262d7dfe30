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
	if filepath.Dir(dir) == dir {
		return true
	}
	home, err := os.UserHomeDir()
	if err != nil || home == "" {
		return false
	}
	home = resolvedDir(home)
	if home == dir {
		return true
	}
	_, within := relWithin(home, dir)
	return within
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
