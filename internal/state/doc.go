// Package state is the source the webhook and the reconciler share: the Gateway API topology, the
// namespaces' labels, the policies of every managed kind and of the profiles' own kinds, and the
// kinds profiles read, kept current by informer event handlers, with the topology graph and the
// per-kind snapshots built off the request path. Profiles keep their own caches derived from it
// (Derive), brought forward with each event they read. It tells its readers when it has applied an
// event (AwaitCaught), so nobody polls it.
package state
