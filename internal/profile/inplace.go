package profile

import "k8s.io/apimachinery/pkg/runtime/schema"

// InPlace is a profile whose review of some writes answers the same in the cluster the write
// arrives in (without the object a create writes, with the one an update replaces) as in the
// cluster after it (holding the written object): kgateway's, whose TrafficPolicy projection
// replaces the stored policy of the written name with the written one. The offline review
// (`validate -f`) reviews such a write in its source as it is, the cluster after the change set,
// rather than in a trial: a trial changes what the profile's derived caches read, so they would be
// derived anew, from the whole input, for each write.
type InPlace interface {
	// InPlace reports whether the review of a write of op on an object of gk answers the same in
	// the cluster after the write as in the one it arrives in.
	InPlace(gk schema.GroupKind, op Operation) bool
}
