// Package bench measures Precedent against a real kube-apiserver and etcd loaded with the generated
// world (test/gen): the cost of admission per write, quiet and while routes and policies change
// (`make bench-admission`), and the status reconciler's settle time and writes from a cold start
// and under the same changes (`make bench-reconcile`). The measurements are behind the `bench`
// build tag, so `make test` does not run them.
package bench
