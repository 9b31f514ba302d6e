// Package docs keeps the documentation true: TestDocs runs every `$ ` command block of README.md and
// docs/ against the built binary (and, for the blocks marked as needing one, against the cluster
// `make run` starts) and compares the output with what is written; TestAddAModelChecklist keeps
// CONTRIBUTING.md's "Add a model" checklist equal to what profiles/kgateway holds and to the
// registration table of profiles/profiles.go.
package docs
