// Package certs provides the webhook server's serving certificates. In dev mode it makes an
// in-memory self-signed CA and a serving certificate for 127.0.0.1/localhost and writes them where
// controller-runtime's webhook server (which reloads them through certwatcher) reads them. In
// production, cert-manager issues them (manifests in config/certmanager), or the built-in mode
// (Builtin) keeps a CA and a serving certificate in a Secret that every replica watches and serves
// from, re-injects the CA bundle into the webhook configurations whenever one loses it, and rotates
// the CA with old and new trusted together (Next, a pure state machine on the Secret's data).
package certs
