package manifest

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"sigs.k8s.io/yaml"
)

// Object is one decoded document and where it came from.
type Object struct {
	*unstructured.Unstructured
	File  string
	Index int // 0-based document index within File
}

// ReadError says which file and document could not be read or parsed.
type ReadError struct {
	File  string
	Index int // -1 when the whole file could not be read
	Err   error
}

func (e *ReadError) Error() string {
	if e.Index < 0 {
		return fmt.Sprintf("%s: %v", e.File, e.Err)
	}
	return fmt.Sprintf("%s: document %d: %v", e.File, e.Index, e.Err)
}

func (e *ReadError) Unwrap() error { return e.Err }

// Read loads every object of the given files and folders (folders recursively, *.yaml, *.yml and
// *.json files in lexical order). Empty documents and List kinds are handled; objects with neither
// apiVersion nor kind are errors.
func Read(paths ...string) ([]Object, error) {
	var files []string
	for _, p := range paths {
		st, err := os.Stat(p)
		if err != nil {
			return nil, &ReadError{File: p, Index: -1, Err: errors.Unwrap(err)}
		}
		if !st.IsDir() {
			files = append(files, p)
			continue
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
		files = append(files, found...)
	}
	var out []Object
	for _, f := range files {
		objs, err := readFile(f)
		if err != nil {
			return nil, err
		}
		out = append(out, objs...)
	}
	return out, nil
}

func readFile(name string) ([]Object, error) {
	data, err := os.ReadFile(name)
	if err != nil {
		return nil, &ReadError{File: name, Index: -1, Err: errors.Unwrap(err)}
	}
	return Decode(name, data)
}

// Decode splits data into YAML (or JSON) documents and decodes each into an unstructured object.
func Decode(name string, data []byte) ([]Object, error) {
	reader := utilyaml.NewYAMLReader(bufio.NewReader(bytes.NewReader(data)))
	var out []Object
	for i := 0; ; i++ {
		doc, err := reader.Read()
		if errors.Is(err, io.EOF) {
			return out, nil
		}
		if err != nil {
			return nil, &ReadError{File: name, Index: i, Err: err}
		}
		if len(bytes.TrimSpace(stripComments(doc))) == 0 {
			continue
		}
		var m map[string]interface{}
		if err := yaml.Unmarshal(doc, &m); err != nil {
			return nil, &ReadError{File: name, Index: i, Err: err}
		}
		if m == nil {
			continue
		}
		u := &unstructured.Unstructured{Object: m}
		if u.GetAPIVersion() == "" || u.GetKind() == "" {
			return nil, &ReadError{File: name, Index: i, Err: errors.New("apiVersion and kind are required")}
		}
		if u.IsList() {
			list, err := u.ToList()
			if err != nil {
				return nil, &ReadError{File: name, Index: i, Err: err}
			}
			for j := range list.Items {
				out = append(out, Object{Unstructured: &list.Items[j], File: name, Index: i})
			}
			continue
		}
		out = append(out, Object{Unstructured: u, File: name, Index: i})
	}
}

func stripComments(doc []byte) []byte {
	var b bytes.Buffer
	for _, line := range bytes.Split(doc, []byte("\n")) {
		if t := bytes.TrimSpace(line); len(t) > 0 && t[0] != '#' {
			b.Write(line)
			b.WriteByte('\n')
		}
	}
	return b.Bytes()
}
