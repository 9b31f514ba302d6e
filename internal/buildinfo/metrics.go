package buildinfo

import (
	"errors"

	"github.com/prometheus/client_golang/prometheus"
)

// Register adds the precedent_build_info gauge (value 1, labels version, commit, go) to reg. It
// is idempotent, so a process that serves more than once registers it once.
func Register(reg prometheus.Registerer) error {
	i := Get()
	g := prometheus.NewGauge(prometheus.GaugeOpts{
		Name:        "precedent_build_info",
		Help:        "Build identity of the running precedent binary; the value is always 1.",
		ConstLabels: prometheus.Labels{"version": i.Version, "commit": i.Commit, "go": i.Go},
	})
	g.Set(1)
	err := reg.Register(g)
	if are := (prometheus.AlreadyRegisteredError{}); errors.As(err, &are) {
		return nil
	}
	return err
}
