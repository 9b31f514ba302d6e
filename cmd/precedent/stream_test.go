package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/precedent-dev/precedent/internal/finding"
	"github.com/precedent-dev/precedent/internal/settings"
)

// TestInputPartsAsWhole: the input of the files taken through its steps a few objects at a time
// gives what the steps taken over every object at once give: validate's output in every format
// (objects left out for their CRD's rules, duplicates, unchecked kinds, conversion errors, syntax
// errors), and the same objects, as defaulted, released and shared, with the same findings, for
// validate's input and the other commands'.
func TestInputPartsAsWhole(t *testing.T) {
	defer func(n int) { inputPart = n }(inputPart)
	unconvertible := t.TempDir() // two routes the review cannot convert, among others it can
	var routes string
	for i, rules := range []string{"[{name: a}]", "nope", "[{name: b}]", "[{name: c}]", "7", "[]"} {
		routes += fmt.Sprintf("---\napiVersion: gateway.networking.k8s.io/v1\nkind: HTTPRoute\nmetadata: {name: r%d, namespace: shop}\nspec: {rules: %s}\n", i, rules)
	}
	if err := os.WriteFile(filepath.Join(unconvertible, "routes.yaml"), []byte(routes), 0o644); err != nil {
		t.Fatal(err)
	}
	cases := [][]string{
		{"-f", unconvertible},
		{"-f", "testdata/kuadrant"},
		{"-f", "testdata/kuma-rules"},
		{"-f", "testdata/envoy-listenerset"},
		{"-f", "testdata/bad-config"},
		{"-f", "testdata/ci"},
		{"-f", "testdata/diff"},
		{"-f", "testdata/dup"},
		{"-f", "testdata/invalid"},
		{"-f", "testdata/kuadrant-invalid", "--crd", "../../test/crds/kuadrant"},
		{"-f", "testdata/many-errors"},
		{"-f", "testdata/syntax"},
		{"-f", "testdata/broken"},
		{"-f", "testdata/repo"},
		{"-f", "testdata/twins"},
		{"-f", "../../config/samples/rfc"},
		{"-f", "../../config/samples/kgateway", "--config", "../../config/kgateway/precedentconfig.yaml", "--crd", "../../test/crds/kgateway"},
		{"-f", "../../config/samples/kuadrant", "--config", "../../config/kuadrant/precedentconfig.yaml", "--crd", "../../test/crds/kuadrant"},
	}
	for _, args := range cases {
		inputPart = 1 << 30
		want := map[string]string{}
		for _, format := range []string{"text", "json", "sarif"} {
			out, errOut, code := run(append([]string{"validate", "-o", format}, args...)...)
			want[format] = fmt.Sprintf("exit %d\n%s\nstderr:\n%s", code, out, errOut)
		}
		wantObjects := [2][]interface{}{loaded(t, args, true), loaded(t, args, false)}
		for _, part := range []int{1, 2, 7} {
			inputPart = part
			for format, w := range want {
				out, errOut, code := run(append([]string{"validate", "-o", format}, args...)...)
				if diff := cmp.Diff(w, fmt.Sprintf("exit %d\n%s\nstderr:\n%s", code, out, errOut)); diff != "" {
					t.Errorf("validate %v -o %s, %d objects at a time (-all at once +in parts):\n%s", args, format, part, diff)
				}
			}
			if diff := cmp.Diff(wantObjects, [2][]interface{}{loaded(t, args, true), loaded(t, args, false)}); diff != "" {
				t.Errorf("validate %v, %d objects at a time: objects (-all at once +in parts):\n%s", args, part, diff)
			}
		}
	}
}

// loaded are the objects of the input for the command line args (-f, --crd, --config) (validate's
// when review), whether each was converted for the review's source, and the input's findings; the
// error alone when the input cannot be read.
func loaded(t *testing.T, args []string, review bool) []interface{} {
	t.Helper()
	src := &sources{review: review}
	var config string
	for i := 0; i+1 < len(args); i += 2 {
		switch args[i] {
		case "-f":
			src.files = append(src.files, args[i+1])
		case "--crd":
			src.crds = append(src.crds, args[i+1])
		case "--config":
			config = args[i+1]
		}
	}
	src.opts.showNotes = true
	var override *settings.Settings
	if config != "" {
		s, err := readConfigFile(config)
		if err != nil {
			t.Fatal(err)
		}
		override = &s
	}
	o, err := src.loadFiles(context.Background(), override)
	if err != nil {
		return []interface{}{err.Error()}
	}
	var out []interface{}
	for _, f := range append(append([]finding.Finding(nil), o.rejected...), o.unchecked...) {
		out = append(out, fmt.Sprintf("%s:%d: %s", f.File, f.Line, f.Text()))
	}
	for _, u := range o.objects {
		_, converted := o.converted[u]
		out = append(out, map[string]interface{}{"object": u.Object, "converted": converted})
	}
	return out
}
