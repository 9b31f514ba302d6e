package reconcile

import (
	"github.com/prometheus/client_golang/prometheus"
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

// Registered in controller-runtime's registry, served on /metrics (test/harness reads them there).
func init() { metrics.Registry.MustRegister(statusWrites, skippedWrites) }
