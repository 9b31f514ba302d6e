package liveconfig

import (
	"context"
	"testing"
	"time"

	"github.com/go-logr/logr"

	"github.com/precedent-dev/precedent/internal/settings"
)

// TestAwaitVersion: a waiter is woken when the settings of the version it waits for come into
// force, not by others, and gives up when its context ends.
func TestAwaitVersion(t *testing.T) {
	l := NewLive(settings.Defaults(), logr.Discard())
	done := make(chan bool)
	go func() { done <- l.AwaitVersion(context.Background(), "7") }()
	l.set(settings.Defaults(), "6")
	select {
	case <-done:
		t.Fatal("woken for version 6 while waiting for 7")
	default:
	}
	l.set(settings.Defaults(), "7")
	if !<-done {
		t.Fatal("AwaitVersion reported false after version 7 came into force")
	}
	if !l.AwaitVersion(context.Background(), "7") {
		t.Fatal("AwaitVersion of the version in force reported false")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	if l.AwaitVersion(ctx, "8") {
		t.Fatal("AwaitVersion of a version never in force reported true")
	}
}
