package a2aface

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2asrv/taskstore"
	"github.com/mcp-bridge/mcp-bridge/bridge/metrics"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
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

// TestTaskOrder: past the bound, the task changed longest ago goes, an
// update making a task the newest; each drop is counted in
// bridge_table_dropped_total{table="a2a_tasks"}, beside the table's limit
// and size; past the TTL a finished task is forgotten and a working one
// kept.
func TestTaskOrder(t *testing.T) {
	task := func(id string, state a2a.TaskState) *a2a.Task {
		return &a2a.Task{ID: a2a.TaskID(id), ContextID: "c", Status: a2a.TaskStatus{State: state}}
	}
	for _, tc := range []struct {
		name    string
		ttl     time.Duration
		steps   func(s taskstore.Store) error
		kept    []string
		dropped float64
	}{
		{"oldest dropped", time.Hour, func(s taskstore.Store) error {
			for _, id := range []string{"a", "b", "c", "d"} {
				if _, err := s.Create(context.Background(), task(id, a2a.TaskStateCompleted)); err != nil {
					return err
				}
			}
			return nil
		}, []string{"b", "c", "d"}, 1},
		{"an update makes a task the newest", time.Hour, func(s taskstore.Store) error {
			for _, id := range []string{"a", "b", "c"} {
				if _, err := s.Create(context.Background(), task(id, a2a.TaskStateWorking)); err != nil {
					return err
				}
			}
			if _, err := s.Update(context.Background(), &taskstore.UpdateRequest{Task: task("a", a2a.TaskStateCompleted), PrevVersion: 1}); err != nil {
				return err
			}
			for _, id := range []string{"d", "e"} {
				if _, err := s.Create(context.Background(), task(id, a2a.TaskStateCompleted)); err != nil {
					return err
				}
			}
			return nil
		}, []string{"a", "d", "e"}, 2},
		{"finished ones forgotten after the TTL", 30 * time.Millisecond, func(s taskstore.Store) error {
			for _, tk := range []*a2a.Task{task("a", a2a.TaskStateCompleted), task("b", a2a.TaskStateWorking), task("c", a2a.TaskStateFailed)} {
				if _, err := s.Create(context.Background(), tk); err != nil {
					return err
				}
			}
			return nil
		}, []string{"b"}, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			reg := prometheus.NewRegistry()
			table, err := metrics.NewTable(reg, metrics.TableA2ATasks, 3, func() float64 { return 0 })
			if err != nil {
				t.Fatal(err)
			}
			ts := newTasks(tc.ttl, 3, table)
			defer ts.close()
			s := ts.store("agent")
			if err := tc.steps(s); err != nil {
				t.Fatal(err)
			}
			if tc.ttl < time.Hour {
				eventually(t, "the sweep", func() bool { return ts.Len() <= len(tc.kept) })
			}
			var kept []string
			for _, id := range []string{"a", "b", "c", "d", "e"} {
				if _, err := s.Get(context.Background(), a2a.TaskID(id)); err == nil {
					kept = append(kept, id)
				}
			}
			if !slices.Equal(kept, tc.kept) || ts.Len() != len(tc.kept) {
				t.Errorf("kept %v (%d), want %v", kept, ts.Len(), tc.kept)
			}
			ts.mu.Lock()
			n := 0
			for h := ts.head; h != nil; h = h.next {
				n++
			}
			ts.mu.Unlock()
			if n != len(tc.kept) {
				t.Errorf("%d tasks in the order, %d kept", n, len(tc.kept))
			}
			if got := testutil.ToFloat64(table.Counter()); got != tc.dropped {
				t.Errorf("dropped %v, want %v", got, tc.dropped)
			}
		})
	}
}

// TestTableMetrics: the face registers its task table's limit, size and
// drops with the registry of its options.
func TestTableMetrics(t *testing.T) {
	reg := prometheus.NewRegistry()
	l := serve(t, Options{MaxTasks: 1, Metrics: reg})
	l.attach("swarm", "calc", "echo")
	c := l.client("calc", "")
	for range 2 {
		send(t, c, message("echo", a2a.NewTextPart("x")))
	}
	want := `
# HELP bridge_table_dropped_total Entries that went past a table's bound: the oldest dropped, or for the queue the newest refused.
# TYPE bridge_table_dropped_total counter
bridge_table_dropped_total{table="a2a_tasks"} 1
# HELP bridge_table_limit The bound of a table the bridge keeps (config memory: and queue:), in its entries or bytes.
# TYPE bridge_table_limit gauge
bridge_table_limit{table="a2a_tasks"} 1
# HELP bridge_table_size How much a table the bridge keeps holds, in its entries or bytes.
# TYPE bridge_table_size gauge
bridge_table_size{table="a2a_tasks"} 1
`
	if err := testutil.GatherAndCompare(reg, strings.NewReader(want)); err != nil {
		t.Fatal(err)
	}
}
