package deploy

import (
	"bytes"
	"context"
	"crypto/tls"
	"encoding/pem"
	"fmt"
	"net"
	"strconv"
	"strings"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// Served is the leaf certificate (PEM) the pod's webhook server presents, read with a TLS
// handshake to the pod's own address.
func (p *Pod) Served() ([]byte, error) {
	d := &net.Dialer{Timeout: 2 * time.Second}
	conn, err := tls.DialWithDialer(d, "tcp", net.JoinHostPort(p.Link.PodIP, strconv.Itoa(p.Spec.WebhookPort)), &tls.Config{InsecureSkipVerify: true}) //nolint:gosec // only the served bytes are compared
	if err != nil {
		return nil, err
	}
	defer conn.Close()
	certs := conn.ConnectionState().PeerCertificates
	if len(certs) == 0 {
		return nil, fmt.Errorf("%s presented no certificate", p.Name)
	}
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: certs[0].Raw}), nil
}

// ServesCert reports whether every pod presents crt, and which do not.
func (c *Cluster) ServesCert(crt []byte) (bool, string) {
	var stale []string
	for _, p := range c.Pods() {
		got, err := p.Served()
		if err != nil || !bytes.Equal(bytes.TrimSpace(got), bytes.TrimSpace(crt)) {
			stale = append(stale, fmt.Sprintf("%s (%v)", p.Name, err))
		}
	}
	return len(stale) == 0, "still serving the old certificate: " + strings.Join(stale, ", ")
}

// Policy is a RateLimitPolicy in ns targeting kind/name, with spec fields over the target.
func Policy(ns, name, kind, target string, spec map[string]interface{}) *unstructured.Unstructured {
	u := &unstructured.Unstructured{}
	u.SetGroupVersionKind(rlp)
	u.SetNamespace(ns)
	u.SetName(name)
	s := map[string]interface{}{"targetRef": map[string]interface{}{"group": "gateway.networking.k8s.io", "kind": kind, "name": target}}
	for k, v := range spec {
		s[k] = v
	}
	u.Object["spec"] = s
	return u
}

// Limits is a limits map with one limit.
func Limits(id string, limit int64) map[string]interface{} {
	return map[string]interface{}{id: map[string]interface{}{"rates": []interface{}{map[string]interface{}{"limit": limit, "window": "1m"}}}}
}

// Accepted reads the policy's Accepted condition: status and reason, and whether it describes the
// policy's current generation.
func Accepted(ctx context.Context, c client.Client, ns, name string) (status, reason string, current bool, err error) {
	u := &unstructured.Unstructured{}
	u.SetGroupVersionKind(rlp)
	if err := c.Get(ctx, client.ObjectKey{Namespace: ns, Name: name}, u); err != nil {
		return "", "", false, err
	}
	conds, _, _ := unstructured.NestedSlice(u.Object, "status", "conditions")
	for _, x := range conds {
		m, _ := x.(map[string]interface{})
		if m["type"] != "Accepted" {
			continue
		}
		og, _, _ := unstructured.NestedInt64(m, "observedGeneration")
		s, _ := m["status"].(string)
		r, _ := m["reason"].(string)
		return s, r, og == u.GetGeneration(), nil
	}
	return "", "", false, nil
}

// Decided reports whether a server-side dry-run create of obj comes back as want: "" for admitted,
// else a text the webhook's denial contains.
func Decided(ctx context.Context, c client.Client, obj *unstructured.Unstructured, want string) (bool, string) {
	err := c.Create(ctx, obj.DeepCopy(), client.DryRunAll)
	if want == "" {
		return err == nil, fmt.Sprint(err)
	}
	return apierrors.IsInvalid(err) && strings.Contains(err.Error(), "denied the request") && strings.Contains(err.Error(), want), fmt.Sprint(err)
}
