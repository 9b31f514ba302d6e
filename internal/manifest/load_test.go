package manifest

import (
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// summary is what a test compares of an Input: each object as "Kind ns/name @file:line", each
// skipped file and each problem as its line.
func summary(in *Input) (objs, skipped, problems []string) {
	for _, o := range in.Objects {
		objs = append(objs, fmt.Sprintf("%s %s/%s @%s:%d", o.GetKind(), o.GetNamespace(), o.GetName(), o.File, o.Line))
	}
	for _, s := range in.Skipped {
		skipped = append(skipped, s.File+": "+s.Reason)
	}
	for _, p := range in.Problems {
		problems = append(problems, p.Error())
	}
	return objs, skipped, problems
}

func TestLoad(t *testing.T) {
	const tpl = "a template ({{ … }}), not a manifest: render it first (helm template) and give the output"
	tests := []struct {
		name     string
		paths    []string
		opt      Options
		stdin    string
		objs     []string
		skipped  []string
		problems []string
	}{
		{
			name:  "a repository: kustomizations built, charts and hidden folders skipped, .precedentignore honoured",
			paths: []string{"testdata/repo"},
			objs: []string{
				"ConfigMap /app @testdata/repo/app/base/configmap.yaml:1",
				"ConfigMap prod/prod-app @testdata/repo/app/base/configmap.yaml:1",
				"ConfigMap shop/generated @testdata/repo/apps/generated.yml:1",
				"ConfigMap shop/settings @testdata/repo/apps/settings.yaml:2",
				"ConfigMap shop/flags @testdata/repo/apps/settings.yaml:7",
			},
			skipped: []string{
				"testdata/repo/chart/Chart.yaml: no apiVersion and kind: not a Kubernetes object",
				"testdata/repo/chart/templates/configmap.yaml: " + tpl,
				"testdata/repo/chart/values.yaml: no apiVersion and kind: not a Kubernetes object",
			},
		},
		{
			name:  "--exclude leaves out a folder and a file by glob",
			paths: []string{"testdata/repo"},
			opt:   Options{Exclude: []string{"chart/", "apps/*.yml", "/app/base"}},
			objs: []string{
				"ConfigMap prod/prod-app @testdata/repo/app/base/configmap.yaml:1",
				"ConfigMap shop/settings @testdata/repo/apps/settings.yaml:2",
				"ConfigMap shop/flags @testdata/repo/apps/settings.yaml:7",
			},
		},
		{
			name:  "--no-kustomize reads the kustomization's files as they are",
			paths: []string{"testdata/repo/app"},
			opt:   Options{NoKustomize: true},
			objs:  []string{"ConfigMap /app @testdata/repo/app/base/configmap.yaml:1"},
			skipped: []string{
				"testdata/repo/app/base/kustomization.yaml: a Kustomization of kustomize, read as plain files (--no-kustomize)",
				"testdata/repo/app/overlay/kustomization.yaml: a Kustomization of kustomize, read as plain files (--no-kustomize)",
			},
		},
		{
			name:  "an overlay given by its kustomization file is built",
			paths: []string{"testdata/repo/app/overlay/kustomization.yaml"},
			objs:  []string{"ConfigMap prod/prod-app @testdata/repo/app/base/configmap.yaml:1"},
		},
		{
			name:    "a hidden folder named explicitly is read, and a file named explicitly must hold objects",
			paths:   []string{"testdata/repo/.github", "testdata/repo/chart/values.yaml"},
			skipped: []string{"testdata/repo/.github/workflows/ci.yaml: no apiVersion and kind: not a Kubernetes object"},
			problems: []string{
				"testdata/repo/.github: the folder holds no Kubernetes object in *.yaml, *.yml or *.json files",
				"testdata/repo/chart/values.yaml:1: document 0: apiVersion and kind are required",
			},
		},
		{
			name:  "standard input",
			paths: []string{"-"},
			stdin: "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a, namespace: x}\n",
			objs:  []string{"ConfigMap x/a @STDIN:1"},
		},
		{
			name:     "a syntax error is located at its line, and the other documents are read",
			paths:    []string{"-"},
			stdin:    "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a, namespace: x}\n---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: b\n   namespace: x\n",
			objs:     []string{"ConfigMap x/a @STDIN:1"},
			problems: []string{"STDIN:9: document 1: syntax error: mapping values are not allowed in this context"},
		},
		{
			name:     "a syntax error in a file found in a folder is not skipped",
			paths:    []string{"testdata/repo/scratch"},
			objs:     []string{"ConfigMap shop/keep @testdata/repo/scratch/keep.yaml:1"},
			problems: []string{"testdata/repo/scratch/draft.yaml:3: document 0: syntax error: did not find expected ',' or '}'"},
		},
		{
			name:     "a path that does not exist, an empty input",
			paths:    []string{"testdata/missing", "-"},
			problems: []string{"testdata/missing: no such file or directory", "STDIN: the file holds no object"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.opt.Stdin = strings.NewReader(tt.stdin)
			in, err := Load(tt.paths, tt.opt)
			if err != nil {
				t.Fatal(err)
			}
			objs, skipped, problems := summary(in)
			if diff := cmp.Diff(tt.objs, objs); diff != "" {
				t.Errorf("objects (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.skipped, skipped); diff != "" {
				t.Errorf("skipped (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.problems, problems); diff != "" {
				t.Errorf("problems (-want +got):\n%s", diff)
			}
		})
	}
}

func TestLoadStdinTwice(t *testing.T) {
	if _, err := Load([]string{"-", "a.yaml", "-"}, Options{Stdin: strings.NewReader("")}); err != ErrStdinTwice {
		t.Errorf("Load(-, a.yaml, -) = %v, want %v", err, ErrStdinTwice)
	}
}
