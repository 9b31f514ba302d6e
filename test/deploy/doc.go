// Package deploy installs Precedent as a cluster admin would (the rendered manifests: CRDs, RBAC,
// Service, webhook configurations) on a real kube-apiserver and runs `precedent serve` replicas as
// its ServiceAccount, each in a network namespace of its own with its own address, the way a pod
// has one. The test plays the parts a cluster has and envtest lacks: the kubelet (readiness probes,
// preStop, SIGTERM, SIGKILL), the endpoints controller (the Service's EndpointSlice) and
// cert-manager (the serving certificate and caBundle). The API server reaches the replicas through
// the Service (--enable-aggregator-routing resolves it to a ready endpoint), while a steady stream
// of policy writes counts what fails during rollouts, certificate rotations and crashes.
// TestMain runs it all in a network namespace of its own (sandbox.go): nothing touches the host's
// network, and a user who is not root runs it in a user namespace.
package deploy
