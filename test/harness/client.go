package harness

import (
	"fmt"
	"sync"

	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/precedent-dev/precedent/internal/state"
)

// Recorder collects the warnings the API server returns to one client.
type Recorder struct {
	mu sync.Mutex
	ws []string
}

// HandleWarningHeader records the text of a warning (it is the client's rest.WarningHandler).
func (r *Recorder) HandleWarningHeader(_ int, _ string, text string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.ws = append(r.ws, text)
}

// Take returns and forgets the warnings seen so far.
func (r *Recorder) Take() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	ws := r.ws
	r.ws = nil
	return ws
}

// Client returns the admin client the harness itself uses and the recorder of its warnings; tests
// that assert warnings take their own from NewClient.
func (h *Harness) Client() (client.Client, *Recorder) {
	return h.client, h.rec
}

// NewClient returns a new admin client, with Precedent's scheme, and the recorder of its warnings.
func (h *Harness) NewClient() (client.Client, *Recorder) {
	c, rec, err := h.newClient()
	if err != nil {
		panic(err) // configuration from envtest and a scheme that built at Start: cannot fail
	}
	return c, rec
}

func (h *Harness) newClient() (client.Client, *Recorder, error) {
	scheme, err := state.NewScheme()
	if err != nil {
		return nil, nil, err
	}
	rec := &Recorder{}
	cfg := rest.CopyConfig(h.Env.Config)
	cfg.WarningHandler = rec
	c, err := client.New(cfg, client.Options{Scheme: scheme})
	if err != nil {
		return nil, nil, fmt.Errorf("creating a client: %w", err)
	}
	return c, rec, nil
}
