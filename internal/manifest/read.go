package manifest

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"

	yamlv3 "go.yaml.in/yaml/v3"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/precedent-dev/precedent/internal/parallel"
)

// Object is one decoded document (or one item of a List) and where it came from.
type Object struct {
	*unstructured.Unstructured
	File  string
	Index int // 0-based document index within File
	Line  int // 1-based line of File where the object starts
}

// ReadError says which file and document could not be read or parsed.
type ReadError struct {
	File  string
	Index int // -1 when the whole file could not be read
	Line  int // 1-based line where the document starts, 0 when unknown
	Err   error
}

func (e *ReadError) Error() string {
	switch {
	case e.Index < 0:
		return fmt.Sprintf("%s: %v", e.File, e.Err)
	case e.Line > 0:
		return fmt.Sprintf("%s:%d: document %d: %v", e.File, e.Line, e.Index, e.Err)
	}
	return fmt.Sprintf("%s: document %d: %v", e.File, e.Index, e.Err)
}

func (e *ReadError) Unwrap() error { return e.Err }

// Read loads every object of the given files and folders (folders recursively, *.yaml, *.yml and
// *.json files in lexical order). Empty documents and List kinds are handled; objects with neither
// apiVersion nor kind are errors, and so is a path that does not exist or holds no object (an empty
// file, a folder without manifests): a mistyped path must not pass as an empty input.
func Read(paths ...string) ([]Object, error) {
	var out []Object
	for _, p := range paths {
		files, err := filesOf(p)
		if err != nil {
			return nil, err
		}
		n := len(out)
		for _, f := range files {
			objs, err := readFile(f)
			if err != nil {
				return nil, err
			}
			out = append(out, objs...)
		}
		if len(out) == n {
			what := "the file holds no object"
			if len(files) != 1 || files[0] != p {
				what = "the folder holds no object in *.yaml, *.yml or *.json files"
			}
			return nil, &ReadError{File: p, Index: -1, Err: errors.New(what)}
		}
	}
	return out, nil
}

// filesOf lists the manifest files of a path: the file itself, or a folder's *.yaml, *.yml and
// *.json files, recursively, in lexical order.
func filesOf(p string) ([]string, error) {
	st, err := os.Stat(p)
	if err != nil {
		return nil, &ReadError{File: p, Index: -1, Err: errors.Unwrap(err)}
	}
	if !st.IsDir() {
		return []string{p}, nil
	}
	var found []string
	err = filepath.WalkDir(p, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			return nil
		}
		switch strings.ToLower(filepath.Ext(path)) {
		case ".yaml", ".yml", ".json":
			found = append(found, path)
		}
		return nil
	})
	if err != nil {
		return nil, &ReadError{File: p, Index: -1, Err: err}
	}
	sort.Strings(found)
	return found, nil
}

func readFile(name string) ([]Object, error) {
	data, err := os.ReadFile(name)
	if err != nil {
		return nil, &ReadError{File: name, Index: -1, Err: errors.Unwrap(err)}
	}
	return Decode(name, data)
}

// ErrTopLevelList is the reason given for a document that is a bare YAML list.
var ErrTopLevelList = errors.New("a YAML list at the top level is not a Kubernetes object: write each object as its own document (separated by ---), or wrap them in kind: List with the objects under items")

// Decode splits data into YAML (or JSON) documents and decodes each into an unstructured object,
// recording the line where each object starts. The first document that is not an object is the
// error.
func Decode(name string, data []byte) ([]Object, error) {
	objs, bad := decode(name, data)
	if len(bad) > 0 {
		return nil, bad[0].err
	}
	return objs, nil
}

// notObject is the reason a file found in a folder is skipped when no document of it is an object.
const notObject = "no apiVersion and kind: not a Kubernetes object"

// decode is Decode going on past the documents that are not objects, returning them apart. The
// documents are decoded on every CPU at once (each independently of the others), their results
// kept in document order.
func decode(name string, data []byte) ([]Object, []bad) {
	docs := documents(data)
	type result struct {
		objs []Object
		bad  *bad
	}
	results := make([]result, len(docs))
	parallel.Each(len(docs), func(i int) { results[i].objs, results[i].bad = decodeDocument(name, i, docs[i]) })
	var out []Object
	var bads []bad
	for _, r := range results {
		out = append(out, r.objs...)
		if r.bad != nil {
			bads = append(bads, *r.bad)
		}
	}
	return out, bads
}

// decodeDocument decodes document i of file name: its objects (none for a blank document), or
// why it is not one.
func decodeDocument(name string, i int, d document) ([]Object, *bad) {
	if significant(d.data) == 0 { // only blank lines and comments
		return nil, nil
	}
	lines := lineIndex(d.data)
	at := func(rel int) int { return d.line + rel - 1 }
	if lines.list {
		return nil, &bad{err: &ReadError{File: name, Index: i, Line: at(lines.root), Err: ErrTopLevelList}, skip: "a YAML list at the top level: not a Kubernetes object"}
	}
	m, err := unmarshal(d.data)
	if err != nil {
		line, msg := syntaxLine(err)
		if line == 0 {
			if !lines.parsed { // a document the YAML parser could not read at all
				return nil, &bad{err: &ReadError{File: name, Index: i, Line: at(firstLine(d.data)), Err: err}, syntax: true}
			}
			// a document that parses but is no mapping (a scalar): not an object
			return nil, &bad{err: &ReadError{File: name, Index: i, Line: at(lines.root), Err: err}, skip: notObject}
		}
		return nil, &bad{err: &ReadError{File: name, Index: i, Line: at(line), Err: msg}, syntax: true}
	}
	if m == nil {
		return nil, nil
	}
	u := &unstructured.Unstructured{Object: m}
	if u.GetAPIVersion() == "" || u.GetKind() == "" {
		return nil, &bad{err: &ReadError{File: name, Index: i, Line: at(lines.root), Err: errors.New("apiVersion and kind are required")}, skip: notObject}
	}
	if !u.IsList() {
		return []Object{{Unstructured: u, File: name, Index: i, Line: at(lines.root)}}, nil
	}
	list, err := u.ToList()
	if err != nil {
		return nil, &bad{err: &ReadError{File: name, Index: i, Line: at(lines.root), Err: err}, syntax: true}
	}
	out := make([]Object, 0, len(list.Items))
	for j := range list.Items {
		line := lines.root
		if j < len(lines.items) {
			line = lines.items[j]
		}
		out = append(out, Object{Unstructured: &list.Items[j], File: name, Index: i, Line: at(line)})
	}
	return out, nil
}

