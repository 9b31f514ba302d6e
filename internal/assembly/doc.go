// Package assembly builds the one controller-runtime manager Precedent runs: the informer cache, the
// live settings, the webhook handlers, the status reconciler, health and readiness checks and
// metrics, from one Options value. `precedent serve`, `precedent dev` and the envtest harness all call
// New, so the suites under test/ run what a cluster runs. It sits above webhook, reconcile and
// config, below the front doors that start it.
package assembly
