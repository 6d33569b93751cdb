package a2aface

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"
)

// TestTasksKept: a task is forgotten after its TTL, and past MaxTasks the
// oldest goes first; push notifications are answered as not supported;
// SubscribeToTask of a task in progress streams it to its end.
func TestTasksKept(t *testing.T) {
	l := serve(t, Options{TaskTTL: 200 * time.Millisecond, MaxTasks: 2})
	l.attach("swarm", "calc", "echo", "sleep")
	c := l.client("calc", "")
	ctx := context.Background()
	var ids []a2a.TaskID
	for range 3 {
		ids = append(ids, send(t, c, message("echo", a2a.NewTextPart("x"))).ID)
	}
	if _, err := c.GetTask(ctx, &a2a.GetTaskRequest{ID: ids[0]}); !errors.Is(err, a2a.ErrTaskNotFound) {
		t.Fatalf("the oldest task past MaxTasks: %v", err)
	}
	if _, err := c.GetTask(ctx, &a2a.GetTaskRequest{ID: ids[2]}); err != nil {
		t.Fatalf("the newest task: %v", err)
	}
	eventually(t, "the tasks forgotten after their TTL", func() bool { return l.f.tasks.Len() == 0 })

	_, err := c.CreateTaskPushConfig(ctx, &a2a.PushConfig{TaskID: ids[2], URL: "http://127.0.0.1:1/hook"})
	if !errors.Is(err, a2a.ErrPushNotificationNotSupported) {
		t.Fatalf("push notifications: %v", err)
	}

	ids2 := make(chan a2a.TaskID, 1)
	go func() {
		for ev, err := range c.SendStreamingMessage(ctx, message("sleep", a2a.NewDataPart(map[string]any{"ms": 300}))) {
			if task, ok := ev.(*a2a.Task); ok && err == nil {
				ids2 <- task.ID
			}
		}
	}()
	var last a2a.TaskState
	for ev, err := range c.SubscribeToTask(ctx, &a2a.SubscribeToTaskRequest{ID: <-ids2}) {
		if err != nil {
			t.Fatal(err)
		}
		if s, ok := ev.(*a2a.TaskStatusUpdateEvent); ok {
			last = s.Status.State
		}
	}
	if last != a2a.TaskStateCompleted {
		t.Fatalf("SubscribeToTask ended at %q", last)
	}
}
