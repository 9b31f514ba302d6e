package deploy

import (
	"bufio"
	"fmt"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Admission is one review a replica logged: the suite runs the replicas at -v=1, where the
// validating handler logs every admission it answers with the time it took.
type Admission struct {
	At        time.Time // when the line was logged: as the handler returned
	Operation string    // CREATE, UPDATE, DELETE
	Namespace string
	Name      string
	DryRun    bool
	Took      time.Duration // the handler's own time (Validator.Handle)
}

// reviewed matches the handler's line, e.g.
// I1129 06:56:04.126016   25640 validate.go:54] "reviewed" logger="validate" kind="RateLimitPolicy" policy="load/x-1" operation="CREATE" dryRun=true decision="allowed" warnings=0 duration="45.123µs"
// and field its key/value pairs, in any order.
var (
	reviewed = regexp.MustCompile(`^[IWE](\d{4} \d\d:\d\d:\d\d\.\d{6}) .*\] "reviewed" (.*)$`)
	field    = regexp.MustCompile(`(\w+)=("[^"]*"|\S+)`)
)

// Admissions are the reviews the pod's containers logged, in the order they were logged.
func (p *Pod) Admissions() ([]Admission, error) {
	f, err := os.Open(p.log.Name())
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var out []Admission
	year := time.Now().Year()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 0, 64*1024), 4*1024*1024)
	for sc.Scan() {
		m := reviewed.FindStringSubmatch(sc.Text())
		if m == nil {
			continue
		}
		kv := map[string]string{}
		for _, f := range field.FindAllStringSubmatch(m[2], -1) {
			kv[f[1]] = strings.Trim(f[2], `"`)
		}
		// klog's header has no year and is in local time.
		at, err := time.ParseInLocation("2006 0102 15:04:05.000000", strconv.Itoa(year)+" "+m[1], time.Local)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", p.Name, err)
		}
		took, err := time.ParseDuration(kv["duration"])
		if err != nil {
			return nil, fmt.Errorf("%s: the duration of %q: %w", p.Name, sc.Text(), err)
		}
		ns, name, _ := strings.Cut(kv["policy"], "/")
		out = append(out, Admission{At: at, Namespace: ns, Name: name, Operation: kv["operation"], DryRun: kv["dryRun"] == "true", Took: took})
	}
	return out, sc.Err()
}

// Latencies summarizes durations: how many, p50, mean and the slowest.
type Latencies struct {
	N              int
	P50, Mean, Max time.Duration
}

// Summarize computes the Latencies of d (which it sorts).
func Summarize(d []time.Duration) Latencies {
	if len(d) == 0 {
		return Latencies{}
	}
	slices.Sort(d)
	var sum time.Duration
	for _, x := range d {
		sum += x
	}
	return Latencies{N: len(d), P50: d[len(d)/2], Mean: sum / time.Duration(len(d)), Max: d[len(d)-1]}
}

func (l Latencies) String() string {
	return fmt.Sprintf("n=%d p50 %s mean %s max %s", l.N, round(l.P50), round(l.Mean), round(l.Max))
}

// Ratio is l against base, at p50 and in the mean.
func (l Latencies) Ratio(base Latencies) (p50, mean float64) {
	if base.P50 == 0 || base.Mean == 0 {
		return 0, 0
	}
	return float64(l.P50) / float64(base.P50), float64(l.Mean) / float64(base.Mean)
}

func round(d time.Duration) time.Duration {
	switch {
	case d >= time.Millisecond:
		return d.Round(10 * time.Microsecond)
	case d >= 10*time.Microsecond:
		return d.Round(100 * time.Nanosecond)
	}
	return d
}

// handlerTimes are the handler's durations of the admissions.
func handlerTimes(adms []Admission) []time.Duration {
	out := make([]time.Duration, len(adms))
	for i, a := range adms {
		out[i] = a.Took
	}
	return out
}

