// Package controlplane runs a local etcd + kube-apiserver (controller-runtime envtest, with the
// pinned binaries of `make control-plane`) with the Gateway API and Precedent CRDs, registers the
// webhooks on 127.0.0.1 with a dev certificate, and applies sample manifests. `precedent dev` and the
// envtest suites under test/ share it.
package controlplane
