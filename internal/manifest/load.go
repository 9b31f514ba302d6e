package manifest

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// StdinName is how the objects read from standard input ("-f -") are located, as kubectl names it.
const StdinName = "STDIN"

// Options say how Load reads the paths of -f.
type Options struct {
	// Stdin is what the path "-" reads.
	Stdin io.Reader
	// Exclude are gitignore-syntax patterns leaving paths out of the folders given (relative to each
	// folder); a .precedentignore in a folder adds its own.
	Exclude []string
	// NoKustomize reads a folder holding a kustomization as plain files.
	NoKustomize bool
}

// Skip is a file found in a folder and left out of the input, and why.
type Skip struct {
	File   string
	Reason string
}

// Input is what Load read: the objects, the files it skipped, and every document or path it could
// not read (each named by file and line), so that a run reports all of them at once.
type Input struct {
	Objects  []Object
	Skipped  []Skip
	Problems []*ReadError
}

// ErrStdinTwice is the error for "-" given more than once: standard input can be read only once.
var ErrStdinTwice = errors.New(`-f -: standard input can be read only once per command`)

// Load reads what repositories hold: files, folders (recursively, *.yaml, *.yml and *.json in
// lexical order, hidden files and folders and the excluded paths left out), standard input for
// "-", and folders holding a kustomization.yaml, which are built as `kubectl kustomize` builds
// them (unless NoKustomize). In a folder, a file holding no Kubernetes object (a Helm template, a
// values file, a CI workflow) is skipped with its reason; a path given by name must hold objects.
// A path that does not exist or holds no object, and a document that cannot be parsed, is a
// problem of the input; the only error is "-" given twice.
func Load(paths []string, opt Options) (*Input, error) {
	n := 0
	for _, p := range paths {
		if p == "-" {
			n++
		}
	}
	if n > 1 {
		return nil, ErrStdinTwice
	}
	in := &Input{}
	for _, p := range paths {
		objs, probs := len(in.Objects), len(in.Problems)
		in.path(p, opt)
		if len(in.Objects) == objs && len(in.Problems) == probs {
			what := "the file holds no object"
			if st, err := os.Stat(p); p != "-" && err == nil && st.IsDir() {
				what = "the folder holds no Kubernetes object in *.yaml, *.yml or *.json files"
			}
			in.Problems = append(in.Problems, &ReadError{File: nameOf(p), Index: -1, Err: errors.New(what)})
		}
	}
	return in, nil
}

func nameOf(p string) string {
	if p == "-" {
		return StdinName
	}
	return p
}

// path reads one path given on the command line.
func (in *Input) path(p string, opt Options) {
	if p == "-" {
		data, err := io.ReadAll(opt.Stdin)
		if err != nil {
			in.Problems = append(in.Problems, &ReadError{File: StdinName, Index: -1, Err: err})
			return
		}
		in.strict(StdinName, data)
		return
	}
	st, err := os.Stat(p)
	if err != nil {
		in.Problems = append(in.Problems, &ReadError{File: p, Index: -1, Err: errors.Unwrap(err)})
		return
	}
	switch {
	case !st.IsDir() && isKustomization(filepath.Base(p)) && !opt.NoKustomize:
		in.kustomize(filepath.Dir(p))
	case !st.IsDir():
		data, err := os.ReadFile(p)
		if err != nil {
			in.Problems = append(in.Problems, &ReadError{File: p, Index: -1, Err: errors.Unwrap(err)})
			return
		}
		in.strict(p, data)
	case !opt.NoKustomize && kustomizationIn(p) != "":
		in.kustomize(p)
	default:
		in.folder(p, opt)
	}
}

// strict decodes a file given by name (or standard input): every document must be an object.
func (in *Input) strict(name string, data []byte) {
	objs, bad := decode(name, data)
	in.Objects = append(in.Objects, objs...)
	for _, b := range bad {
		in.Problems = append(in.Problems, b.err)
	}
}

