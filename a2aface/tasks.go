package a2aface

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2asrv/taskstore"
	"github.com/mcp-bridge/mcp-bridge/bridge/metrics"
)

// tasks holds the tasks of every agent the face serves: a task that is
// not working (finished, or waiting for input) is kept for ttl after its
// last change, and at most max tasks (the one changed longest ago goes
// first, counted in table) when max is above 0. A working task's call ends
// within its time limit, and the task with it.
type tasks struct {
	ttl   time.Duration
	max   int
	table *metrics.Table
	stop  chan struct{}

	mu         sync.Mutex
	byID       map[a2a.TaskID]*held
	head, tail *held // the task changed longest ago, and the last changed
}

// held is one task as kept.
type held struct {
	id      a2a.TaskID
	agent   string
	task    []byte // its JSON: a copy no caller can change
	version taskstore.TaskVersion
	caller  string // who created it (callerOf)
	working bool   // submitted or working: not forgotten for its age
	updated time.Time

	prev, next *held // in the order of their last change
}

func newTasks(ttl time.Duration, max int, table *metrics.Table) *tasks {
	t := &tasks{ttl: ttl, max: max, table: table, stop: make(chan struct{}), byID: map[a2a.TaskID]*held{}}
	go t.sweep()
	return t
}

// sweep forgets the tasks past their time until close.
func (t *tasks) sweep() {
	tick := time.NewTicker(min(t.ttl/4+time.Millisecond, time.Minute))
	defer tick.Stop()
	for {
		select {
		case <-t.stop:
			return
		case now := <-tick.C:
			t.mu.Lock()
			for h := t.head; h != nil && now.Sub(h.updated) > t.ttl; {
				next := h.next
				if !h.working {
					t.remove(h)
				}
				h = next
			}
			t.mu.Unlock()
		}
	}
}

func (t *tasks) close() { close(t.stop) }

// Len is how many tasks are kept.
func (t *tasks) Len() int {
	t.mu.Lock()
	defer t.mu.Unlock()
	return len(t.byID)
}

// push keeps h as the last changed; t.mu is held.
func (t *tasks) push(h *held) {
	h.prev, h.next = t.tail, nil
	if t.tail != nil {
		t.tail.next = h
	} else {
		t.head = h
	}
	t.tail = h
}

// unlink takes h out of the order; t.mu is held.
func (t *tasks) unlink(h *held) {
	if h.prev != nil {
		h.prev.next = h.next
	} else {
		t.head = h.next
	}
	if h.next != nil {
		h.next.prev = h.prev
	} else {
		t.tail = h.prev
	}
	h.prev, h.next = nil, nil
}

// remove forgets h; t.mu is held.
func (t *tasks) remove(h *held) {
	t.unlink(h)
	delete(t.byID, h.id)
}

// store is agent's view of the tasks: an a2asrv task store.
func (t *tasks) store(agent string) taskstore.Store { return &agentTasks{t: t, agent: agent} }

// agentTasks is the task store of one agent.
type agentTasks struct {
	t     *tasks
	agent string
}

// Create keeps a new task.
func (s *agentTasks) Create(ctx context.Context, task *a2a.Task) (taskstore.TaskVersion, error) {
	b, err := json.Marshal(task)
	if err != nil {
		return taskstore.TaskVersionMissing, fmt.Errorf("a2a: task %s: %w", task.ID, err)
	}
	caller, _ := callerOf(ctx)
	t := s.t
	t.mu.Lock()
	defer t.mu.Unlock()
	if _, ok := t.byID[task.ID]; ok {
		return taskstore.TaskVersionMissing, taskstore.ErrTaskAlreadyExists
	}
	if t.max > 0 && len(t.byID) >= t.max {
		t.dropOldest()
	}
	h := &held{id: task.ID, agent: s.agent, task: b, version: 1, caller: caller, updated: time.Now(), working: working(task)}
	t.byID[task.ID] = h
	t.push(h)
	return 1, nil
}

// dropOldest forgets the task changed longest ago, and counts it; t.mu is
// held.
func (t *tasks) dropOldest() {
	if t.head != nil {
		t.remove(t.head)
		t.table.Dropped(1)
	}
}

