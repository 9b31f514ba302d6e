package certs

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/go-logr/logr"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/util/retry"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// Keys of the bootstrap Secret.
const (
	secretCA    = "ca.crt"
	secretCAKey = "ca.key"
)

// Bootstrap is the built-in mode for clusters without cert-manager: a CA and a serving certificate
// kept in a Secret, the CA injected as caBundle into the webhook configurations, and the serving
// certificate rotated before it expires. It is safe with several replicas: the Secret is the one
// source of truth and every write is a compare-and-swap on its resourceVersion, so concurrent
// replicas converge on the same certificate.
type Bootstrap struct {
	// Client reads and writes the Secret and the webhook configurations (a direct client: the
	// manager's cache does not run yet when Ensure is first called).
	Client client.Client
	// Secret is where the CA and the serving certificate live.
	Secret types.NamespacedName
	// DNSNames of the webhook Service, e.g. precedent-webhook.precedent-system.svc.
	DNSNames []string
	// CertDir is where tls.crt and tls.key are written for the webhook server.
	CertDir string
	// Mutating and Validating are the names of the webhook configurations to inject.
	Mutating, Validating string
	// CAValidFor, ServingValidFor and RenewBefore set lifetimes (defaults: 10 years, 90 days, 30 days).
	CAValidFor, ServingValidFor, RenewBefore time.Duration
	// Check is how often the Secret is re-read (default: 1 hour).
	Check time.Duration
	Log   logr.Logger
	// Now is the clock (default time.Now; tests move it to exercise rotation).
	Now func() time.Time
}

func (b *Bootstrap) defaults() {
	if b.CAValidFor == 0 {
		b.CAValidFor = 10 * 365 * 24 * time.Hour
	}
	if b.ServingValidFor == 0 {
		b.ServingValidFor = 90 * 24 * time.Hour
	}
	if b.RenewBefore == 0 {
		b.RenewBefore = 30 * 24 * time.Hour
	}
	if b.Check == 0 {
		b.Check = time.Hour
	}
	if b.Now == nil {
		b.Now = time.Now
	}
}

// Ensure makes the Secret hold a valid CA and serving certificate (creating or rotating them),
// writes the serving pair into CertDir and injects the CA into the webhook configurations.
func (b *Bootstrap) Ensure(ctx context.Context) error {
	b.defaults()
	var sec *corev1.Secret
	err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
		var err error
		sec, err = b.reconcileSecret(ctx)
		return err
	})
	if err != nil {
		return err
	}
	if err := b.writeFiles(sec); err != nil {
		return err
	}
	return b.inject(ctx, sec.Data[secretCA])
}

// reconcileSecret returns the Secret, after creating it or rotating what needs it.
func (b *Bootstrap) reconcileSecret(ctx context.Context) (*corev1.Secret, error) {
	sec := &corev1.Secret{}
	err := b.Client.Get(ctx, b.Secret, sec)
	create := apierrors.IsNotFound(err)
	if err != nil && !create {
		return nil, fmt.Errorf("reading Secret %s: %w", b.Secret, err)
	}
	if create {
		sec = &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: b.Secret.Namespace, Name: b.Secret.Name}, Type: corev1.SecretTypeTLS}
	}
	changed, err := b.refresh(sec)
	if err != nil || !changed {
		return sec, err
	}
	if create {
		err = b.Client.Create(ctx, sec)
		if apierrors.IsAlreadyExists(err) {
			return nil, apierrors.NewConflict(corev1.Resource("secrets"), b.Secret.Name, err) // another replica won: read theirs
		}
	} else {
		err = b.Client.Update(ctx, sec) // a conflict means another replica rotated first: retry reads theirs
	}
	if err != nil {
		return nil, err
	}
	b.Log.Info("serving certificate issued", "secret", b.Secret.String(), "notAfter", b.notAfter(sec).Format(time.RFC3339))
	return sec, nil
}

// refresh fills or rotates the Secret's data in place; it reports whether anything changed.
func (b *Bootstrap) refresh(sec *corev1.Secret) (bool, error) {
	if sec.Data == nil {
		sec.Data = map[string][]byte{}
	}
	now := b.Now()
	ca, err := loadAuthority(sec.Data[secretCA], sec.Data[secretCAKey])
	caStale := err != nil || now.Add(b.RenewBefore).After(ca.cert.NotAfter)
	if caStale {
		var keyPEM []byte
		ca, keyPEM, err = newAuthority("precedent-ca", b.CAValidFor)
		if err != nil {
			return false, err
		}
		sec.Data[secretCA], sec.Data[secretCAKey] = ca.pem, keyPEM
	}
	if !caStale && !b.servingStale(sec, ca, now) {
		return false, nil
	}
	cert, key, err := ca.serving(b.DNSNames, nil, b.ServingValidFor)
	if err != nil {
		return false, err
	}
	sec.Data[corev1.TLSCertKey], sec.Data[corev1.TLSPrivateKeyKey] = cert, key
	return true, nil
}