// folder walks a folder: the files it holds and the kustomizations below it, in lexical order of
// their paths.
func (in *Input) folder(root string, opt Options) {
	var ig ignore
	for _, e := range opt.Exclude {
		if p, ok := parsePattern("", e); ok {
			ig = append(ig, p)
		}
	}
	var units []string // files, and folders to build with kustomize
	var walk func(dir, rel string)
	walk = func(dir, rel string) {
		if data, err := os.ReadFile(filepath.Join(dir, IgnoreFile)); err == nil {
			ig = append(ig, parseIgnore(rel, data)...)
		}
		entries, err := os.ReadDir(dir)
		if err != nil {
			in.Problems = append(in.Problems, &ReadError{File: dir, Index: -1, Err: errors.Unwrap(err)})
			return
		}
		for _, e := range entries {
			name := e.Name()
			if strings.HasPrefix(name, ".") { // .git, .github, .pre-commit-config.yaml: not manifests
				continue
			}
			childRel := name
			if rel != "" {
				childRel = rel + "/" + name
			}
			child := filepath.Join(dir, name)
			isDir := e.IsDir()
			if e.Type()&os.ModeSymlink != 0 {
				if st, err := os.Stat(child); err == nil {
					isDir = st.IsDir()
				}
			}
			if ig.excluded(childRel, isDir) {
				continue
			}
			switch {
			case isDir && !opt.NoKustomize && kustomizationIn(child) != "":
				units = append(units, child+string(filepath.Separator))
			case isDir:
				walk(child, childRel)
			default:
				switch strings.ToLower(filepath.Ext(name)) {
				case ".yaml", ".yml", ".json":
					units = append(units, child)
				}
			}
		}
	}
	walk(root, "")
	sort.Strings(units)
	for _, u := range units {
		if strings.HasSuffix(u, string(filepath.Separator)) {
			in.kustomize(strings.TrimSuffix(u, string(filepath.Separator)))
			continue
		}
		in.found(u)
	}
}

// found reads a file found in a folder: a file holding no Kubernetes object is skipped with its
// reason; one holding objects must hold nothing else.
func (in *Input) found(name string) {
	data, err := os.ReadFile(name)
	if err != nil {
		in.Problems = append(in.Problems, &ReadError{File: name, Index: -1, Err: errors.Unwrap(err)})
		return
	}
	if bytes.Contains(data, []byte("{{")) {
		in.Skipped = append(in.Skipped, Skip{name, "a template ({{ … }}), not a manifest: render it first (helm template) and give the output"})
		return
	}
	objs, bad := decode(name, data)
	if len(objs) == 0 && len(bad) > 0 && !bad[0].syntax {
		in.Skipped = append(in.Skipped, Skip{name, bad[0].skip})
		return
	}
	if len(objs) > 0 && isKustomizeConfig(objs[0]) && len(objs) == 1 {
		in.Skipped = append(in.Skipped, Skip{name, "a " + objs[0].GetKind() + " of kustomize, read as plain files (--no-kustomize)"})
		return
	}
	in.Objects = append(in.Objects, objs...)
	for _, b := range bad {
		in.Problems = append(in.Problems, b.err)
	}
}

// isKustomizeConfig reports whether o is a kustomization or a kustomize component, not an object.
func isKustomizeConfig(o Object) bool {
	return strings.HasPrefix(o.GetAPIVersion(), "kustomize.config.k8s.io/")
}

// bad is a document that is not an object: a syntax error, or a document of another kind (skip
// says which) that makes a file found in a folder skipped.
type bad struct {
	err    *ReadError
	syntax bool
	skip   string
}

// isKustomization reports whether a file name is one kustomize builds a folder from.
func isKustomization(name string) bool {
	switch name {
	case "kustomization.yaml", "kustomization.yml", "Kustomization":
		return true
	}
	return false
}

// kustomizationIn is the kustomization file of dir, "" when it has none.
func kustomizationIn(dir string) string {
	for _, n := range []string{"kustomization.yaml", "kustomization.yml", "Kustomization"} {
		if st, err := os.Stat(filepath.Join(dir, n)); err == nil && !st.IsDir() {
			return filepath.Join(dir, n)
		}
	}
	return ""
}
