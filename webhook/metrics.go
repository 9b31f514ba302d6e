package webhook

import (
	"github.com/prometheus/client_golang/prometheus"
	ctrlmetrics "sigs.k8s.io/controller-runtime/pkg/metrics"
)

// Decisions, the values of the decision label.
const (
	decisionAllowed = "allowed"
	decisionDenied  = "denied"
	decisionError   = "error"
)

var (
	admissionDuration = prometheus.NewHistogramVec(prometheus.HistogramOpts{
		Name:    "precedent_admission_duration_seconds",
		Help:    "Time Precedent's handlers spend on one admission request, by kind, operation and decision.",
		Buckets: []float64{0.00005, 0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1},
	}, []string{"kind", "operation", "decision"})
	admissionWarnings = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "precedent_admission_warnings_total",
		Help: "Warnings returned on admission responses, by kind.",
	}, []string{"kind"})
	admissionRejections = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "precedent_admission_rejections_total",
		Help: "Field errors that rejected a write, by check: its ID (e.g. unset-duplicate), else error type and field path without indexes.",
	}, []string{"check"})
)

func init() {
	ctrlmetrics.Registry.MustRegister(admissionDuration, admissionWarnings, admissionRejections)
}