func (b *Bootstrap) servingStale(sec *corev1.Secret, ca *authority, now time.Time) bool {
	cert, err := parseCert(sec.Data[corev1.TLSCertKey])
	if err != nil || len(sec.Data[corev1.TLSPrivateKeyKey]) == 0 {
		return true
	}
	if now.Add(b.RenewBefore).After(cert.NotAfter) || cert.CheckSignatureFrom(ca.cert) != nil {
		return true
	}
	for _, n := range b.DNSNames {
		if cert.VerifyHostname(n) != nil {
			return true
		}
	}
	return false
}

func (b *Bootstrap) notAfter(sec *corev1.Secret) time.Time {
	if c, err := parseCert(sec.Data[corev1.TLSCertKey]); err == nil {
		return c.NotAfter
	}
	return time.Time{}
}

// writeFiles writes the serving pair when it differs from what is on disk (write then rename, so
// the webhook server's certwatcher never reads half a file).
func (b *Bootstrap) writeFiles(sec *corev1.Secret) error {
	if err := os.MkdirAll(b.CertDir, 0o700); err != nil {
		return fmt.Errorf("creating %s: %w", b.CertDir, err)
	}
	for name, data := range map[string][]byte{KeyName: sec.Data[corev1.TLSPrivateKeyKey], CertName: sec.Data[corev1.TLSCertKey]} {
		path := filepath.Join(b.CertDir, name)
		if cur, err := os.ReadFile(path); err == nil && bytes.Equal(cur, data) {
			continue
		}
		tmp := path + ".tmp"
		if err := os.WriteFile(tmp, data, 0o600); err != nil {
			return fmt.Errorf("writing %s: %w", tmp, err)
		}
		if err := os.Rename(tmp, path); err != nil {
			return fmt.Errorf("replacing %s: %w", path, err)
		}
	}
	return nil
}

// inject sets caBundle on every webhook of the two configurations, when it differs.
func (b *Bootstrap) inject(ctx context.Context, caPEM []byte) error {
	mutating := &admissionregistrationv1.MutatingWebhookConfiguration{}
	validating := &admissionregistrationv1.ValidatingWebhookConfiguration{}
	for _, t := range []struct {
		kind    string
		name    string
		obj     client.Object
		configs func() []*admissionregistrationv1.WebhookClientConfig
	}{
		{"MutatingWebhookConfiguration", b.Mutating, mutating, func() (out []*admissionregistrationv1.WebhookClientConfig) {
			for i := range mutating.Webhooks {
				out = append(out, &mutating.Webhooks[i].ClientConfig)
			}
			return out
		}},
		{"ValidatingWebhookConfiguration", b.Validating, validating, func() (out []*admissionregistrationv1.WebhookClientConfig) {
			for i := range validating.Webhooks {
				out = append(out, &validating.Webhooks[i].ClientConfig)
			}
			return out
		}},
	} {
		if t.name == "" {
			continue
		}
		err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
			if err := b.Client.Get(ctx, types.NamespacedName{Name: t.name}, t.obj); err != nil {
				return err
			}
			changed := false
			for _, cc := range t.configs() {
				if !bytes.Equal(cc.CABundle, caPEM) {
					cc.CABundle, changed = caPEM, true
				}
			}
			if !changed {
				return nil
			}
			return b.Client.Update(ctx, t.obj)
		})
		if err != nil && !apierrors.IsNotFound(err) {
			return fmt.Errorf("injecting the CA into %s %s: %w", t.kind, t.name, err)
		}
	}
	return nil
}

// Start keeps the certificate fresh until ctx ends (a manager Runnable on every replica).
func (b *Bootstrap) Start(ctx context.Context) error {
	b.defaults()
	t := time.NewTicker(b.Check)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-t.C:
			if err := b.Ensure(ctx); err != nil {
				b.Log.Error(err, "refreshing the serving certificate")
			}
		}
	}
}

// NeedLeaderElection is false: every replica serves webhooks and needs the files.
func (b *Bootstrap) NeedLeaderElection() bool { return false }
