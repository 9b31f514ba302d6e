// Package chart checks the two ways Precedent is installed, the Helm chart (charts/precedent) and
// kustomize (config/default, config/builtin-certs): both render, every object they render is
// accepted by a real kube-apiserver (server-side dry-run), and they agree with each other and with
// webhook.Configurations on CRDs, RBAC rules and webhook rules, per certificate mode. It is a module
// of its own so that Helm's and kustomize's dependencies stay out of Precedent's go.mod.
package chart
