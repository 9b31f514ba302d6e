package certs

import (
	"bytes"
	"fmt"
	"maps"
	"strconv"
	"time"

	corev1 "k8s.io/api/core/v1"
)

// Keys of the built-in mode's Secret. tls.crt and tls.key (corev1.TLSCertKey, TLSPrivateKeyKey) hold
// the serving pair every replica serves; the others hold the rotation's state.
const (
	// KeyCA and KeyCAKey are the CA that signs the serving certificate.
	KeyCA    = "ca.crt"
	KeyCAKey = "ca.key"
	// KeyNextCA and KeyNextCAKey are a CA being introduced: trusted, not yet signing.
	KeyNextCA    = "next-ca.crt"
	KeyNextCAKey = "next-ca.key"
	// KeyPreviousCA is a CA being retired: still trusted, no longer signing.
	KeyPreviousCA = "previous-ca.crt"
	// KeyBundle is what the webhook configurations' caBundle must hold: previous, current and next
	// CA, oldest first, so the bytes do not change when the next CA becomes the current one.
	KeyBundle = "ca-bundle.crt"
	// KeyGeneration counts the bundle's changes; the injector writes it on the webhook
	// configurations so a replica with an older view of the Secret never overwrites a newer bundle.
	KeyGeneration = "bundle-generation"
	// KeyPublishedAt is when every webhook configuration was first seen carrying a bundle with the
	// next CA (RFC 3339).
	KeyPublishedAt = "published-at"
	// KeySwitchedAt is when the serving certificate switched to the new CA (RFC 3339).
	KeySwitchedAt = "switched-at"
)

// Lifetimes are the built-in mode's durations and the serving certificate's names.
type Lifetimes struct {
	// CAValidFor is a CA's lifetime; a new CA is introduced CARenewBefore its end.
	CAValidFor, CARenewBefore time.Duration
	// ServingValidFor is a serving certificate's lifetime (never beyond its CA); it is renewed
	// ServingRenewBefore its end.
	ServingValidFor, ServingRenewBefore time.Duration
	// Settle is how long the bundle with both CAs must have been in every webhook configuration
	// before a serving certificate from the new CA is served: the time every API server needs to
	// see the configurations change.
	Settle time.Duration
	// Overlap is how long the old CA stays in the bundle after the switch: the time every replica
	// needs to serve the new serving certificate (they watch the Secret, so seconds).
	Overlap time.Duration
	// DNSNames are the serving certificate's names.
	DNSNames []string
}

// DefaultLifetimes: a 10-year CA replaced a year before its end, 90-day serving certificates renewed
// 30 days before theirs, a minute to settle and ten minutes of overlap.
func DefaultLifetimes(dnsNames []string) Lifetimes {
	day := 24 * time.Hour
	return Lifetimes{
		CAValidFor: 10 * 365 * day, CARenewBefore: 365 * day,
		ServingValidFor: 90 * day, ServingRenewBefore: 30 * day,
		Settle: time.Minute, Overlap: 10 * time.Minute, DNSNames: dnsNames,
	}
}

// Step names a transition of the rotation.
type Step string

const (
	// StepNone: nothing to do until Plan.Wake or a webhook configuration changes.
	StepNone Step = ""
	// StepIssue makes a CA and a serving certificate from nothing (or from unreadable data).
	StepIssue Step = "issue"
	// StepPublish introduces the next CA into the bundle, before it signs anything.
	StepPublish Step = "publish"
	// StepPublished records that every webhook configuration carries the bundle with both CAs.
	StepPublished Step = "published"
	// StepUnpublished forgets that record: a configuration lost the bundle, the settling restarts.
	StepUnpublished Step = "unpublished"
	// StepSwitch makes the next CA the current one and serves a certificate it signed.
	StepSwitch Step = "switch"
	// StepRetire drops the old CA from the bundle.
	StepRetire Step = "retire"
	// StepRenew signs a new serving certificate with the current CA.
	StepRenew Step = "renew"
)

