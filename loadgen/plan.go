package loadgen

import "fmt"

// peer is one planned agent.
type peer struct {
	id       string // as every dialect writes it: upper case, for bluelabel
	dialect  int    // index in plan.dialects
	instance int    // the bridge it connects to, of the run's instances
}

// plan is who talks to whom.
type plan struct {
	// dialects are those the agents are dealt over, in order.
	dialects   []string
	requesters []peer
	responders []peer
	// targets[i] are the responders requester i sends to, in the order
	// it cycles through them.
	targets [][]int
	// quota[i] is how many requests requester i sends.
	quota []int
}

// newPlan deals agents out over dialects: the first half (rounded down)
// requesters, the rest responders, each half round robin over the
// dialects and over the instances. A requester sends to every responder of
// another dialect that another instance holds (with one instance, every
// responder of another dialect; when there is none, to every responder
// another instance holds, or to all), starting at a different one for each
// requester, and sends pairs/requesters requests, the first
// pairs%requesters one more.
func newPlan(dialects []string, agents, pairs, instances int) *plan {
	nreq := agents / 2
	p := &plan{dialects: dialects}
	for i := range nreq {
		p.requesters = append(p.requesters, peer{id: fmt.Sprintf("REQ-%03d", i), dialect: i % len(dialects), instance: i % instances})
	}
	for j := range agents - nreq {
		p.responders = append(p.responders, peer{id: fmt.Sprintf("RSP-%03d", j), dialect: j % len(dialects), instance: j % instances})
	}
	for i, r := range p.requesters {
		var others, away, all []int
		for j, s := range p.responders {
			all = append(all, j)
			if instances > 1 && s.instance == r.instance {
				continue
			}
			away = append(away, j)
			if s.dialect != r.dialect {
				others = append(others, j)
			}
		}
		if len(others) == 0 {
			others = away
		}
		if len(others) == 0 {
			others = all
		}
		k := i % len(others)
		p.targets = append(p.targets, append(others[k:len(others):len(others)], others[:k]...))
		q := pairs / nreq
		if i < pairs%nreq {
			q++
		}
		p.quota = append(p.quota, q)
	}
	return p
}

// target returns the index, in the requester's targets, of the responder
// its request seq goes to.
func (p *plan) target(requester, seq int) int {
	return seq % len(p.targets[requester])
}
