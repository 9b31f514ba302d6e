package deploy

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// TestAdmissionsLog reads the validating handler's -v=1 lines of a pod's log and nothing else.
func TestAdmissionsLog(t *testing.T) {
	log := `I1129 06:56:04.126016   25640 validate.go:54] "reviewed" logger="validate" kind="RateLimitPolicy" policy="load/x-1" operation="CREATE" dryRun=true decision="allowed" warnings=0 duration="45.123µs"
I1129 06:56:04.200000   25640 builtin.go:292] "caBundle injected" logger="certs" configuration="precedent" generation=1
I1129 06:56:05.000001   25640 validate.go:54] "reviewed" logger="validate" kind="RateLimitPolicy" policy="load/y" operation="DELETE" dryRun=false decision="denied" warnings=2 duration="1.5ms"
deploy test (kubelet): container exited (signal: killed), restarting
`
	f, err := os.Create(filepath.Join(t.TempDir(), "pod.log"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.WriteString(log); err != nil {
		t.Fatal(err)
	}
	got, err := (&Pod{Name: "pod", log: f}).Admissions()
	if err != nil {
		t.Fatal(err)
	}
	at := func(s string) time.Time {
		v, err := time.ParseInLocation("2006-01-02 15:04:05.000000", s, time.Local)
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	year := time.Now().Format("2006")
	want := []Admission{
		{At: at(year + "-11-29 06:56:04.126016"), Operation: "CREATE", Namespace: "load", Name: "x-1", DryRun: true, Took: 45123 * time.Nanosecond},
		{At: at(year + "-11-29 06:56:05.000001"), Operation: "DELETE", Namespace: "load", Name: "y", Took: 1500 * time.Microsecond},
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("admissions (-want +got):\n%s", d)
	}
}

// TestServed matches each admission to the stream's write it answered: same operation, object and
// dry-run, logged while the write was in flight.
func TestServed(t *testing.T) {
	t0 := time.Date(2026, 11, 29, 7, 0, 0, 0, time.UTC)
	ms := func(n int) time.Time { return t0.Add(time.Duration(n) * time.Millisecond) }
	l := &Load{Namespace: "load", ops: []Op{
		{Kind: "create", Name: "p-1", Start: ms(0), End: ms(5)},
		{Kind: "update", Name: "p-1", Start: ms(10), End: ms(14)},
		{Kind: "update", Name: "p-1", Start: ms(20), End: ms(27)},
		{Kind: "dry-run", Name: "dry-2", Start: ms(30), End: ms(33)},
	}}
	adms := []Admission{
		{At: ms(22), Operation: "UPDATE", Namespace: "load", Name: "p-1"},                 // the second update: 7 ms
		{At: ms(3), Operation: "CREATE", Namespace: "load", Name: "p-1"},                  // the create: 5 ms
		{At: ms(31), Operation: "CREATE", Namespace: "load", Name: "dry-2", DryRun: true}, // 3 ms
		{At: ms(31), Operation: "CREATE", Namespace: "load", Name: "dry-2"},               // not a dry-run: no write
		{At: ms(12), Operation: "UPDATE", Namespace: "other", Name: "p-1"},                // another namespace
		{At: ms(16), Operation: "UPDATE", Namespace: "load", Name: "p-1"},                 // no update in flight then
	}
	took, unmatched := l.Served(adms)
	want := []time.Duration{7 * time.Millisecond, 5 * time.Millisecond, 3 * time.Millisecond}
	if d := cmp.Diff(want, took); d != "" || unmatched != 3 {
		t.Errorf("served (-want +got):\n%s\nunmatched %d, want 3", d, unmatched)
	}
}
