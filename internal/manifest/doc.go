// Package manifest reads Kubernetes manifests for the offline front doors (validate, effective,
// explain, diff, access, mesh): files and folders of multi-document YAML or JSON, standard input,
// and kustomizations built in-process as `kubectl kustomize` builds them (load.go, kustomize.go),
// leaving out hidden folders and the paths a .precedentignore or --exclude names (gitignore syntax,
// ignore.go). Every object remembers the file and line it came from; a document that cannot be
// parsed is a problem naming the file and the line of the error, and a file found in a folder that
// holds no Kubernetes object is skipped with its reason.
package manifest
