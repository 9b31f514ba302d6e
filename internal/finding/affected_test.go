package finding

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/precedent-dev/precedent/internal/warning"
)

// TestAffectedIsAList: the affected paths are a list in `-o json` and in SARIF's property bag,
// empty (never null, never left out) when the finding names no path.
func TestAffectedIsAList(t *testing.T) {
	obj := ObjectOf(policy())
	paths := []string{"gateway-system/gw/http → shop/cart"}
	tests := []struct {
		name string
		f    Finding
		want []string
	}{
		{name: "paths known", f: Finding{Severity: warning.SeverityWarning, Object: obj, Message: "w", Affected: paths}, want: paths},
		{name: "no path", f: Finding{Severity: warning.SeverityError, Object: obj, Field: "spec.unset[0]", Message: "e"}, want: []string{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b, err := json.Marshal(tt.f)
			if err != nil {
				t.Fatal(err)
			}
			var got struct {
				Affected *[]string `json:"affected"`
			}
			if err := json.Unmarshal(b, &got); err != nil || got.Affected == nil {
				t.Fatalf("-o json: affected missing or null: %s (%v)", b, err)
			}
			if d := cmp.Diff(tt.want, *got.Affected); d != "" {
				t.Errorf("-o json affected (-want +got):\n%s", d)
			}
			var sb bytes.Buffer
			if err := WriteSARIF(&sb, []Finding{tt.f}, "v0"); err != nil {
				t.Fatal(err)
			}
			var log struct {
				Runs []struct {
					Results []struct {
						Properties struct {
							Affected *[]string `json:"affected"`
						} `json:"properties"`
					} `json:"results"`
				} `json:"runs"`
			}
			if err := json.Unmarshal(sb.Bytes(), &log); err != nil {
				t.Fatal(err)
			}
			sp := log.Runs[0].Results[0].Properties.Affected
			if sp == nil {
				t.Fatalf("SARIF: properties.affected missing or null:\n%s", sb.String())
			}
			if d := cmp.Diff(tt.want, *sp); d != "" {
				t.Errorf("SARIF properties.affected (-want +got):\n%s", d)
			}
		})
	}
}
