package deploy

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"sort"
	"time"
)

// AuditPolicy logs the metadata of every request of user, once each, when its response is
// complete (or started, for a watch), and nothing else.
func AuditPolicy(user string) string {
	return fmt.Sprintf(`apiVersion: audit.k8s.io/v1
kind: Policy
omitStages: [RequestReceived]
rules:
- level: Metadata
  users: [%q]
- level: None
`, user)
}

// Request is one (verb, group, resource/subresource) the audit log saw, with its counts.
type Request struct {
	Rule
	Count int
	// Forbidden are the times of the requests answered 403.
	Forbidden []time.Time
}

type auditEvent struct {
	Stage      string    `json:"stage"`
	Received   time.Time `json:"requestReceivedTimestamp"`
	Verb       string    `json:"verb"`
	RequestURI string    `json:"requestURI"`
	User       struct {
		Username string `json:"username"`
	} `json:"user"`
	ObjectRef *struct {
		Resource    string `json:"resource"`
		Subresource string `json:"subresource"`
		APIGroup    string `json:"apiGroup"`
	} `json:"objectRef"`
	ResponseStatus *struct {
		Code int `json:"code"`
	} `json:"responseStatus"`
}

// ReadAudit collects the requests of user in the audit log at path, sorted. Non-resource requests
// (discovery) are returned as the verb on the URL path.
func ReadAudit(path, user string) ([]Request, error) {
	by := map[Rule]*Request{}
	err := eachAudit(path, user, func(ev *auditEvent, r Rule) {
		req := by[r]
		if req == nil {
			req = &Request{Rule: r}
			by[r] = req
		}
		req.Count++
		if ev.ResponseStatus != nil && ev.ResponseStatus.Code == 403 {
			req.Forbidden = append(req.Forbidden, ev.Received)
		}
	})
	if err != nil {
		return nil, err
	}
	out := make([]Request, 0, len(by))
	for _, r := range by {
		out = append(out, *r)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].String() < out[j].String() })
	return out, nil
}

// CountAudit counts the requests of user in the audit log at path that match r, received in
// [from, to).
func CountAudit(path, user string, r Rule, from, to time.Time) (int, error) {
	n := 0
	err := eachAudit(path, user, func(ev *auditEvent, got Rule) {
		if got == r && !ev.Received.Before(from) && ev.Received.Before(to) {
			n++
		}
	})
	return n, err
}

// eachAudit calls f with each request of user in the audit log at path (a watch once, when it
// starts) and its rule.
func eachAudit(path, user string, f func(*auditEvent, Rule)) error {
	file, err := os.Open(path)
	if err != nil {
		return err
	}
	defer file.Close()
	sc := bufio.NewScanner(file)
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	for sc.Scan() {
		var ev auditEvent
		if err := json.Unmarshal(sc.Bytes(), &ev); err != nil {
			return fmt.Errorf("reading %s: %w", path, err)
		}
		if ev.User.Username != user {
			continue
		}
		if (ev.Verb == "watch") != (ev.Stage == "ResponseStarted") { // a watch once, when it starts
			continue
		}
		r := Rule{Group: "nonResourceURL", Verb: ev.Verb, Resource: ev.RequestURI}
		if ev.ObjectRef != nil {
			r = Rule{Group: ev.ObjectRef.APIGroup, Resource: ev.ObjectRef.Resource, Verb: ev.Verb}
			if ev.ObjectRef.Subresource != "" {
				r.Resource += "/" + ev.ObjectRef.Subresource
			}
		}
		f(&ev, r)
	}
	return sc.Err()
}
