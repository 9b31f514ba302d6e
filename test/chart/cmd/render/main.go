// Command render prints the chart charts/precedent rendered as `helm install --dry-run=client
// --include-crds` does, with the values of the YAML file given as the first argument (none: the
// chart's defaults): the deploy suite (test/deploy) installs what it prints. Run it from test/chart:
// go run ./cmd/render [values.yaml].
package main

import (
	"fmt"
	"os"
	"path/filepath"

	"sigs.k8s.io/yaml"

	"github.com/precedent-dev/precedent/test/chart"
)

func main() {
	vals := map[string]any{}
	if len(os.Args) > 1 {
		raw, err := os.ReadFile(os.Args[1])
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(2)
		}
		if err := yaml.Unmarshal(raw, &vals); err != nil {
			fmt.Fprintf(os.Stderr, "%s: %v\n", os.Args[1], err)
			os.Exit(2)
		}
	}
	out, err := chart.Render(filepath.Join("..", ".."), vals, false)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	os.Stdout.Write(out)
}
