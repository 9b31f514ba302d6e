// Package pmap is the persistent map the profiles' caches keep their indexes in: a base that a
// whole build fills as a plain Go map (or an index of positions into a slice) and nobody writes
// afterwards, and the changes of the versions stepped from it since, in a persistent hash trie
// (github.com/benbjohnson/immutable) over the base. A step shares all but what it changes with the
// version it came from, which stays valid for its readers; a build pays a Go map insert per key, not
// a trie insert (a few cache misses each in a 10x world) on top of one.
package pmap
