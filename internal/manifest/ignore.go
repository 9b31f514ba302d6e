package manifest

import (
	"bufio"
	"bytes"
	"path"
	"strings"
)

// IgnoreFile is the name of the file that leaves paths out of a folder's input, in gitignore syntax.
const IgnoreFile = ".precedentignore"

// pattern is one line of a gitignore-syntax file: a glob over slash-separated paths relative to the
// folder the file is in (base).
type pattern struct {
	base    string   // the folder the pattern is relative to ("" for the root of the walk)
	segs    []string // the glob, split at "/"
	negate  bool     // "!pattern": re-includes what an earlier pattern left out
	dirOnly bool     // "pattern/": matches folders only
	// anchored: the pattern holds a "/" before its end, so it matches from base; otherwise it
	// matches the last element of a path at any depth.
	anchored bool
}

// ignore is a list of patterns; the last pattern that matches a path decides, as in git.
type ignore []pattern

// parseIgnore reads gitignore syntax: blank lines and "#" comments are skipped, "\#" and "\!"
// escape a leading "#" or "!", trailing spaces are dropped unless escaped with "\", "!" negates,
// a trailing "/" matches folders only, a "/" elsewhere anchors the pattern at base, and "**"
// as a whole segment matches any number of folders.
func parseIgnore(base string, data []byte) ignore {
	var out ignore
	s := bufio.NewScanner(bytes.NewReader(data))
	for s.Scan() {
		if p, ok := parsePattern(base, s.Text()); ok {
			out = append(out, p)
		}
	}
	return out
}

func parsePattern(base, line string) (pattern, bool) {
	line = strings.TrimSuffix(line, "\r")
	line = trimTrailingSpace(line)
	if line == "" || line[0] == '#' {
		return pattern{}, false
	}
	p := pattern{base: base}
	switch {
	case line[0] == '!':
		p.negate, line = true, line[1:]
	case strings.HasPrefix(line, `\#`), strings.HasPrefix(line, `\!`):
		line = line[1:]
	}
	if strings.HasSuffix(line, "/") {
		p.dirOnly, line = true, strings.TrimRight(line, "/")
	}
	if line == "" {
		return pattern{}, false
	}
	p.anchored = strings.Contains(line, "/")
	line = strings.TrimPrefix(line, "/")
	p.segs = strings.Split(line, "/")
	return p, true
}

// trimTrailingSpace drops trailing spaces unless the last is escaped with a backslash.
func trimTrailingSpace(s string) string {
	for strings.HasSuffix(s, " ") && !strings.HasSuffix(s, `\ `) {
		s = s[:len(s)-1]
	}
	if strings.HasSuffix(s, `\ `) {
		s = s[:len(s)-2] + " "
	}
	return s
}

// excluded reports whether rel (slash-separated, relative to the root of the walk) is left out.
func (ig ignore) excluded(rel string, dir bool) bool {
	out := false
	for _, p := range ig {
		if p.matches(rel, dir) {
			out = !p.negate
		}
	}
	return out
}

func (p pattern) matches(rel string, dir bool) bool {
	if p.dirOnly && !dir {
		return false
	}
	if p.base != "" {
		if !strings.HasPrefix(rel, p.base+"/") {
			return false
		}
		rel = strings.TrimPrefix(rel, p.base+"/")
	}
	parts := strings.Split(rel, "/")
	if !p.anchored {
		return len(p.segs) == 1 && globMatch(p.segs[0], parts[len(parts)-1])
	}
	return matchSegments(p.segs, parts)
}

// matchSegments matches a split glob against a split path; "**" matches zero or more segments.
func matchSegments(segs, parts []string) bool {
	for len(segs) > 0 {
		if segs[0] == "**" {
			rest := segs[1:]
			if len(rest) == 0 { // "a/**" matches everything inside a, not a itself
				return len(parts) > 0
			}
			for i := 0; i <= len(parts); i++ {
				if matchSegments(rest, parts[i:]) {
					return true
				}
			}
			return false
		}
		if len(parts) == 0 || !globMatch(segs[0], parts[0]) {
			return false
		}
		segs, parts = segs[1:], parts[1:]
	}
	return len(parts) == 0
}

// globMatch matches one path element: "*", "?", "[...]" and "\" escapes as path.Match reads them;
// a malformed glob matches nothing.
func globMatch(glob, name string) bool {
	ok, err := path.Match(glob, name)
	return err == nil && ok
}