// Plan is the next transition of the Secret's data.
type Plan struct {
	Step Step
	// Data is the Secret's new data (a copy), set when Step is not StepNone.
	Data map[string][]byte
	// Wake is when Plan should be asked again if nothing changes before (zero: no deadline).
	Wake time.Time
}

// Next computes the transition of the Secret's data at now. carried says whether every webhook
// configuration carries the data's current bundle (true when there are none: nobody calls a
// webhook that is not configured). Next does no I/O; applying its Data is a compare-and-swap on the
// Secret, so replicas that plan at once agree on one outcome.
func Next(data map[string][]byte, now time.Time, carried bool, l Lifetimes) (Plan, error) {
	ca, err := loadAuthority(data[KeyCA], data[KeyCAKey])
	if err != nil {
		return issue(Generation(data), now, l)
	}
	out := maps.Clone(data)
	if _, ok := data[KeyNextCA]; ok {
		return publishing(out, ca, now, carried, l)
	}
	if prev, ok := data[KeyPreviousCA]; ok {
		switched, err := time.Parse(time.RFC3339, string(data[KeySwitchedAt]))
		if _, perr := parseCert(prev); err != nil || perr != nil || !now.Before(switched.Add(l.Overlap)) {
			delete(out, KeyPreviousCA)
			delete(out, KeySwitchedAt)
			return bundled(out, StepRetire)
		}
		return renewOr(out, ca, now, l, switched.Add(l.Overlap))
	}
	rotateAt := ca.cert.NotAfter.Add(-l.CARenewBefore)
	if !now.Before(rotateAt) {
		next, keyPEM, err := newAuthority("precedent-ca", now, l.CAValidFor)
		if err != nil {
			return Plan{}, err
		}
		out[KeyNextCA], out[KeyNextCAKey] = next.pem, keyPEM
		delete(out, KeyPublishedAt)
		return bundled(out, StepPublish)
	}
	return renewOr(out, ca, now, l, rotateAt)
}

// publishing is the phase where the next CA is trusted but does not sign yet.
func publishing(out map[string][]byte, ca *authority, now time.Time, carried bool, l Lifetimes) (Plan, error) {
	next, err := loadAuthority(out[KeyNextCA], out[KeyNextCAKey])
	if err != nil { // unreadable: introduce another one
		delete(out, KeyNextCA)
		delete(out, KeyNextCAKey)
		delete(out, KeyPublishedAt)
		return bundled(out, StepUnpublished)
	}
	published, perr := time.Parse(time.RFC3339, string(out[KeyPublishedAt]))
	switch {
	case !carried && perr == nil:
		delete(out, KeyPublishedAt)
		return Plan{Step: StepUnpublished, Data: out}, nil
	case !carried: // the injector's write of the bundle wakes the planner
		return renewOr(out, ca, now, l, time.Time{})
	case perr != nil:
		out[KeyPublishedAt] = []byte(now.UTC().Format(time.RFC3339))
		return Plan{Step: StepPublished, Data: out, Wake: now.Add(l.Settle)}, nil
	case now.Before(published.Add(l.Settle)):
		return renewOr(out, ca, now, l, published.Add(l.Settle))
	}
	cert, key, err := next.serving(l.DNSNames, nil, now, l.ServingValidFor)
	if err != nil {
		return Plan{}, err
	}
	out[KeyPreviousCA], out[KeyCA], out[KeyCAKey] = ca.pem, next.pem, out[KeyNextCAKey]
	out[corev1.TLSCertKey], out[corev1.TLSPrivateKeyKey] = cert, key
	out[KeySwitchedAt] = []byte(now.UTC().Format(time.RFC3339))
	delete(out, KeyNextCA)
	delete(out, KeyNextCAKey)
	delete(out, KeyPublishedAt)
	p, err := bundled(out, StepSwitch)
	p.Wake = now.Add(l.Overlap)
	return p, err
}

