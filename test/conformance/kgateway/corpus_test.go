package kgateway

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/yaml"

	"github.com/precedent-dev/precedent/test/egcrds"
)

// Where kgateway keeps the cases in its module.
const (
	translatorDir = "pkg/kgateway/translator/gateway"
	testFile      = translatorDir + "/gateway_translator_test.go"
	inputsDir     = translatorDir + "/testutils/inputs"
	outputsDir    = translatorDir + "/testutils/outputs"
	setupDir      = "pkg/kgateway/setup/testdata"
)

// corpusCase is one golden: the objects of its inputs and the translation kgateway wrote.
type corpusCase struct {
	Name    string
	Objects []*unstructured.Unstructured
	Out     map[string]interface{}
}

// moduleDir is the pinned kgateway module in the module cache.
func moduleDir() (string, error) { return egcrds.KgatewayDir() }

var (
	basicPair  = regexp.MustCompile(`inputFile:\s+"([^"]+)",\s*\n\s*outputFile:\s+"([^"]+)"`)
	delegation = regexp.MustCompile(`test\(t, "([^"]+)"\)`)
	validation = regexp.MustCompile(`category:\s+"([^"]+)",\s*\n\s*inputFile:\s+"([^"]+)"`)
)

// loadCorpus reads the cases of TestBasic, TestValidation (standard mode), TestRouteDelegation
// and the setup goldens whose inputs hold a TrafficPolicy, each named by its test and file.
func loadCorpus() ([]corpusCase, error) {
	dir, err := moduleDir()
	if err != nil {
		return nil, err
	}
	src, err := os.ReadFile(filepath.Join(dir, testFile))
	if err != nil {
		return nil, err
	}
	text := string(src)
	basic := section(text, "func TestBasic(", "func TestValidation(")
	valid := section(text, "func TestValidation(", "func TestRouteDelegation(")
	deleg := section(text, "func TestRouteDelegation(", "func TestDiscoveryNamespaceSelector(")
	type pair struct {
		name string
		ins  []string
		out  string
	}
	var pairs []pair
	seen := map[string]bool{}
	for _, m := range basicPair.FindAllStringSubmatch(basic, -1) {
		n := "TestBasic/" + m[1] + "→" + m[2]
		if !seen[n] {
			seen[n] = true
			pairs = append(pairs, pair{n, []string{filepath.Join(dir, inputsDir, m[1])}, filepath.Join(dir, outputsDir, m[2])})
		}
	}
	for _, m := range validation.FindAllStringSubmatch(valid, -1) {
		// standard mode's golden, or strict mode's for the cases that run only there (minMode)
		out := filepath.Join(dir, outputsDir, "route-replacement", "standard", m[1], strings.Replace(m[2], ".yaml", "-out.yaml", 1))
		if _, err := os.Stat(out); err != nil {
			out = filepath.Join(dir, outputsDir, "route-replacement", "strict", m[1], strings.Replace(m[2], ".yaml", "-out.yaml", 1))
		}
		pairs = append(pairs, pair{"TestValidation/" + m[1] + "/" + m[2], []string{filepath.Join(dir, inputsDir, "route-replacement", m[1], m[2])}, out})
	}
	for _, m := range delegation.FindAllStringSubmatch(deleg, -1) {
		pairs = append(pairs, pair{"TestRouteDelegation/" + m[1], []string{filepath.Join(dir, inputsDir, "delegation", "common.yaml"),
			filepath.Join(dir, inputsDir, "delegation", m[1])}, filepath.Join(dir, outputsDir, "delegation", m[1])})
	}
	outs, err := filepath.Glob(filepath.Join(dir, setupDir, "*", "*-out.yaml"))
	if err != nil {
		return nil, err
	}
	sort.Strings(outs)
	for _, o := range outs {
		rel, _ := filepath.Rel(filepath.Join(dir, setupDir), o)
		pairs = append(pairs, pair{"setup/" + strings.TrimSuffix(rel, "-out.yaml"), []string{strings.TrimSuffix(o, "-out.yaml") + ".yaml"}, o})
	}
	var cases []corpusCase
	for _, p := range pairs {
		var objs []*unstructured.Unstructured
		for _, in := range p.ins {
			o, err := readObjects(in)
			if err != nil {
				return nil, err
			}
			objs = append(objs, o...)
		}
		if !holds(objs, "TrafficPolicy") {
			continue
		}
		raw, err := os.ReadFile(p.out)
		if err != nil {
			return nil, fmt.Errorf("case %s: %w", p.name, err)
		}
		var out map[string]interface{}
		if err := yaml.Unmarshal(raw, &out); err != nil {
			return nil, fmt.Errorf("reading %s: %w", p.out, err)
		}
		cases = append(cases, corpusCase{Name: p.name, Objects: objs, Out: out})
	}
	return cases, nil
}

func section(text, from, to string) string {
	i := strings.Index(text, from)
	j := strings.Index(text, to)
	if i < 0 || j < i {
		return ""
	}
	return text[i:j]
}

func holds(objs []*unstructured.Unstructured, kind string) bool {
	for _, o := range objs {
		if o.GetKind() == kind {
			return true
		}
	}
	return false
}

// readObjects reads the objects of a YAML file, or of every YAML file of a directory.
func readObjects(path string) ([]*unstructured.Unstructured, error) {
	files := []string{path}
	if st, err := os.Stat(path); err != nil {
		return nil, err
	} else if st.IsDir() {
		if files, err = filepath.Glob(filepath.Join(path, "*.yaml")); err != nil {
			return nil, err
		}
	}
	var out []*unstructured.Unstructured
	for _, f := range files {
		raw, err := os.ReadFile(f)
		if err != nil {
			return nil, err
		}
		for _, doc := range bytes.Split(raw, []byte("\n---")) {
			u := &unstructured.Unstructured{}
			if err := yaml.Unmarshal(doc, &u.Object); err != nil {
				return nil, fmt.Errorf("reading %s: %w", f, err)
			}
			if u.Object != nil && u.GetKind() != "" {
				if u.GetNamespace() == "" {
					u.SetNamespace("default")
				}
				out = append(out, u)
			}
		}
	}
	return out, nil
}
