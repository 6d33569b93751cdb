package a2a

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/mcp-bridge/mcp-bridge/canonical"
)

// follow follows the task of one request until it settles (a terminal
// state, or one that waits for input), telling the bridge of each of its
// status updates on the way.
type follow struct {
	l       *link
	t       *task
	req     *canonical.Envelope
	updates int             // status updates told so far
	last    *a2a.TaskStatus // the last one told
	asked   *a2a.TaskStatus // the status that asked for the input this call gives
	gone    bool
}

// errGone ends a follow whose request the bridge gave up.
var errGone = errors.New("the bridge gave the request up")

// given reports whether the follow ended because the bridge gave the
// request up.
func (f *follow) given() bool { return f.gone }

// taskID returns the task's id, "" while the agent has not named it.
func (f *follow) taskID() a2a.TaskID {
	f.l.mu.Lock()
	defer f.l.mu.Unlock()
	return f.t.id
}

// seen notes a state of the task: its id, and a status update the
// bridge is told of unless it settles the task. It reports whether the
// task settled (the status that asked for the input this call gives does
// not: the agent has not taken the input up yet), and returns errGone when
// the bridge gave the request up.
func (f *follow) seen(task *a2a.Task) (bool, error) {
	if f.l.named(f.t, task.ID, task.ContextID) {
		f.gone = true
		return false, errGone
	}
	if f.asked != nil && sameStatus(*f.asked, task.Status) {
		return false, nil
	}
	if settled(task.Status.State) {
		return true, nil
	}
	if f.last != nil && sameStatus(*f.last, task.Status) {
		return false, nil
	}
	st := task.Status
	f.last = &st
	f.l.tell(progress(f.l.a.spec.ID, f.req, task, f.updates))
	f.updates++
	return false, nil
}

// stream sends msg with SendStreamingMessage and follows the events of
// its task; a stream that ends before the task settles is followed with
// GetTask.
func (f *follow) stream(ctx context.Context, msg *a2a.Message) (a2a.SendMessageResult, error) {
	var cur *a2a.Task
	for ev, err := range f.l.c.SendStreamingMessage(ctx, &a2a.SendMessageRequest{Message: msg}) {
		if err != nil {
			return nil, fmt.Errorf("SendStreamingMessage: %w", err)
		}
		switch e := ev.(type) {
		case *a2a.Message:
			return e, nil
		case *a2a.Task:
			c := *e
			cur = &c
		case *a2a.TaskStatusUpdateEvent:
			if cur == nil {
				cur = &a2a.Task{ID: e.TaskID, ContextID: e.ContextID}
			}
			cur.Status = e.Status
		case *a2a.TaskArtifactUpdateEvent:
			if cur == nil {
				cur = &a2a.Task{ID: e.TaskID, ContextID: e.ContextID}
			}
			cur.Artifacts = merge(cur.Artifacts, e)
			continue
		default:
			continue
		}
		if done, err := f.seen(cur); done || err != nil {
			return cur, err
		}
	}
	if cur == nil {
		return nil, errors.New("SendStreamingMessage: the stream ended before the agent named a task")
	}
	return f.poll(ctx, cur.ID)
}

// send sends msg with SendMessage, asking for the task at once, and
// follows the task with GetTask until it settles.
func (f *follow) send(ctx context.Context, msg *a2a.Message) (a2a.SendMessageResult, error) {
	res, err := f.sendMessage(ctx, msg)
	if err != nil {
		return nil, fmt.Errorf("SendMessage: %w", err)
	}
	task, ok := res.(*a2a.Task)
	if !ok {
		return res, nil
	}
	if done, err := f.seen(task); done || err != nil {
		return task, err
	}
	return f.poll(ctx, task.ID)
}

// continueTries bounds the tries of a message that continues a task.
const continueTries = 6

// sendMessage sends msg with SendMessage, asking for the task at once. A
// message that continues a task is sent again, a little later, while the
// agent answers an internal error: polling can see a task ask for input
// before the agent's execution that asked has ended, and a2asrv refuses
// the task's next message until it has.
func (f *follow) sendMessage(ctx context.Context, msg *a2a.Message) (a2a.SendMessageResult, error) {
	req := &a2a.SendMessageRequest{Message: msg, Config: &a2a.SendMessageConfig{ReturnImmediately: true}}
	d := 10 * time.Millisecond
	for try := 1; ; try++ {
		res, err := f.l.c.SendMessage(ctx, req)
		if err == nil || msg.TaskID == "" || try == continueTries || !errors.Is(err, a2a.ErrInternalError) {
			return res, err
		}
		t := time.NewTimer(d)
		select {
		case <-ctx.Done():
			t.Stop()
			return nil, err
		case <-t.C:
		}
		d *= 2
	}
}

// poll calls GetTask until the task id settles, waiting longer each time
// up to PollEvery.
func (f *follow) poll(ctx context.Context, id a2a.TaskID) (a2a.SendMessageResult, error) {
	d := 10 * time.Millisecond
	for {
		t := time.NewTimer(d)
		select {
		case <-ctx.Done():
			t.Stop()
			return nil, ctx.Err()
		case <-t.C:
		}
		d = min(2*d, f.l.a.spec.PollEvery)
		task, err := f.l.c.GetTask(ctx, &a2a.GetTaskRequest{ID: id})
		if err != nil {
			return nil, fmt.Errorf("GetTask %s: %w", id, err)
		}
		if done, err := f.seen(task); done || err != nil {
			return task, err
		}
	}
}

// settled reports whether a task in state s is done with, for now: ended,
// or waiting for its requester.
func settled(s a2a.TaskState) bool {
	return s.Terminal() || s == a2a.TaskStateInputRequired || s == a2a.TaskStateAuthRequired
}

// sameStatus reports whether two statuses say the same: polling sees one
// status many times.
func sameStatus(a, b a2a.TaskStatus) bool {
	if a.State != b.State || textOf(partsOf(a.Message)) != textOf(partsOf(b.Message)) {
		return false
	}
	if a.Timestamp == nil || b.Timestamp == nil {
		return a.Timestamp == b.Timestamp
	}
	return a.Timestamp.Equal(*b.Timestamp)
}

// merge adds an artifact update to a task's artifacts: appended to the
// artifact of the same id when it says so, else in its place.
func merge(arts []*a2a.Artifact, e *a2a.TaskArtifactUpdateEvent) []*a2a.Artifact {
	if e.Artifact == nil {
		return arts
	}
	for i, a := range arts {
		if a.ID != e.Artifact.ID {
			continue
		}
		if e.Append {
			c := *a
			c.Parts = append(append(a2a.ContentParts{}, a.Parts...), e.Artifact.Parts...)
			arts[i] = &c
		} else {
			arts[i] = e.Artifact
		}
		return arts
	}
	return append(arts, e.Artifact)
}
