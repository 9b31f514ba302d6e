package reconcile

import (
	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"
	"sigs.k8s.io/controller-runtime/pkg/metrics"
)

var (
	statusWrites = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "precedent_reconcile_status_writes_total",
		Help: "Policy status writes, by kind.",
	}, []string{"kind"})
	skippedWrites = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "precedent_reconcile_status_unchanged_total",
		Help: "Reconciles that found the status already true and wrote nothing, by kind.",
	}, []string{"kind"})
)

func init() { metrics.Registry.MustRegister(statusWrites, skippedWrites) }

// Writes returns the number of status writes made for kind so far (for tests and benchmarks).
func Writes(kind string) float64 { return counterValue(statusWrites, kind) }

func counterValue(c *prometheus.CounterVec, label string) float64 {
	m, err := c.GetMetricWithLabelValues(label)
	if err != nil {
		return 0
	}
	ch := make(chan prometheus.Metric, 1)
	m.Collect(ch)
	var out float64
	select {
	case x := <-ch:
		var pb dto.Metric
		if err := x.Write(&pb); err == nil && pb.Counter != nil {
			out = pb.Counter.GetValue()
		}
	default:
	}
	return out
}

// Unchanged returns the number of reconciles for kind that found the status already true.
func Unchanged(kind string) float64 { return counterValue(skippedWrites, kind) }