// Update replaces a task, if it is still at the version it was read at.
func (s *agentTasks) Update(_ context.Context, req *taskstore.UpdateRequest) (taskstore.TaskVersion, error) {
	b, err := json.Marshal(req.Task)
	if err != nil {
		return taskstore.TaskVersionMissing, fmt.Errorf("a2a: task %s: %w", req.Task.ID, err)
	}
	t := s.t
	t.mu.Lock()
	defer t.mu.Unlock()
	h, ok := t.byID[req.Task.ID]
	if !ok || h.agent != s.agent {
		return taskstore.TaskVersionMissing, a2a.ErrTaskNotFound
	}
	if req.PrevVersion != taskstore.TaskVersionMissing && req.PrevVersion != h.version {
		return taskstore.TaskVersionMissing, taskstore.ErrConcurrentModification
	}
	h.task, h.updated, h.working = b, time.Now(), working(req.Task)
	h.version++
	t.unlink(h)
	t.push(h)
	return h.version, nil
}

// Get returns a copy of a task.
func (s *agentTasks) Get(_ context.Context, id a2a.TaskID) (*taskstore.StoredTask, error) {
	s.t.mu.Lock()
	h, ok := s.t.byID[id]
	var b []byte
	var v taskstore.TaskVersion
	if ok && h.agent == s.agent {
		b, v = h.task, h.version
	}
	s.t.mu.Unlock()
	if b == nil {
		return nil, a2a.ErrTaskNotFound
	}
	var task a2a.Task
	if err := json.Unmarshal(b, &task); err != nil {
		return nil, fmt.Errorf("a2a: task %s: %w", id, err)
	}
	return &taskstore.StoredTask{Task: &task, Version: v}, nil
}

// List returns the tasks the caller created, the last changed first, a
// page at a time (the page token is the offset of the page).
func (s *agentTasks) List(ctx context.Context, req *a2a.ListTasksRequest) (*a2a.ListTasksResponse, error) {
	caller, _ := callerOf(ctx)
	size := req.PageSize
	switch {
	case size == 0:
		size = 50
	case size < 1 || size > 100:
		return nil, fmt.Errorf("%w: pageSize must be from 1 to 100, not %d", a2a.ErrInvalidParams, size)
	}
	from := 0
	if req.PageToken != "" {
		n, err := strconv.Atoi(req.PageToken)
		if err != nil || n < 0 {
			return nil, fmt.Errorf("%w: pageToken %q is not one this server gave", a2a.ErrInvalidParams, req.PageToken)
		}
		from = n
	}
	type item struct {
		task    a2a.Task
		updated time.Time
	}
	var all []item
	s.t.mu.Lock()
	for _, h := range s.t.byID {
		if h.agent != s.agent || h.caller != caller {
			continue
		}
		var task a2a.Task
		if json.Unmarshal(h.task, &task) != nil {
			continue
		}
		if req.ContextID != "" && task.ContextID != req.ContextID ||
			req.Status != a2a.TaskStateUnspecified && task.Status.State != req.Status ||
			req.StatusTimestampAfter != nil && task.Status.Timestamp != nil && task.Status.Timestamp.Before(*req.StatusTimestampAfter) {
			continue
		}
		all = append(all, item{task, h.updated})
	}
	s.t.mu.Unlock()
	slices.SortFunc(all, func(a, b item) int {
		if c := b.updated.Compare(a.updated); c != 0 {
			return c
		}
		return strings.Compare(string(a.task.ID), string(b.task.ID))
	})
	res := &a2a.ListTasksResponse{Tasks: []*a2a.Task{}, TotalSize: len(all), PageSize: size}
	for i := from; i < len(all) && i < from+size; i++ {
		task := all[i].task
		if !req.IncludeArtifacts {
			task.Artifacts = nil
		}
		res.Tasks = append(res.Tasks, &task)
	}
	if from+size < len(all) {
		res.NextPageToken = strconv.Itoa(from + size)
	}
	return res, nil
}

// working reports whether task is on its way: neither finished nor
// waiting for the client.
func working(task *a2a.Task) bool {
	s := task.Status.State
	return s == a2a.TaskStateSubmitted || s == a2a.TaskStateWorking
}
