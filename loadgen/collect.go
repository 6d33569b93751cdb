package loadgen

import (
	"cmp"
	"slices"
	"time"
)

// report adds up what the agents saw, once they have all stopped.
func (l *load) report(stopped string, elapsed time.Duration) Report {
	o := l.o
	r := Report{
		Agents: o.Agents, Requesters: len(l.plan.requesters), Responders: len(l.plan.responders),
		Validate: o.Validate, Window: o.Window, Rate: o.Rate, Payload: o.Payload, Pairs: o.Pairs,
		Instances: o.Instances, Stopped: stopped, Elapsed: elapsed, Dialects: l.plan.dialects,
	}
	kinds := map[string]*ErrorKind{}
	var all []int64
	byPair := map[[2]int][]int64{}
	for _, q := range l.requesters {
		for seq := range q.quota {
			if q.sentAt[seq].Load() != 0 {
				r.Sent++
			}
		}
		r.Completed += q.completed
		r.Errors += q.errors
		r.Lost += q.lost()
		r.Duplicated += q.duplicated
		r.ReorderedAnswers += q.reordered
		if q.stray > 0 && r.Stray == 0 {
			r.StrayExample = q.id + ": " + q.strayEx
		}
		r.Stray += q.stray
		r.Delivered += q.delivered
		for k, e := range q.kinds {
			if kinds[k] == nil {
				kinds[k] = &ErrorKind{Kind: k, Example: e.Example}
			}
			kinds[k].Count += e.Count
		}
		for d, ns := range q.latency {
			if len(ns) > 0 {
				all = append(all, ns...)
				key := [2]int{q.dialect, d}
				byPair[key] = append(byPair[key], ns...)
			}
		}
	}
	for _, s := range l.responders {
		r.Reordered += s.reordered
		r.DuplicatedRequests += s.duplicated
		if s.stray > 0 && r.Stray == 0 {
			r.StrayExample = s.id + ": a frame that is not a request of the run"
		}
		r.Stray += s.stray
		r.Delivered += s.received
		r.Received += s.answered
	}
	r.Received += r.Sent
	for _, k := range kinds {
		r.ErrorKinds = append(r.ErrorKinds, *k)
	}
	// Most frequent first.
	slices.SortFunc(r.ErrorKinds, func(a, b ErrorKind) int {
		return cmp.Or(cmp.Compare(b.Count, a.Count), cmp.Compare(a.Kind, b.Kind))
	})
	r.Latency = summarise(all)
	for from, fromName := range r.Dialects {
		for to, toName := range r.Dialects {
			if ns := byPair[[2]int{from, to}]; len(ns) > 0 {
				r.ByDialect = append(r.ByDialect, DialectPair{From: fromName, To: toName, Latency: summarise(ns)})
			}
		}
	}
	return r
}
