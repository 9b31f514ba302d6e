// Package profiles is the one table of registered policy models: adding a model is its folder
// under profiles/ and one line in registered. The webhook handlers, the state's watches, the webhook
// configurations, `validate -f` (Review: each profile's own Review over the input as a source), the
// CLI's views and the readiness preparation iterate this table; the
// settings' validation and the reconciler read the configurable profiles' models, which every
// program installs from it explicitly (Install), no package registering anything at init.
package profiles