// Served finds, for each admission, the stream's write it answered (same operation, object and
// dry-run, and the handler returned while the write was in flight) and returns those writes'
// client latencies, and how many admissions matched none (a write of another client, or of the
// stream not recorded: an update or delete with nothing live).
func (l *Load) Served(adms []Admission) (took []time.Duration, unmatched int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	byName := map[string][]int{}
	for i, op := range l.ops {
		byName[op.Name] = append(byName[op.Name], i)
	}
	for _, a := range adms {
		found := false
		if a.Namespace == l.Namespace {
			for _, i := range byName[a.Name] {
				op := l.ops[i]
				if op.Err == nil && op.operation() == a.Operation && op.dryRun() == a.DryRun && !a.At.Before(op.Start) && !a.At.After(op.End) {
					took, found = append(took, op.End.Sub(op.Start)), true
					break
				}
			}
		}
		if !found {
			unmatched++
		}
	}
	return took, unmatched
}

// operation is the admission operation of the write's kind.
func (op Op) operation() string {
	switch op.Kind {
	case "update":
		return "UPDATE"
	case "delete":
		return "DELETE"
	}
	return "CREATE"
}

func (op Op) dryRun() bool { return op.Kind == "dry-run" || op.Kind == "probe" }

// firstAdmissions is how many admissions of a fresh replica are compared with its steady state
// (issue 37: they should cost what a steady admission costs).
const firstAdmissions = 200

// Warmth compares a replica's first admissions with its steady ones and with another replica's
// over the same time, from the handler's log and from the client's side of the same writes.
type Warmth struct {
	// First are the replica's first firstAdmissions admissions, Steady the next ones (up to
	// 2×firstAdmissions of them), Beside and BesideSteady the other replica's while each were served.
	First, Steady, Beside, BesideSteady []Admission
}

// NewWarmth splits fresh's admissions (from its start) and other's.
func NewWarmth(fresh, other []Admission) (Warmth, error) {
	if len(fresh) < 3*firstAdmissions {
		return Warmth{}, fmt.Errorf("%d admissions logged, want %d", len(fresh), 3*firstAdmissions)
	}
	w := Warmth{First: fresh[:firstAdmissions], Steady: fresh[firstAdmissions : 3*firstAdmissions]}
	w.Beside, w.BesideSteady = during(other, w.First), during(other, w.Steady)
	return w, nil
}

// during are the admissions of adms logged between the first and the last of span.
func during(adms, span []Admission) []Admission {
	var out []Admission
	from, to := span[0].At, span[len(span)-1].At
	for _, a := range adms {
		if !a.At.Before(from) && !a.At.After(to) {
			out = append(out, a)
		}
	}
	return out
}

// Report is the comparison in words, handler times first, then the client's latencies of the same
// writes.
func (w Warmth) Report(l *Load) string {
	var b strings.Builder
	sets := [][]Admission{w.First, w.Steady, w.Beside, w.BesideSteady}
	compare := func(what string, s [4]Latencies, unmatched string) {
		p, m := s[0].Ratio(s[1])
		bp, bm := s[0].Ratio(s[2])
		fmt.Fprintf(&b, "%s: first %d admissions %s; the next %d (steady) %s: ratio p50 %.2f mean %.2f; the other replica's meanwhile %s: ratio p50 %.2f mean %.2f, and during the steady ones %s%s\n",
			what, len(w.First), s[0], len(w.Steady), s[1], p, m, s[2], bp, bm, s[3], unmatched)
	}
	var handler, client [4]Latencies
	unmatched := make([]string, len(sets))
	for i, set := range sets {
		handler[i] = Summarize(handlerTimes(set))
		took, n := l.Served(set)
		client[i], unmatched[i] = Summarize(took), strconv.Itoa(n)
	}
	var firsts []string
	for _, a := range w.First[:10] {
		firsts = append(firsts, round(a.Took).String())
	}
	compare("handler", handler, "; the first 10: "+strings.Join(firsts, " "))
	compare("client, the same writes", client, " (admissions matched to no write of the stream: "+strings.Join(unmatched, ", ")+")")
	return strings.TrimSuffix(b.String(), "\n")
}
