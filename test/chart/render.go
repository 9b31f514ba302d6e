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

// Render renders the chart in repo/charts/precedent as `helm install --dry-run=client
// --include-crds` (or, with upgrade, `helm upgrade`) does, with vals over the chart's values, into
// one multi-document YAML stream. The deploy suite installs what it returns (cmd/render).
func Render(repo string, vals map[string]any, upgrade bool) ([]byte, error) {
	return RenderChart(filepath.Join(repo, "charts", "precedent"), vals, upgrade)
}

// RenderChart is Render of the chart at path: a folder or a packaged chart (.tgz, `make release`).
func RenderChart(path string, vals map[string]any, upgrade bool) ([]byte, error) {
	ch, err := loader.Load(path)
	if err != nil {
		return nil, fmt.Errorf("loading the chart %s: %w", path, err)
	}
	kv, err := common.ParseKubeVersion("v1.37.2")
	if err != nil {
		return nil, err
	}
	inst := action.NewInstall(action.NewConfiguration())
	inst.DryRunStrategy = action.DryRunClient
	inst.ReleaseName, inst.Namespace = "precedent", Namespace
	inst.IncludeCRDs, inst.IsUpgrade, inst.KubeVersion = true, upgrade, kv
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
