package assembly

import (
	"context"
	"fmt"
	"time"

	"k8s.io/client-go/tools/leaderelection"
	"k8s.io/client-go/tools/leaderelection/resourcelock"
	ctrlleader "sigs.k8s.io/controller-runtime/pkg/leaderelection"
)

// election runs the status reconciler in terms, one per hold of the Lease: losing the lease (a
// renewal that misses its deadline, as when the API server restarts) ends the term and the replica
// campaigns again, while its informers and webhooks run on. The Lease is the one controller-runtime's
// leader election held before (same name, namespace, lock kind, identity shape and timings), so a
// rollout from a version that exited on a lost lease still elects one leader.
type election struct {
	a    *Assembly
	lock resourcelock.Interface
	o    Options
}

// newElection makes the Lease lock of o (LeaderElectionNamespace empty: the pod's namespace),
// recording its events ("became leader") through the replica's manager.
func (a *Assembly) newElection(o Options) (*election, error) {
	lock, err := ctrlleader.NewResourceLock(o.Config, a.Manager, ctrlleader.Options{
		LeaderElection: true, LeaderElectionResourceLock: resourcelock.LeasesResourceLock,
		LeaderElectionID: LeaderElectionID, LeaderElectionNamespace: o.LeaderElectionNamespace,
		RenewDeadline: o.RenewDeadline,
	})
	if err != nil {
		return nil, fmt.Errorf("making the leader-election lock: %w", err)
	}
	e := &election{a: a, lock: lock, o: o}
	// The durations are checked here, where a bad one stops New, not at each campaign.
	if _, err := e.elector(func(context.Context) {}); err != nil {
		return nil, err
	}
	return e, nil
}

func (e *election) elector(onLeading func(context.Context)) (*leaderelection.LeaderElector, error) {
	return leaderelection.NewLeaderElector(leaderelection.LeaderElectionConfig{
		Lock: e.lock, LeaseDuration: e.o.LeaseDuration, RenewDeadline: e.o.RenewDeadline, RetryPeriod: e.o.RetryPeriod,
		// Released once the term has stopped (campaign), so the next leader starts at once.
		ReleaseOnCancel: true,
		// Names leader_election_master_status on /metrics, as controller-runtime did.
		Name:      LeaderElectionID,
		Callbacks: leaderelection.LeaderCallbacks{OnStartedLeading: onLeading, OnStoppedLeading: func() {}},
	})
}

// run campaigns until ctx ends.
func (e *election) run(ctx context.Context) error {
	log := e.a.log.WithName("leader")
	for ctx.Err() == nil {
		lost, err := e.campaign(ctx)
		switch {
		case err != nil:
			log.Error(err, "running the status reconciler: campaigning again", "after", e.o.RetryPeriod.String())
			select {
			case <-ctx.Done():
			case <-time.After(e.o.RetryPeriod):
			}
		case lost:
			log.Info("lease lost: the status reconciler stopped, the webhooks serve on; campaigning again")
		}
	}
	return nil
}

// campaign waits for the lease, runs a term while the replica holds it and returns once the term
// has stopped: lost says the lease was lost, err that the term failed (it gave the lease back).
func (e *election) campaign(ctx context.Context) (lost bool, err error) {
	// The elector's context outlives ctx until the term has stopped: on shutdown the lease is given
	// back only once the controllers are done, so the next leader never writes beside them.
	ectx, ecancel := context.WithCancel(context.WithoutCancel(ctx))
	defer ecancel()
	leading := make(chan context.Context, 1)
	le, err := e.elector(func(lctx context.Context) { leading <- lctx })
	if err != nil {
		return false, err
	}
	ran := make(chan struct{})
	go func() {
		defer close(ran)
		le.Run(ectx)
	}()
	select {
	case <-ctx.Done():
		ecancel()
		<-ran
		return false, nil
	case <-ran:
		return false, nil
	case lctx := <-leading:
		e.a.log.WithName("leader").Info("lease acquired: starting the status reconciler", "identity", e.lock.Identity())
		tctx, cancel := context.WithCancel(lctx)
		stop := context.AfterFunc(ctx, cancel)
		e.a.leading.Store(true)
		err := e.a.runTerm(tctx)
		e.a.leading.Store(false)
		stop()
		cancel()
		lost = lctx.Err() != nil && ctx.Err() == nil
		ecancel() // stops the renewals, giving the lease back if it is still held
		<-ran
		return lost, err
	}
}