// renewOr renews the serving certificate when it needs it, and otherwise waits until wake or the
// serving certificate's renewal, whichever comes first.
func renewOr(out map[string][]byte, ca *authority, now time.Time, l Lifetimes, wake time.Time) (Plan, error) {
	renewAt, ok := servingRenewal(out, ca, l)
	if ok && now.Before(renewAt) {
		if wake.IsZero() || renewAt.Before(wake) {
			wake = renewAt
		}
		return Plan{Wake: wake}, nil
	}
	cert, key, err := ca.serving(l.DNSNames, nil, now, l.ServingValidFor)
	if err != nil {
		return Plan{}, err
	}
	out[corev1.TLSCertKey], out[corev1.TLSPrivateKeyKey] = cert, key
	if !bytes.Equal(out[KeyBundle], bundleOf(out)) { // repair a bundle edited by hand
		return bundled(out, StepRenew)
	}
	return Plan{Step: StepRenew, Data: out, Wake: wake}, nil
}

// servingRenewal says when the serving certificate is due for renewal; false when it must be
// renewed now (missing, unreadable, not signed by ca, or lacking a name). A certificate that ends
// with its CA is not renewed from that CA: the CA's rotation replaces it.
func servingRenewal(data map[string][]byte, ca *authority, l Lifetimes) (time.Time, bool) {
	cert, err := parseCert(data[corev1.TLSCertKey])
	if err != nil || len(data[corev1.TLSPrivateKeyKey]) == 0 || cert.CheckSignatureFrom(ca.cert) != nil {
		return time.Time{}, false
	}
	for _, n := range l.DNSNames {
		if cert.VerifyHostname(n) != nil {
			return time.Time{}, false
		}
	}
	if !cert.NotAfter.Before(ca.cert.NotAfter) {
		return ca.cert.NotAfter, true
	}
	return cert.NotAfter.Add(-l.ServingRenewBefore), true
}

// issue starts from nothing: a CA, a serving certificate it signed, a bundle of that CA, counting
// on from generation so the new bundle replaces whatever the webhook configurations carry.
func issue(generation int64, now time.Time, l Lifetimes) (Plan, error) {
	ca, keyPEM, err := newAuthority("precedent-ca", now, l.CAValidFor)
	if err != nil {
		return Plan{}, err
	}
	cert, key, err := ca.serving(l.DNSNames, nil, now, l.ServingValidFor)
	if err != nil {
		return Plan{}, err
	}
	return bundled(map[string][]byte{
		KeyCA: ca.pem, KeyCAKey: keyPEM, corev1.TLSCertKey: cert, corev1.TLSPrivateKeyKey: key,
		KeyGeneration: []byte(strconv.FormatInt(generation, 10)),
	}, StepIssue)
}

// bundled recomputes the bundle of out, counting a generation when it changed.
func bundled(out map[string][]byte, step Step) (Plan, error) {
	b := bundleOf(out)
	if !bytes.Equal(out[KeyBundle], b) {
		out[KeyBundle] = b
		out[KeyGeneration] = []byte(strconv.FormatInt(Generation(out)+1, 10))
	}
	return Plan{Step: step, Data: out}, nil
}

// bundleOf is the previous, current and next CA, in that order.
func bundleOf(data map[string][]byte) []byte {
	var b []byte
	for _, k := range []string{KeyPreviousCA, KeyCA, KeyNextCA} {
		b = append(b, data[k]...)
	}
	return b
}

// Generation reads the bundle's generation (0 when absent or unreadable).
func Generation(data map[string][]byte) int64 {
	n, err := strconv.ParseInt(string(data[KeyGeneration]), 10, 64)
	if err != nil {
		return 0
	}
	return n
}

// Describe summarises the data for logs: the step's phase and the CAs' ends.
func Describe(data map[string][]byte) string {
	phase := "stable"
	if _, ok := data[KeyNextCA]; ok {
		phase = "publishing"
	} else if _, ok := data[KeyPreviousCA]; ok {
		phase = "overlap"
	}
	end := "none"
	if c, err := parseCert(data[KeyCA]); err == nil {
		end = c.NotAfter.UTC().Format(time.RFC3339)
	}
	return fmt.Sprintf("%s, generation %d, CA until %s", phase, Generation(data), end)
}
