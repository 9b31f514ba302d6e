package main

import (
	"bytes"
	"fmt"
	"regexp"

	"sigs.k8s.io/yaml"
)

// docSeparator splits a rendered YAML stream into its documents.
var docSeparator = regexp.MustCompile(`(?m)^---[ \t]*\n`)

// dropDefaultSettings leaves out of a rendered manifest the PrecedentConfig whose spec sets nothing
// (every setting at its default, as config/settings ships it). Precedent runs on the defaults when
// there is none, so nothing is lost, and a single `kubectl apply -f install.yaml` works: kubectl
// cannot create an object whose CRD the same apply creates ("ensure CRDs are installed first"), and
// the PrecedentConfig's webhook fails closed until a replica answers. A PrecedentConfig that sets
// something (a component's kinds) stays. As the chart renders one only when values.config is set.
func dropDefaultSettings(rendered []byte) ([]byte, error) {
	docs := docSeparator.Split(string(rendered), -1)
	var out [][]byte
	for i, d := range docs {
		var obj struct {
			Kind string         `json:"kind"`
			Spec map[string]any `json:"spec"`
		}
		if err := yaml.Unmarshal([]byte(d), &obj); err != nil {
			return nil, fmt.Errorf("document %d: %w", i+1, err)
		}
		if obj.Kind == "PrecedentConfig" && setsNothing(obj.Spec) {
			continue
		}
		if len(bytes.TrimSpace([]byte(d))) > 0 {
			out = append(out, []byte(d))
		}
	}
	return bytes.Join(out, []byte("---\n")), nil
}

// setsNothing reports whether a spec holds only empty values (no field, empty lists and maps).
func setsNothing(spec map[string]any) bool {
	for _, v := range spec {
		switch x := v.(type) {
		case nil:
		case []any:
			if len(x) > 0 {
				return false
			}
		case map[string]any:
			if !setsNothing(x) {
				return false
			}
		default:
			return false
		}
	}
	return true
}
