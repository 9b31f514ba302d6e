// Package profile is the seam every policy model plugs into: the Profile interface, what a review
// receives and returns, the webhook rules a profile asks for and the offline input it checks. The
// front doors (webhook, state's watches, the CLI, the exports) iterate the profiles registered in
// package profiles and never switch on a profile or a kind; each model's own logic lives in its own
// package under profiles/ (a model folded on the shared engine gives it its reading, order, fold and
// checks through policy.Model, effective.Reducer and checks.Register). A profile a PrecedentConfig
// may name is Configurable: its model, installed from the table (profiles.Install), says how a kind
// line is checked and whether the reconciler writes its kinds' status. Profiles read the cluster
// through source.Source: the informers' state for the webhook, the input's objects for validate -f.
package profile
