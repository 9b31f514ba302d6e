package engine

import "github.com/benbjohnson/immutable"

// buildDataplanes indexes dataplanes (of two with one key, the later) in x, which holds none yet,
// and places them in t's classes. The persistent maps are built in place from Go maps (immutable's
// builders), each entry set once.
func (x *Index) buildDataplanes(t *txn, dataplanes []Dataplane) {
	last := make(map[string]int, len(dataplanes))
	for i := range dataplanes {
		last[DataplaneKey(&dataplanes[i])] = i
	}
	dps := immutable.NewMapBuilder[string, *dpEntry](hasher[string]{})
	inNs := map[string]int{}
	ins, names, labels := map[string][]string{}, map[string][]string{}, map[string][]string{}
	sources := map[string]*source{}
	srcTags, groups := map[string][]string{}, map[string][]string{}
	for i := range dataplanes {
		key := DataplaneKey(&dataplanes[i])
		if last[key] != i {
			continue
		}
		e := newDPEntry(&dataplanes[i])
		dps.Set(key, e)
		if e.dp.Gateway {
			x.gateways++
		}
		inNs[e.dp.Namespace]++
		in, name, label := e.indexKeys()
		addAll(ins, in, key)
		addAll(names, name, key)
		addAll(labels, label, key)
		for _, in := range e.dp.Inbound { // as txn.source does
			sel := Selector{Service: in[ServiceTag], Tags: in}
			sk := sel.String()
			if s := sources[sk]; s != nil {
				s.n++
				continue
			}
			s := &source{sel: sel, n: 1, group: x.groupKey(&sel)}
			sources[sk] = s
			for k, v := range in {
				srcTags[k+"="+v] = append(srcTags[k+"="+v], sk)
			}
			groups[s.group] = append(groups[s.group], sk)
		}
		t.classify(e, 1)
	}
	x.dps, x.inTags, x.names, x.labels = *dps.Map(), setsOf(ins), setsOf(names), setsOf(labels)
	x.sources = *immutable.NewMapOf[string, *source](hasher[string]{}, sources)
	x.inNs = *immutable.NewMapOf[string, int](hasher[string]{}, inNs)
	x.srcTags = setsOf(srcTags)
	gb := immutable.NewMapBuilder[string, *group](hasher[string]{})
	for g, members := range groups {
		gb.Set(g, &group{members: keySetOf(members), rep: members[0]})
	}
	x.groups = *gb.Map()
}

// addAll adds member to the lists of m under keys.
func addAll(m map[string][]string, keys []string, member string) {
	for _, k := range keys {
		m[k] = append(m[k], member)
	}
}
