// Package egcrds finds Envoy Gateway's real CRDs in the Go module cache, at the version pinned by
// the tools module hack/tools/envoy-gateway (kgateway's too, hack/tools/kgateway), for tests and
// `make run`; they are never copied into the repository. RunCRDDirs lists what `make run` installs.
package egcrds

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/yaml"
)

// Module is Envoy Gateway's module path.
const Module = "github.com/envoyproxy/gateway"

// crdDir is where the module keeps its generated CRDs.
const crdDir = "charts/gateway-helm/charts/crds/crds/generated"

// repoRoot is the repository's root (this package is test/egcrds).
func repoRoot() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "..", "..")
}

// toolsDir is hack/tools/<name> in this repository.
func toolsDir(name string) string { return filepath.Join(repoRoot(), "hack", "tools", name) }

// KgatewayModule is kgateway's module path; hack/tools/kgateway pins its version.
const KgatewayModule = "github.com/kgateway-dev/kgateway/v2"

// KgatewayDir is the pinned kgateway module's directory in the module cache.
func KgatewayDir() (string, error) { return PinnedDir("kgateway", KgatewayModule) }

// KgatewayTrafficPolicyCRD is the path of kgateway's own TrafficPolicy CRD in the module cache.
func KgatewayTrafficPolicyCRD() (string, error) {
	dir, err := KgatewayDir()
	if err != nil {
		return "", err
	}
	return filepath.Join(dir, "install", "helm", "kgateway-crds", "templates", "gateway.kgateway.dev_trafficpolicies.yaml"), nil
}

// Version is the version hack/tools/envoy-gateway/go.mod pins.
func Version() (string, error) { return PinnedVersion("envoy-gateway", Module) }

// PinnedVersion is the version of module that the tools module hack/tools/<tools>/go.mod requires.
func PinnedVersion(tools, module string) (string, error) {
	raw, err := os.ReadFile(filepath.Join(toolsDir(tools), "go.mod"))
	if err != nil {
		return "", fmt.Errorf("reading the tools module: %w", err)
	}
	m := regexp.MustCompile(`(?m)^require ` + regexp.QuoteMeta(module) + ` (v\S+)$`).FindSubmatch(raw)
	if m == nil {
		return "", fmt.Errorf("hack/tools/%s/go.mod requires no %s", tools, module)
	}
	return string(m[1]), nil
}

// Dir downloads (or finds in the cache) the pinned module and returns its directory.
func Dir() (string, error) { return PinnedDir("envoy-gateway", Module) }

// PinnedDir downloads (or finds in the cache) the module that hack/tools/<tools> pins and returns
// its directory: how tests read other projects' files (kgateway's too) without copying them.
func PinnedDir(tools, module string) (string, error) {
	v, err := PinnedVersion(tools, module)
	if err != nil {
		return "", err
	}
	cmd := exec.Command("go", "mod", "download", "-json", module+"@"+v)
	cmd.Dir = toolsDir(tools)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("go mod download %s@%s: %w: %s", module, v, err, strings.TrimSpace(errb.String()))
	}
	var info struct{ Dir, Error string }
	if err := json.Unmarshal(out.Bytes(), &info); err != nil {
		return "", fmt.Errorf("reading go mod download output: %w", err)
	}
	if info.Error != "" || info.Dir == "" {
		return "", fmt.Errorf("go mod download %s@%s: %s", module, v, info.Error)
	}
	return info.Dir, nil
}

// CRDDir is the directory of the pinned module's CRDs in the module cache (read-only), for
// envtest's CRDDirectoryPaths or `kubectl apply -f`.
func CRDDir() (string, error) {
	dir, err := Dir()
	if err != nil {
		return "", err
	}
	return filepath.Join(dir, crdDir), nil
}

// Files lists the CRD files of the pinned module.
func Files() ([]string, error) {
	dir, err := CRDDir()
	if err != nil {
		return nil, err
	}
	files, err := filepath.Glob(filepath.Join(dir, "*.yaml"))
	if err != nil || len(files) == 0 {
		return nil, fmt.Errorf("no CRDs under %s: %v", dir, err)
	}
	return files, nil
}

// Load reads every CRD of the pinned module.
func Load() ([]*unstructured.Unstructured, error) {
	files, err := Files()
	if err != nil {
		return nil, err
	}
	var out []*unstructured.Unstructured
	for _, f := range files {
		raw, err := os.ReadFile(f)
		if err != nil {
			return nil, fmt.Errorf("reading %s: %w", f, err)
		}
		for _, doc := range bytes.Split(raw, []byte("\n---")) {
			u := &unstructured.Unstructured{}
			if err := yaml.Unmarshal(doc, &u.Object); err != nil {
				return nil, fmt.Errorf("reading %s: %w", f, err)
			}
			if len(u.Object) > 0 {
				out = append(out, u)
			}
		}
	}
	return out, nil
}
