// Package complexity holds a test that keeps every function of the repository, tests included,
// at cyclomatic complexity 25 or under, counted as gocyclo counts it.
package complexity
