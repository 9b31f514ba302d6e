package manifest

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestIgnore(t *testing.T) {
	type probe struct {
		path string
		dir  bool
	}
	tests := []struct {
		name  string
		base  string
		lines string
		want  map[probe]bool // excluded?
	}{
		{"a bare name matches at any depth", "", "values.yaml\n", map[probe]bool{
			{"values.yaml", false}: true, {"chart/values.yaml", false}: true, {"chart/values.yaml.bak", false}: false}},
		{"a trailing slash matches folders only", "", "charts/\n", map[probe]bool{
			{"charts", true}: true, {"a/charts", true}: true, {"charts", false}: false}},
		{"a slash anchors the pattern at the file's folder", "", "/base\napps/*.yml\n", map[probe]bool{
			{"base", true}: true, {"x/base", true}: false, {"apps/a.yml", false}: true, {"x/apps/a.yml", false}: false, {"apps/sub/a.yml", false}: false}},
		{"** matches any number of folders", "", "**/templates\nenv/**/secret-*.yaml\nlegacy/**\n", map[probe]bool{
			{"templates", true}: true, {"a/b/templates", true}: true, {"env/secret-a.yaml", false}: true,
			{"env/prod/eu/secret-a.yaml", false}: true, {"legacy", true}: false, {"legacy/a/b.yaml", false}: true}},
		{"the last matching pattern wins; ! re-includes", "", "*.yaml\n!keep.yaml\n", map[probe]bool{
			{"a.yaml", false}: true, {"keep.yaml", false}: false, {"d/keep.yaml", false}: false}},
		{"comments, blank lines, escapes and trailing spaces", "", "# a comment\n\n\\#hash.yaml\n\\!bang.yaml\nspace.yaml   \n", map[probe]bool{
			{"#hash.yaml", false}: true, {"!bang.yaml", false}: true, {"space.yaml", false}: true, {"# a comment", false}: false}},
		{"character classes and ?", "", "v[0-9].yaml\nr?.yaml\n", map[probe]bool{
			{"v1.yaml", false}: true, {"vx.yaml", false}: false, {"r1.yaml", false}: true, {"r12.yaml", false}: false}},
		{"a nested file's patterns apply below its folder only", "apps", "*.json\n/local.yaml\n", map[probe]bool{
			{"apps/a.json", false}: true, {"a.json", false}: false, {"apps/local.yaml", false}: true, {"apps/x/local.yaml", false}: false}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ig := parseIgnore(tt.base, []byte(tt.lines))
			got := map[probe]bool{}
			for p := range tt.want {
				got[p] = ig.excluded(p.path, p.dir)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("excluded (-want +got):\n%s", diff)
			}
		})
	}
}
