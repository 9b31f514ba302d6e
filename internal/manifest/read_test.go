package manifest

import (
	"errors"
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
		{"missing kind", "apiVersion: v1\nkind: A\nmetadata: {name: a}\n---\nmetadata: {name: b}\n", nil, "f.yaml: document 1: apiVersion and kind are required"},
		{"malformed YAML", "apiVersion: v1\nkind: [A\n", nil, "f.yaml: document 0: "},
		{"a scalar document", "just text\n", nil, "f.yaml: document 0: "},
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
	if _, err := Read(filepath.Join(dir, "missing")); err == nil {
		t.Error("a missing path is not an error")
	}
}
