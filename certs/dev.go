package certs

import (
	"fmt"
	"net"
	"os"
	"path/filepath"
	"time"
)

// File names inside a certificate directory, as controller-runtime's webhook server expects them.
const (
	CertName = "tls.crt"
	KeyName  = "tls.key"
)

// Dev is a self-signed CA and a serving certificate it signed, all in memory (PEM).
type Dev struct {
	CAPEM   []byte
	CertPEM []byte
	KeyPEM  []byte
}

// NewDev makes a CA and a serving certificate for 127.0.0.1, ::1 and localhost, valid for validFor.
func NewDev(validFor time.Duration) (*Dev, error) {
	now := time.Now()
	ca, _, err := newAuthority("precedent-dev-ca", now, validFor)
	if err != nil {
		return nil, err
	}
	cert, key, err := ca.serving([]string{"localhost"}, []net.IP{net.ParseIP("127.0.0.1"), net.IPv6loopback}, now, validFor)
	if err != nil {
		return nil, err
	}
	return &Dev{CAPEM: ca.pem, CertPEM: cert, KeyPEM: key}, nil
}

// WriteDir writes tls.crt and tls.key into dir (created 0700) for the webhook server.
func (d *Dev) WriteDir(dir string) error {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("creating %s: %w", dir, err)
	}
	if err := os.WriteFile(filepath.Join(dir, CertName), d.CertPEM, 0o600); err != nil {
		return fmt.Errorf("writing the serving certificate: %w", err)
	}
	if err := os.WriteFile(filepath.Join(dir, KeyName), d.KeyPEM, 0o600); err != nil {
		return fmt.Errorf("writing the serving key: %w", err)
	}
	return nil
}
