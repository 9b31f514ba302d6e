// Package order finds where an offline answer depends on what the input cannot know: the order of
// creation of policies without a creationTimestamp (Git manifests, objects new in a change set).
// The engines stay deterministic (ties broken by namespace/name); this package reruns a caller's
// computation with each tied pair of policies created the other way round and reports the pairs
// whose order changes the answer, with both outcomes. Commands (validate, effective, diff) call it;
// it knows no profile: a model that does not order by age (Kuma's, by name) simply shows no change.
package order
