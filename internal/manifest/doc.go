// Package manifest reads Kubernetes manifests from files and folders (multi-document YAML or JSON)
// into unstructured objects, for the offline front doors (validate, effective, access, mesh). Every
// object remembers where it came from, and an unreadable or malformed document is one clear error
// naming the file and the document index.
package manifest
