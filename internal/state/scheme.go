package state

import (
	"k8s.io/apimachinery/pkg/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"
)

// NewScheme knows the built-in kinds and the Gateway API kinds the state watches typed; policies
// are read unstructured.
func NewScheme() (*runtime.Scheme, error) {
	s := runtime.NewScheme()
	if err := clientgoscheme.AddToScheme(s); err != nil {
		return nil, err
	}
	if err := gwv1.Install(s); err != nil {
		return nil, err
	}
	return s, nil
}
