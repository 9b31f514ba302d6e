// Package inventory sorts decoded objects (from files or a cluster list) into what the engine
// takes: Gateway API objects for the topology, and policy views per managed kind. Kinds it does
// not know are ignored. It is shared by the offline CLI and the cluster front doors.
package inventory
