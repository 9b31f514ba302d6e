// Package install renders the generated parts of Precedent's installation from the registered
// profiles: the RBAC of config/rbac and of the chart (templates/_rbac.tpl), and the RBAC and the
// webhook entries of the kustomize components of the configurable profiles (config/kuadrant,
// config/envoy-gateway), derived from the kinds each component's PrecedentConfig manages, and the
// lines of the PrecedentConfig CRD that name the profiles (spec.kinds[].profile's enum), and the
// caBundle-keeping MutatingAdmissionPolicy of config/keep-cabundle and of the chart, which names
// the webhook configurations (webhook.ConfigurationName).
// `make generate` rewrites them; TestGenerated fails while a committed file is stale.
package install