// yamlLine finds the line a YAML parser names in its error ("yaml: line 3: did not find …").
var yamlLine = regexp.MustCompile(`yaml: line ([0-9]+): (.*)$`)

// syntaxLine is the line (1-based, within the document) a YAML or JSON syntax error names, and the
// error without its parser's prefixes; 0 when the error names no line.
func syntaxLine(err error) (int, error) {
	m := yamlLine.FindStringSubmatch(err.Error())
	if m == nil {
		return 0, err
	}
	n, convErr := strconv.Atoi(m[1])
	if convErr != nil {
		return 0, err
	}
	return n, fmt.Errorf("syntax error: %s", m[2])
}

// document is one YAML document of a file and the line (1-based) its text starts on.
type document struct {
	data []byte
	line int
}

// documents splits data at the lines that separate YAML documents: "---", alone or followed by a
// comment, as k8s.io/apimachinery's YAML reader splits them.
func documents(data []byte) []document {
	var out []document
	cur := document{line: 1}
	start := 0 // where cur's text starts in data: a document is a slice of data, not a copy
	for n, at := 1, 0; at < len(data); n++ {
		end := len(data)
		if k := bytes.IndexByte(data[at:], '\n'); k >= 0 {
			end = at + k + 1
		}
		if isSeparator(data[at:end]) {
			cur.data = data[start:at:at]
			out = append(out, cur)
			cur, start = document{line: n + 1}, end
		}
		at = end
	}
	cur.data = data[start:len(data):len(data)]
	return append(out, cur)
}

func isSeparator(line []byte) bool {
	if !bytes.HasPrefix(line, []byte("---")) {
		return false
	}
	t := bytes.TrimSpace(line[3:])
	return len(t) == 0 || t[0] == '#'
}

// positions are the lines (1-based, within a document) of its root node and, for a List, of each
// item; list says the root is a sequence.
type positions struct {
	root  int
	items []int
	list  bool
	// parsed says the YAML parser read the document.
	parsed bool
}

// lineIndex finds where a document's object (and a List's items) start. A document the YAML
// parser cannot read is placed at its first significant line; decoding then says what is wrong.
func lineIndex(doc []byte) positions {
	p := positions{root: firstLine(doc)}
	if !mayHoldItems(doc, p.root) {
		return p // a mapping's root node starts on its first significant line
	}
	var n yamlv3.Node
	if err := yamlv3.Unmarshal(doc, &n); err != nil || n.Kind != yamlv3.DocumentNode || len(n.Content) == 0 {
		return p
	}
	root := n.Content[0]
	p.root, p.parsed = root.Line, true
	switch root.Kind {
	case yamlv3.SequenceNode:
		p.list = true
	case yamlv3.MappingNode:
		for k := 0; k+1 < len(root.Content); k += 2 {
			if root.Content[k].Value == "items" && root.Content[k+1].Kind == yamlv3.SequenceNode {
				for _, item := range root.Content[k+1].Content {
					p.items = append(p.items, item.Line)
				}
			}
		}
	}
	return p
}

// mayHoldItems reports whether doc, whose first significant line is first, may be a sequence, a
// List with items, or start with what moves its root node (a directive, tag or anchor): only then
// does lineIndex parse it (the decoder parses every document anyway; a second full parse of each
// doubled the cost of reading a large input).
func mayHoldItems(doc []byte, first int) bool {
	lines := bytes.SplitN(doc, []byte("\n"), first+1)
	if first > len(lines) {
		return true
	}
	switch t := bytes.TrimSpace(lines[first-1]); {
	case len(t) == 0:
		return true
	case strings.IndexByte("-[%!&?*|>", t[0]) >= 0:
		return true
	case t[0] == '{':
		return bytes.Contains(doc, []byte(`"items"`))
	}
	return bytes.HasPrefix(doc, []byte("items:")) || bytes.Contains(doc, []byte("\nitems:"))
}

// firstLine is the 1-based line of the first line of doc that is neither blank nor a comment.
func firstLine(doc []byte) int {
	if n := significant(doc); n > 0 {
		return n
	}
	return 1
}

// significant is the 1-based line of the first line of doc that is neither blank nor a comment,
// 0 when there is none.
func significant(doc []byte) int {
	for n := 1; len(doc) > 0; n++ {
		var line []byte
		line, doc = cutLine(doc)
		if t := bytes.TrimSpace(line); len(t) > 0 && t[0] != '#' {
			return n
		}
	}
	return 0
}

// cutLine splits doc after its first line, the line without its newline.
func cutLine(doc []byte) (line, rest []byte) {
	if k := bytes.IndexByte(doc, '\n'); k >= 0 {
		return doc[:k], doc[k+1:]
	}
	return doc, nil
}
