package engine

// levelCheck answers, for the policies of one Gateway (or one Backend), whether a (source, tool)
// passes the level, with ExternalAuth assumed to allow. Answers are cached: many Backends share
// sources and tools.
type levelCheck struct {
	level    Level
	policies []Policy // in precedence order
	tools    []string // every tool an InlineTools rule of the level names
	cache    map[grant]string
	scratch  Decision
}

type grant struct {
	source Principal
	tool   string
	any    bool
}

// passed marks a cached answer that passes; any other value is the reason for the denial.
const passed = "\x00"

func newLevelCheck(ps []Policy) *levelCheck { return newCheckAt(LevelGateway, ps) }

// newCheckAt is a levelCheck of the policies ps of one object at level l.
func newCheckAt(l Level, ps []Policy) *levelCheck {
	c := &levelCheck{level: l, policies: ps, cache: map[grant]string{}}
	seen := map[string]bool{}
	for i := range ps {
		for _, r := range ps[i].Rules {
			for _, t := range r.Tools {
				if !seen[t] {
					seen[t] = true
					c.tools = append(c.tools, t)
				}
			}
		}
	}
	return c
}

// reachable reports whether tool passes the level for source, and if not, why.
func (c *levelCheck) reachable(source Principal, tool string, allAllow bool) (string, bool) {
	g := grant{source: source, tool: tool}
	if r, ok := c.cache[g]; ok {
		return r, r == passed
	}
	c.scratch = Decision{Trace: c.scratch.Trace[:0]}
	req := Request{Source: source, Tool: tool}
	r := passed
	if !evaluateLevel(&c.scratch, c.level, &req, c.policies, allAllow) {
		r = "no " + string(c.level) + " rule allows it"
		if allAllow {
			r = string(c.level) + " policy " + c.scratch.Policy + " does not allow it"
		}
	}
	c.cache[g] = r
	return r, r == passed
}

// reachableAny reports whether some tool passes the level for source: a tool named by the level's
// rules, or one it does not name.
func (c *levelCheck) reachableAny(source Principal, allAllow bool) (string, bool) {
	g := grant{source: source, any: true}
	if r, ok := c.cache[g]; ok {
		return r, r == passed
	}
	r := "no " + string(c.level) + " rule allows any tool to that source"
	if _, ok := c.reachable(source, passed, allAllow); ok { // passed is never a tool name
		r = passed
	} else {
		for _, t := range c.tools {
			if _, ok := c.reachable(source, t, allAllow); ok {
				r = passed
				break
			}
		}
	}
	c.cache[g] = r
	return r, r == passed
}

// reachableOrTrue is reachable on a nil check that lets everything through.
func (c *levelCheck) reachableOrTrue(source Principal, tool string, allAllow bool) (string, bool) {
	if c == nil {
		return passed, true
	}
	return c.reachable(source, tool, allAllow)
}

func (c *levelCheck) reachableAnyOrTrue(source Principal, allAllow bool) (string, bool) {
	if c == nil {
		return passed, true
	}
	return c.reachableAny(source, allAllow)
}

// restricts reports whether the level has allow rules (a level without any lets everything through).
func (c *levelCheck) restricts() bool {
	for i := range c.policies {
		if c.policies[i].hasAllowRules() {
			return true
		}
	}
	return false
}
