// Package webhook is the admission front door: controller-runtime handlers that decode a write once,
// default it (mutating), and run the engine's checks and projection against a snapshot kept by
// informer event handlers (validating), answering with the API server's usual Invalid status and
// with warnings. It also validates PrecedentConfig writes and builds the webhook configurations.
package webhook
