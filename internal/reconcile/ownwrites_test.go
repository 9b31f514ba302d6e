package reconcile

import (
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
)

func at(rv string) *unstructured.Unstructured {
	u := &unstructured.Unstructured{}
	u.SetNamespace("ns")
	u.SetName("p")
	u.SetResourceVersion(rv)
	return u
}

// TestOwnWrites: after a write at version 10, a cached read at 9 is behind (and waits for the
// write's event), the event at 10 is our own and was waited for, and then nothing is remembered.
func TestOwnWrites(t *testing.T) {
	w := &ownWrites{last: map[types.NamespacedName]writeMark{}}
	w.mark(at("10"))
	if !w.behind(at("9")) {
		t.Fatal("a read older than our write is not behind")
	}
	if own, waited := w.caught(at("10")); !own || !waited {
		t.Fatalf("caught(10) = own %t, waited %t; want both", own, waited)
	}
	if w.behind(at("9")) {
		t.Error("behind after the write's event: nothing should be remembered")
	}

	w.mark(at("20"))
	if own, waited := w.caught(at("20")); !own || waited {
		t.Fatalf("caught(20) = own %t, waited %t; want own only", own, waited)
	}
	w.mark(at("30"))
	if w.behind(at("31")) {
		t.Error("a read newer than our write is behind")
	}
	if own, _ := w.caught(at("30")); own {
		t.Error("an event of a write the cache already had counts as awaited")
	}
}
