// Package kgateway compares the kgateway profile with kgateway's own translator goldens, read from
// the Go module cache at the version hack/tools/kgateway pins (never copied): per route rule the
// policies in effect, each policy's acceptance, and the routes delegation serves.
package kgateway
