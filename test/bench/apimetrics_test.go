//go:build bench

package bench

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"testing"

	dto "github.com/prometheus/client_model/go"
	"k8s.io/client-go/rest"
	ctrlmetrics "sigs.k8s.io/controller-runtime/pkg/metrics"

	"github.com/precedent-dev/precedent/test/harness"
)

// histogramSums are the sums and counts of the series of a few API server histograms, by a label
// that tells the modes apart.
type histogramSums map[string]sumCount

type sumCount struct {
	sum   float64
	count uint64
}

// seriesOf says which histograms are read and by which labels their series are told apart: the
// request as the API server times it, each webhook call, matchConditions, VAP checks, each webhook
// path as the webhook server times it, and Precedent's handler.
var seriesOf = []struct {
	metric string
	labels []string
}{
	{"apiserver_request_duration_seconds", []string{"group", "resource", "subresource", "verb", "dry_run"}},
	{"apiserver_admission_webhook_admission_duration_seconds", []string{"name", "type"}},
	{"apiserver_admission_match_condition_evaluation_seconds", []string{"name", "type"}},
	{"apiserver_validating_admission_policy_check_duration_seconds", []string{"policy"}},
	{"controller_runtime_webhook_latency_seconds", []string{"webhook"}},
	{"precedent_admission_duration_seconds", []string{"kind", "operation", "decision"}},
}

// scrapeAdmission reads the API server's /metrics.
func scrapeAdmission(ctx context.Context, t *testing.T, cfg *rest.Config) histogramSums {
	t.Helper()
	fams, err := harness.ScrapeAPIServer(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	return sums(fams)
}

// scrapeWebhookServer reads the webhook server's metrics (the manager runs in this process).
func scrapeWebhookServer(t *testing.T) histogramSums {
	t.Helper()
	list, err := ctrlmetrics.Registry.Gather()
	if err != nil {
		t.Fatalf("gathering the webhook server's metrics: %v", err)
	}
	fams := map[string]*dto.MetricFamily{}
	for _, f := range list {
		fams[f.GetName()] = f
	}
	return sums(fams)
}

func sums(fams map[string]*dto.MetricFamily) histogramSums {
	out := histogramSums{}
	for _, s := range seriesOf {
		f, ok := fams[s.metric]
		if !ok {
			continue
		}
		for _, m := range f.GetMetric() {
			h := m.GetHistogram()
			if h == nil {
				continue
			}
			k := s.metric + "{" + labelValues(m, s.labels) + "}"
			sc := out[k]
			sc.sum += h.GetSampleSum()
			sc.count += h.GetSampleCount()
			out[k] = sc
		}
	}
	return out
}

func labelValues(m *dto.Metric, names []string) string {
	var vals []string
	for _, n := range names {
		for _, l := range m.GetLabel() {
			if l.GetName() == n {
				vals = append(vals, n+"="+l.GetValue())
			}
		}
	}
	return strings.Join(vals, ",")
}

// reportAdmission prints the mean of each series that changed between two scrapes, restricted to
// the series naming one of the bench's groups or webhooks (keep), so the extra cost of (d) over (c)
// can be placed: the request as a whole, each webhook call, and the matchConditions evaluated.
func reportAdmission(title string, before, after histogramSums, keep []string) {
	var keys []string
	for k := range after {
		if after[k].count == before[k].count {
			continue
		}
		for _, s := range keep {
			if s == "" || strings.Contains(k, s) {
				keys = append(keys, k)
				break
			}
		}
	}
	sort.Strings(keys)
	fmt.Printf("%s (mean per observation):\n", title)
	for _, k := range keys {
		n := after[k].count - before[k].count
		mean := (after[k].sum - before[k].sum) / float64(n)
		fmt.Printf("  %-110s %6d × %8.0fµs\n", k, n, mean*1e6)
	}
	fmt.Println()
}
