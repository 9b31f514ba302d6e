package engine

import "fmt"

// Version is the Kuma version whose behaviour the engine predicts where Kuma changed it: Kuma214
// (v2.14.x) or Kuma30 (master, released as 3.0), the default.
type Version string

const (
	// Kuma214 is Kuma v2.14: inbounds carry kuma.io/service; a MeshTrafficPermission with rules on
	// an inbound leaves every policy's from items out there.
	Kuma214 Version = "2.14"
	// Kuma30 is Kuma's master (3.0): inbounds may have only a port and a name; rules and from items
	// of one inbound are merged, every deny before any allow (kumahq/kuma #18774).
	Kuma30 Version = "3.0"
)

// Versions are the versions the engine knows, oldest first; the last is the default.
var Versions = []Version{Kuma214, Kuma30}

// VersionOf reads a version name; "" is the newest. An unknown name is an error naming the known.
func VersionOf(s string) (Version, error) {
	if s == "" {
		return Versions[len(Versions)-1], nil
	}
	for _, v := range Versions {
		if string(v) == s {
			return v, nil
		}
	}
	return "", fmt.Errorf("unknown Kuma version %q: the known versions are %s and %s", s, Kuma214, Kuma30)
}

// serviceTagRequired says whether Kuma's Dataplane validator requires kuma.io/service on every
// inbound: v2.14's does (validateNetworking in pkg/core/resources/apis/mesh/dataplane_validator.go at
// v2.14.3), master's reads inbounds of only port and name.
func (v Version) serviceTagRequired() bool { return v == Kuma214 }

// mergesFromWithRules says whether the from items of MeshTrafficPermissions apply on an inbound
// that rules select too (see MergePermission).
func (v Version) mergesFromWithRules() bool { return v != Kuma214 }

// sortsItems says whether the to items of all the policies on an outbound are sorted item by item
// (EntriesAt), rather than policy by policy.
func (v Version) sortsItems() bool { return v != Kuma214 }
