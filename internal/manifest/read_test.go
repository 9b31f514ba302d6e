package manifest

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestDecode(t *testing.T) {
	tests := []struct {
		name    string
		data    string
		want    []string // kind/name of each object
		wantErr string
	}{
		{"two documents and an empty one", "apiVersion: v1\nkind: A\nmetadata: {name: a}\n---\n# only a comment\n---\napiVersion: v1\nkind: B\nmetadata: {name: b}\n", []string{"A/a", "B/b"}, ""},
		{"a List is expanded", "apiVersion: v1\nkind: List\nitems:\n- {apiVersion: v1, kind: A, metadata: {name: a}}\n- {apiVersion: v1, kind: B, metadata: {name: b}}\n", []string{"A/a", "B/b"}, ""},
		{"JSON", `{"apiVersion": "v1", "kind": "A", "metadata": {"name": "a"}}`, []string{"A/a"}, ""},
		{"missing kind", "apiVersion: v1\nkind: A\nmetadata: {name: a}\n---\nmetadata: {name: b}\n", nil, "f.yaml:5: document 1: apiVersion and kind are required"},
		{"malformed YAML: the line of the error", "apiVersion: v1\nkind: [A\n", nil, "f.yaml:2: document 0: syntax error: "},
		{"a scalar document", "just text\n", nil, "f.yaml:1: document 0: "},
		{"a top-level list", "# two objects\n- {apiVersion: v1, kind: A, metadata: {name: a}}\n", nil, "f.yaml:2: document 0: a YAML list at the top level is not a Kubernetes object"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			objs, err := Decode("f.yaml", []byte(tt.data))
			if tt.wantErr != "" {
				var re *ReadError
				if err == nil || !errors.As(err, &re) || len(err.Error()) < len(tt.wantErr) || err.Error()[:len(tt.wantErr)] != tt.wantErr {
					t.Fatalf("Decode error = %v, want one starting %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, o := range objs {
				got = append(got, o.GetKind()+"/"+o.GetName())
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("objects (-want +got):\n%s", diff)
			}
		})
	}
}

func TestDecodeLines(t *testing.T) {
	tests := []struct {
		name string
		data string
		want []string // kind/name@line of each object
	}{
		{"one document", "apiVersion: v1\nkind: A\nmetadata: {name: a}\n", []string{"A/a@1"}},
		{"leading comments and blank lines", "# header\n\n# more\napiVersion: v1\nkind: A\nmetadata: {name: a}\n", []string{"A/a@4"}},
		{"leading separator", "---\napiVersion: v1\nkind: A\nmetadata: {name: a}\n", []string{"A/a@2"}},
		{"three documents with comments and an empty one", "apiVersion: v1\nkind: A\nmetadata: {name: a}\n--- # next\n# about b\napiVersion: v1\nkind: B\nmetadata: {name: b}\n---\n---\n\n\napiVersion: v1\nkind: C\nmetadata: {name: c}\n", []string{"A/a@1", "B/b@6", "C/c@13"}},
		{"List items", "apiVersion: v1\nkind: List\nitems:\n# first\n- apiVersion: v1\n  kind: A\n  metadata: {name: a}\n- apiVersion: v1\n  kind: B\n  metadata: {name: b}\n", []string{"A/a@5", "B/b@8"}},
		{"List after another document", "apiVersion: v1\nkind: A\nmetadata: {name: a}\n---\nkind: List\napiVersion: v1\nitems:\n- {apiVersion: v1, kind: B, metadata: {name: b}}\n", []string{"A/a@1", "B/b@8"}},
		{"a line starting with --- that is not a separator", "apiVersion: v1\nkind: A\nmetadata:\n  name: a\n  annotations:\n    x: |\n      text\n---x\n", nil},
		{"JSON", `{"apiVersion": "v1", "kind": "A", "metadata": {"name": "a"}}`, []string{"A/a@1"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			objs, err := Decode("f.yaml", []byte(tt.data))
			if tt.want == nil { // a document the YAML parser rejects: an error, not a panic
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, o := range objs {
				got = append(got, fmt.Sprintf("%s/%s@%d", o.GetKind(), o.GetName(), o.Line))
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("objects (-want +got):\n%s", diff)
			}
		})
	}
}

func TestReadFolders(t *testing.T) {
	dir := t.TempDir()
	write := func(name, data string) {
		if err := os.MkdirAll(filepath.Dir(filepath.Join(dir, name)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name), []byte(data), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	write("b.yaml", "apiVersion: v1\nkind: B\nmetadata: {name: b}\n")
	write("a/a.yml", "apiVersion: v1\nkind: A\nmetadata: {name: a}\n")
	write("notes.txt", "not a manifest")
	objs, err := Read(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(objs) != 2 || objs[0].GetKind() != "A" || objs[1].GetKind() != "B" {
		t.Errorf("Read = %v, want A (a/a.yml) then B (b.yaml)", objs)
	}
	write("empty/notes.txt", "not a manifest")
	write("blank.yaml", "# nothing yet\n---\n")
	for _, tt := range []struct{ path, want string }{
		{"missing", "no such file or directory"},
		{"empty", "the folder holds no object in *.yaml, *.yml or *.json files"},
		{"blank.yaml", "the file holds no object"},
	} {
		p := filepath.Join(dir, tt.path)
		if _, err := Read(p); err == nil || err.Error() != p+": "+tt.want {
			t.Errorf("Read(%s) = %v, want %q", tt.path, err, p+": "+tt.want)
		}
	}
}
