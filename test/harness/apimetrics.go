package harness

import (
	"bytes"
	"context"
	"fmt"
	"slices"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
)

// ScrapeAPIServer reads the API server's own /metrics with cfg (an admin's configuration), by
// metric family name.
func ScrapeAPIServer(ctx context.Context, cfg *rest.Config) (map[string]*dto.MetricFamily, error) {
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return nil, err
	}
	raw, err := cs.Discovery().RESTClient().Get().AbsPath("/metrics").DoRaw(ctx)
	if err != nil {
		return nil, fmt.Errorf("reading the API server's metrics: %w", err)
	}
	p := expfmt.NewTextParser(model.UTF8Validation)
	fams, err := p.TextToMetricFamilies(bytes.NewReader(raw))
	if err != nil {
		return nil, fmt.Errorf("parsing the API server's metrics: %w", err)
	}
	return fams, nil
}

// StatusWrites is the number of writes of the status subresource of resource (plural) in group the
// API server has served, whatever their outcome, as its apiserver_request_total counts them: verbs
// PUT, PATCH, UPDATE and APPLY.
func StatusWrites(ctx context.Context, cfg *rest.Config, group, resource string) (float64, error) {
	return Requests(ctx, cfg, group, resource, "status", "PUT", "PATCH", "UPDATE", "APPLY")
}

// Requests is the number of requests with one of verbs on resource (plural) in group, subresource
// ("" for the object itself), that the API server has served, as its apiserver_request_total
// counts them.
func Requests(ctx context.Context, cfg *rest.Config, group, resource, subresource string, verbs ...string) (float64, error) {
	fams, err := ScrapeAPIServer(ctx, cfg)
	if err != nil {
		return 0, err
	}
	f, ok := fams["apiserver_request_total"]
	if !ok {
		return 0, fmt.Errorf("the API server's metrics have no apiserver_request_total")
	}
	var n float64
	for _, m := range f.GetMetric() {
		l := labels(m)
		if l["group"] == group && l["resource"] == resource && l["subresource"] == subresource && slices.Contains(verbs, l["verb"]) {
			n += m.GetCounter().GetValue()
		}
	}
	return n, nil
}

func labels(m *dto.Metric) map[string]string {
	out := make(map[string]string, len(m.GetLabel()))
	for _, l := range m.GetLabel() {
		out[l.GetName()] = l.GetValue()
	}
	return out
}
