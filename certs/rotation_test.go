package certs

import (
	"crypto/x509"
	"encoding/pem"
	"maps"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
)

var (
	t0    = time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)
	hours = func(n float64) time.Time { return t0.Add(time.Duration(n * float64(time.Hour))) }
	short = Lifetimes{
		CAValidFor: 100 * time.Hour, CARenewBefore: 20 * time.Hour,
		ServingValidFor: 10 * time.Hour, ServingRenewBefore: 3 * time.Hour,
		Settle: time.Minute, Overlap: 10 * time.Minute, DNSNames: []string{"localhost"},
	}
)

// summary is what a plan says, with CAs named by their role in the test.
type summary struct {
	Step        Step
	Wake        time.Time
	Bundle      []string // CAs in ca-bundle.crt, in order ("other": one the test did not name)
	Signer      string   // CA that signed tls.crt
	Generation  int64
	PublishedAt string
	SwitchedAt  string
	NewServing  bool // tls.crt differs from the input's
}

func summarise(t *testing.T, in map[string][]byte, p Plan, names map[string]string) summary {
	t.Helper()
	s := summary{Step: p.Step, Wake: p.Wake}
	if p.Data == nil {
		return s
	}
	name := func(der []byte) string {
		if n, ok := names[string(der)]; ok {
			return n
		}
		return "other"
	}
	for rest := p.Data[KeyBundle]; ; {
		var b *pem.Block
		if b, rest = pem.Decode(rest); b == nil {
			break
		}
		s.Bundle = append(s.Bundle, name(b.Bytes))
	}
	leaf, err := parseCert(p.Data[corev1.TLSCertKey])
	if err != nil {
		t.Fatalf("serving certificate: %v", err)
	}
	for _, k := range []string{KeyCA, KeyNextCA, KeyPreviousCA} {
		if ca, err := parseCert(p.Data[k]); err == nil && leaf.CheckSignatureFrom(ca) == nil {
			s.Signer = name(ca.Raw)
		}
	}
	s.Generation = Generation(p.Data)
	s.PublishedAt, s.SwitchedAt = string(p.Data[KeyPublishedAt]), string(p.Data[KeySwitchedAt])
	s.NewServing = string(in[corev1.TLSCertKey]) != string(p.Data[corev1.TLSCertKey])
	return s
}

func mustNext(t *testing.T, data map[string][]byte, now time.Time, carried bool) map[string][]byte {
	t.Helper()
	p, err := Next(data, now, carried, short)
	if err != nil || p.Data == nil {
		t.Fatalf("Next at %s: step %q, %v", now, p.Step, err)
	}
	return p.Data
}

func der(t *testing.T, certPEM []byte) string {
	t.Helper()
	c, err := parseCert(certPEM)
	if err != nil {
		t.Fatal(err)
	}
	return string(c.Raw)
}

