// Package mesh is the profile of mesh policies: Precedent's MeshTimeout and MeshTrafficPermission
// (the MADR's shape and order) and Kuma's kuma.io kinds configured with profile `mesh` (Kuma's
// names and order). Writes are checked and their shadowed elements found on the state's mesh index
// of the Dataplanes of their mesh (its engine, profiles/mesh/engine); deletes are admitted without
// a word.
package mesh
