// Package state is the cache the webhook and the reconciler share: the Gateway API topology, the
// namespaces' labels, the policies of every managed kind and, for the access and mesh profiles,
// their policies, Backends and Dataplanes, kept current by informer event handlers, with the
// topology graph and the per-kind snapshots built off the request path. It tells its readers when it
// has applied an event (AwaitCaught), so nobody polls it.
package state
