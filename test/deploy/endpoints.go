package deploy

import (
	"context"
	"fmt"
	"sort"
	"sync"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/util/retry"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// Endpoints plays the EndpointSlice controller for one Service: it keeps one EndpointSlice with the
// pods the test says are there, ready, or terminating.
type Endpoints struct {
	c         client.Client
	namespace string
	service   string
	portName  string
	port      int32

	mu  sync.Mutex
	eps map[string]discoveryv1.EndpointConditions // by pod address
}

// NewEndpoints drives the EndpointSlice of service (its port portName, served by the pods on port).
func NewEndpoints(c client.Client, namespace, service, portName string, port int32) *Endpoints {
	return &Endpoints{c: c, namespace: namespace, service: service, portName: portName, port: port, eps: map[string]discoveryv1.EndpointConditions{}}
}

// Ready adds the pod's address as a ready endpoint (its readiness probe passed).
func (e *Endpoints) Ready(ctx context.Context, ip string) error {
	return e.set(ctx, ip, &discoveryv1.EndpointConditions{Ready: ptr.To(true), Serving: ptr.To(true), Terminating: ptr.To(false)})
}

// NotReady marks the pod's endpoint not ready (its readiness probe fails).
func (e *Endpoints) NotReady(ctx context.Context, ip string) error {
	return e.set(ctx, ip, &discoveryv1.EndpointConditions{Ready: ptr.To(false), Serving: ptr.To(false), Terminating: ptr.To(false)})
}

// Terminating marks the pod's endpoint not ready, terminating, as the controller does once the pod
// is being deleted: the API server no longer picks it.
func (e *Endpoints) Terminating(ctx context.Context, ip string) error {
	return e.set(ctx, ip, &discoveryv1.EndpointConditions{Ready: ptr.To(false), Serving: ptr.To(true), Terminating: ptr.To(true)})
}

// Remove drops the pod's endpoint (the pod is gone).
func (e *Endpoints) Remove(ctx context.Context, ip string) error {
	return e.set(ctx, ip, nil)
}

func (e *Endpoints) set(ctx context.Context, ip string, cond *discoveryv1.EndpointConditions) error {
	e.mu.Lock()
	defer e.mu.Unlock()
	if cond == nil {
		delete(e.eps, ip)
	} else {
		e.eps[ip] = *cond
	}
	return retry.RetryOnConflict(retry.DefaultRetry, func() error {
		want := e.slice()
		cur := &discoveryv1.EndpointSlice{}
		err := e.c.Get(ctx, client.ObjectKeyFromObject(want), cur)
		if apierrors.IsNotFound(err) {
			return e.c.Create(ctx, want)
		}
		if err != nil {
			return err
		}
		want.ResourceVersion = cur.ResourceVersion
		if err := e.c.Update(ctx, want); err != nil {
			return fmt.Errorf("updating EndpointSlice %s/%s: %w", want.Namespace, want.Name, err)
		}
		return nil
	})
}

func (e *Endpoints) slice() *discoveryv1.EndpointSlice {
	s := &discoveryv1.EndpointSlice{
		ObjectMeta: metav1.ObjectMeta{
			Namespace: e.namespace, Name: e.service + "-test",
			Labels: map[string]string{discoveryv1.LabelServiceName: e.service, discoveryv1.LabelManagedBy: "deploy-test"},
		},
		AddressType: discoveryv1.AddressTypeIPv4,
		Ports:       []discoveryv1.EndpointPort{{Name: ptr.To(e.portName), Port: ptr.To(e.port), Protocol: ptr.To(corev1.ProtocolTCP)}},
		Endpoints:   []discoveryv1.Endpoint{},
	}
	ips := make([]string, 0, len(e.eps))
	for ip := range e.eps {
		ips = append(ips, ip)
	}
	sort.Strings(ips)
	for _, ip := range ips {
		s.Endpoints = append(s.Endpoints, discoveryv1.Endpoint{Addresses: []string{ip}, Conditions: e.eps[ip]})
	}
	return s
}
