//go:build tools

// Package tools pins etcd so that `go build go.etcd.io/etcd/server/v3` resolves here.
package tools

import _ "go.etcd.io/etcd/server/v3"
