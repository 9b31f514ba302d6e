package buildinfo

import (
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
)

func TestRegister(t *testing.T) {
	reg := prometheus.NewRegistry()
	for range 2 { // a second registration is not an error
		if err := Register(reg); err != nil {
			t.Fatalf("Register: %v", err)
		}
	}
	i := Get()
	want := `# HELP precedent_build_info Build identity of the running precedent binary; the value is always 1.
# TYPE precedent_build_info gauge
precedent_build_info{commit="` + i.Commit + `",go="` + i.Go + `",version="` + i.Version + `"} 1
`
	if err := testutil.GatherAndCompare(reg, strings.NewReader(want), "precedent_build_info"); err != nil {
		t.Error(err)
	}
}
