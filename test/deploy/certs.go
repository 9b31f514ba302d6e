package deploy

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/base64"
	"encoding/pem"
	"fmt"
	"math/big"
	"os"
	"path/filepath"
	"time"
)

// Issuer plays cert-manager with a CA Issuer: one CA, serving certificates signed by it.
type Issuer struct {
	CAPEM, KeyPEM []byte
	cert          *x509.Certificate
	key           *ecdsa.PrivateKey
	servingFor    time.Duration
}

// NewIssuer makes a CA valid for a day.
func NewIssuer() (*Issuer, error) {
	return NewIssuerValid(24*time.Hour, 24*time.Hour)
}

// NewIssuerValid makes a CA valid for caFor from now, whose serving certificates are valid for
// servingFor.
func NewIssuerValid(caFor, servingFor time.Duration) (*Issuer, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, err
	}
	tmpl := &x509.Certificate{
		SerialNumber: serial(), Subject: pkix.Name{CommonName: "deploy-test-ca"},
		NotBefore: time.Now().Add(-time.Minute), NotAfter: time.Now().Add(caFor),
		IsCA: true, BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign | x509.KeyUsageDigitalSignature,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		return nil, err
	}
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		return nil, err
	}
	kb, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		return nil, err
	}
	return &Issuer{
		CAPEM: pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), KeyPEM: pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: kb}),
		cert: cert, key: key, servingFor: servingFor,
	}, nil
}

// Serving signs a new serving certificate (and a new key: rotationPolicy Always) for dnsNames.
func (i *Issuer) Serving(dnsNames ...string) (certPEM, keyPEM []byte, err error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, nil, err
	}
	tmpl := &x509.Certificate{
		SerialNumber: serial(), Subject: pkix.Name{CommonName: dnsNames[0]}, DNSNames: dnsNames,
		NotBefore: time.Now().Add(-time.Minute), NotAfter: time.Now().Add(i.servingFor),
		KeyUsage: x509.KeyUsageDigitalSignature, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, i.cert, &key.PublicKey, i.key)
	if err != nil {
		return nil, nil, err
	}
	kb, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		return nil, nil, err
	}
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: kb}), nil
}

func serial() *big.Int {
	n, _ := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 62))
	return n
}

// WriteVolume writes files into dir the way the kubelet updates a Secret volume: into a new
// timestamped folder, then one atomic rename of the ..data symlink; each file is a symlink through
// ..data, so a reader sees the old set or the new set, never a mix.
func WriteVolume(dir string, files map[string][]byte) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	ts, err := os.MkdirTemp(dir, "..data-")
	if err != nil {
		return err
	}
	for name, b := range files {
		if err := os.WriteFile(filepath.Join(ts, name), b, 0o644); err != nil {
			return err
		}
	}
	old, _ := os.Readlink(filepath.Join(dir, "..data"))
	tmp := filepath.Join(dir, "..data_tmp")
	_ = os.Remove(tmp)
	if err := os.Symlink(filepath.Base(ts), tmp); err != nil {
		return err
	}
	if err := os.Rename(tmp, filepath.Join(dir, "..data")); err != nil {
		return fmt.Errorf("swapping ..data: %w", err)
	}
	for name := range files {
		link := filepath.Join(dir, name)
		if _, err := os.Lstat(link); err == nil {
			continue
		}
		if err := os.Symlink(filepath.Join("..data", name), link); err != nil {
			return err
		}
	}
	if old != "" {
		_ = os.RemoveAll(filepath.Join(dir, old))
	}
	return nil
}

// Kubeconfig is a kubeconfig for server, trusting ca, verifying the server as serverName,
// authenticating with a bearer token.
func Kubeconfig(server, serverName string, ca []byte, token string) []byte {
	return []byte(fmt.Sprintf(`apiVersion: v1
kind: Config
clusters:
- name: cluster
  cluster:
    server: %s
    tls-server-name: %s
    certificate-authority-data: %s
users:
- name: sa
  user:
    token: %s
contexts:
- name: sa
  context: {cluster: cluster, user: sa}
current-context: sa
`, server, serverName, b64(ca), token))
}

func b64(b []byte) string { return base64.StdEncoding.EncodeToString(b) }
