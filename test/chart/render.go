package chart

import (
	"fmt"
	"path/filepath"

	"helm.sh/helm/v4/pkg/action"
	"helm.sh/helm/v4/pkg/chart/common"
	"helm.sh/helm/v4/pkg/chart/loader"
	release "helm.sh/helm/v4/pkg/release/v1"
)

// Namespace is where both ways install Precedent (the chart's release namespace).
const Namespace = "precedent-system"

// Server is the API server a chart is rendered for, as Helm's .Capabilities tell the templates:
// its version and the kinds it serves (group/version/Kind, as `helm install` finds them by
// discovery; `helm template` knows only client-go's group versions).
type Server struct {
	Version string
	Kinds   []string
}

// Kube137 is the suites' kube-apiserver v1.37.2, which serves MutatingAdmissionPolicy (GA since 1.36).
var Kube137 = Server{Version: "v1.37.2", Kinds: []string{
	"admissionregistration.k8s.io/v1/MutatingAdmissionPolicy",
	"admissionregistration.k8s.io/v1/MutatingAdmissionPolicyBinding",
}}

// Kube130 is the oldest API server the chart supports (Chart.yaml's kubeVersion): no
// MutatingAdmissionPolicy.
var Kube130 = Server{Version: "v1.30.0"}

// Render renders the chart in repo/charts/precedent as `helm install --dry-run=client
// --include-crds` (or, with upgrade, `helm upgrade`) does for Kube137 (--kube-version, --api-versions), with vals over the
// chart's values, into one multi-document YAML stream. The deploy suite installs what it returns
// (cmd/render).
func Render(repo string, vals map[string]any, upgrade bool) ([]byte, error) {
	return RenderChart(filepath.Join(repo, "charts", "precedent"), vals, upgrade)
}

// RenderChart is Render of the chart at path: a folder or a packaged chart (.tgz, `make release`).
func RenderChart(path string, vals map[string]any, upgrade bool) ([]byte, error) {
	return RenderFor(Kube137, path, vals, upgrade)
}

// RenderFor is RenderChart for the API server s.
func RenderFor(s Server, path string, vals map[string]any, upgrade bool) ([]byte, error) {
	ch, err := loader.Load(path)
	if err != nil {
		return nil, fmt.Errorf("loading the chart %s: %w", path, err)
	}
	kv, err := common.ParseKubeVersion(s.Version)
	if err != nil {
		return nil, err
	}
	inst := action.NewInstall(action.NewConfiguration())
	inst.DryRunStrategy = action.DryRunClient
	inst.ReleaseName, inst.Namespace = "precedent", Namespace
	inst.IncludeCRDs, inst.IsUpgrade, inst.KubeVersion = true, upgrade, kv
	inst.APIVersions = s.Kinds
	rel, err := inst.Run(ch, vals)
	if err != nil {
		return nil, fmt.Errorf("rendering the chart with %v: %w", vals, err)
	}
	r, ok := rel.(*release.Release)
	if !ok {
		return nil, fmt.Errorf("the chart rendered a %T", rel)
	}
	return []byte(r.Manifest), nil
}
