package harness

import ctrlmetrics "sigs.k8s.io/controller-runtime/pkg/metrics"

// ReconcileWrites is the number of policy status writes the status reconciler of this process has
// made for kind, as precedent_reconcile_status_writes_total counts them.
func ReconcileWrites(kind string) float64 {
	return counter("precedent_reconcile_status_writes_total", "kind", kind)
}

// ReconcileUnchanged is the number of reconciles for kind in this process that found the status
// already true and wrote nothing (precedent_reconcile_status_unchanged_total).
func ReconcileUnchanged(kind string) float64 {
	return counter("precedent_reconcile_status_unchanged_total", "kind", kind)
}

// counter reads the counter name of controller-runtime's registry, at label = value (0 when absent),
// as /metrics would show it.
func counter(name, label, value string) float64 {
	fams, err := ctrlmetrics.Registry.Gather()
	if err != nil {
		return 0
	}
	for _, f := range fams {
		if f.GetName() != name {
			continue
		}
		for _, m := range f.GetMetric() {
			for _, l := range m.GetLabel() {
				if l.GetName() == label && l.GetValue() == value {
					return m.GetCounter().GetValue()
				}
			}
		}
	}
	return 0
}
