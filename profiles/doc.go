// Package profiles is the one table of registered policy models: adding a model is its package
// under profiles/ and one line in registered. The webhook handlers, the state's watches, the webhook
// configurations, the CLI's offline checks and the readiness preparation iterate this table; the
// settings' validation and the reconciler read the configurable profiles' models, which every
// program installs from it explicitly (Install), no package registering anything at init.
package profiles