func TestNextWalksTheRotation(t *testing.T) {
	issued := mustNext(t, nil, t0, true)
	fresh := mustNext(t, issued, hours(77), true)    // a serving certificate valid until 87 h
	published := mustNext(t, fresh, hours(80), true) // the CA is due 20 h before its end
	carried := mustNext(t, published, hours(80), true)
	switched := mustNext(t, carried, hours(80).Add(time.Minute), true)
	long := short
	long.ServingValidFor = 1000 * time.Hour
	clipped, err := Next(issued, hours(7), true, long) // a serving certificate ending with its CA
	if err != nil {
		t.Fatal(err)
	}
	names := map[string]string{der(t, issued[KeyCA]): "old", der(t, published[KeyNextCA]): "new"}
	at := func(tm time.Time) string { return tm.UTC().Format(time.RFC3339) }
	unreadable := maps.Clone(switched)
	unreadable[KeyCA] = []byte("not a certificate")
	renamed := Lifetimes(short)
	renamed.DNSNames = []string{"precedent-webhook.precedent-system.svc"}

	for _, tc := range []struct {
		name    string
		data    map[string][]byte
		now     time.Time
		carried bool
		l       *Lifetimes
		want    summary
	}{{
		name: "nothing issues a CA, a serving certificate it signed and a bundle of it",
		now:  t0, carried: true,
		want: summary{Step: StepIssue, Bundle: []string{"other"}, Signer: "other", Generation: 1, NewServing: true},
	}, {
		name: "stable waits for the serving certificate's renewal, the earliest deadline",
		data: issued, now: hours(1), carried: true,
		want: summary{Wake: hours(7)},
	}, {
		name: "serving certificate due is renewed by the same CA, the bundle untouched",
		data: issued, now: hours(7), carried: true,
		want: summary{Step: StepRenew, Wake: hours(80), Bundle: []string{"old"}, Signer: "old", Generation: 1, NewServing: true},
	}, {
		name: "serving certificate ending with its CA waits for the CA's rotation",
		data: clipped.Data, now: hours(79), carried: true, l: &long,
		want: summary{Wake: hours(80)},
	}, {
		name: "serving certificate without a configured name is renewed",
		data: issued, now: hours(1), carried: true, l: &renamed,
		want: summary{Step: StepRenew, Wake: hours(80), Bundle: []string{"old"}, Signer: "old", Generation: 1, NewServing: true},
	}, {
		name: "CA due publishes old and new CA before the new one signs anything",
		data: fresh, now: hours(80), carried: true,
		want: summary{Step: StepPublish, Bundle: []string{"old", "other"}, Signer: "old", Generation: 2},
	}, {
		name: "published but not yet in every configuration waits for the injection",
		data: published, now: hours(80), carried: false,
		want: summary{Wake: hours(84)}, // or the serving certificate's renewal
	}, {
		name: "every configuration carries both CAs: recorded, settling starts",
		data: published, now: hours(80), carried: true,
		want: summary{Step: StepPublished, Wake: hours(80).Add(time.Minute), Bundle: []string{"old", "new"}, Signer: "old", Generation: 2, PublishedAt: at(hours(80))},
	}, {
		name: "settling waits its minute",
		data: carried, now: hours(80).Add(30 * time.Second), carried: true,
		want: summary{Wake: hours(80).Add(time.Minute)},
	}, {
		name: "a configuration lost the bundle while settling: the record is dropped",
		data: carried, now: hours(80).Add(30 * time.Second), carried: false,
		want: summary{Step: StepUnpublished, Bundle: []string{"old", "new"}, Signer: "old", Generation: 2},
	}, {
		name: "settled: serve from the new CA, the bundle's bytes and generation unchanged",
		data: carried, now: hours(80).Add(time.Minute), carried: true,
		want: summary{Step: StepSwitch, Wake: hours(80).Add(11 * time.Minute), Bundle: []string{"old", "new"}, Signer: "new", Generation: 2, SwitchedAt: at(hours(80).Add(time.Minute)), NewServing: true},
	}, {
		name: "settled but a configuration lost the bundle: no switch",
		data: carried, now: hours(80).Add(time.Minute), carried: false,
		want: summary{Step: StepUnpublished, Bundle: []string{"old", "new"}, Signer: "old", Generation: 2},
	}, {
		name: "overlap waits until the old serving certificates are gone",
		data: switched, now: hours(80).Add(5 * time.Minute), carried: true,
		want: summary{Wake: hours(80).Add(11 * time.Minute)},
	}, {
		name: "overlap over: the old CA leaves the bundle",
		data: switched, now: hours(80).Add(11 * time.Minute), carried: true,
		want: summary{Step: StepRetire, Bundle: []string{"new"}, Signer: "new", Generation: 3},
	}, {
		name: "an unreadable CA starts over, counting on from the generation",
		data: unreadable, now: hours(81), carried: true,
		want: summary{Step: StepIssue, Bundle: []string{"other"}, Signer: "other", Generation: 3, NewServing: true},
	}} {
		t.Run(tc.name, func(t *testing.T) {
			l := short
			if tc.l != nil {
				l = *tc.l
			}
			in := maps.Clone(tc.data)
			p, err := Next(tc.data, tc.now, tc.carried, l)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, summarise(t, tc.data, p, names)); diff != "" {
				t.Errorf("plan (-want +got):\n%s", diff)
			}
			if !maps.EqualFunc(in, tc.data, func(a, b []byte) bool { return string(a) == string(b) }) {
				t.Error("Next changed its input")
			}
		})
	}
}

// TestNextNeverServesAnUntrustedCertificate walks many rotations with a bundle that reaches the
// configurations only every other look, and checks after each step that every serving certificate
// that may still be in use verifies against what the configurations carry.
func TestNextNeverServesAnUntrustedCertificate(t *testing.T) {
	type served struct {
		cert       []byte
		replacedAt time.Time // zero while it is the Secret's
	}
	var data map[string][]byte
	var configured []byte                  // the bundle the webhook configurations carry
	var inUse []served                     // serving certificates replicas may still present: replaced less than Overlap ago
	now, end := t0, t0.Add(1000*time.Hour) // ten CA lifetimes
	steps := map[Step]int{}
	for i := 0; now.Before(end); i++ {
		p, err := Next(data, now, string(configured) == string(data[KeyBundle]), short)
		if err != nil {
			t.Fatal(err)
		}
		steps[p.Step]++
		if p.Data != nil && string(p.Data[corev1.TLSCertKey]) != string(data[corev1.TLSCertKey]) {
			for j := range inUse {
				if inUse[j].replacedAt.IsZero() {
					inUse[j].replacedAt = now
				}
			}
			inUse = append(inUse, served{cert: p.Data[corev1.TLSCertKey]})
		}
		if p.Data != nil {
			data = p.Data
		}
		if i%2 == 1 || configured == nil { // the injector catches up every other look
			configured = data[KeyBundle]
		}
		roots := x509.NewCertPool()
		roots.AppendCertsFromPEM(configured)
		kept := inUse[:0]
		for _, s := range inUse {
			if !s.replacedAt.IsZero() && !now.Before(s.replacedAt.Add(short.Overlap)) {
				continue
			}
			kept = append(kept, s)
			leaf, _ := parseCert(s.cert)
			if _, err := leaf.Verify(x509.VerifyOptions{Roots: roots, DNSName: "localhost", CurrentTime: now}); err != nil {
				t.Fatalf("at %s after %q: a serving certificate in use is not trusted: %v", now, p.Step, err)
			}
		}
		inUse = kept
		next := p.Wake
		if next.IsZero() || next.After(now.Add(time.Hour)) {
			next = now.Add(time.Hour)
		}
		if !next.After(now) {
			next = now.Add(time.Second)
		}
		now = next
	}
	if steps[StepSwitch] < 9 || steps[StepRetire] != steps[StepSwitch] || steps[StepIssue] != 1 {
		t.Errorf("steps over ten CA lifetimes: %v; want one issue and a switch and a retire per rotation", steps)
	}
}
