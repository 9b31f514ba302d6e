// Package certs provides the webhook server's serving certificates. In dev mode it makes an
// in-memory self-signed CA and a serving certificate for 127.0.0.1/localhost and writes them where
// controller-runtime's webhook server (which reloads them through certwatcher) reads them. In
// production, cert-manager issues them (manifests in config/certmanager), or the built-in mode
// (Bootstrap) keeps a CA and a serving certificate in a Secret, injects the CA into the webhook
// configurations and rotates the certificate before it expires.
package certs
