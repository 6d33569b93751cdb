package e2e

import (
	"context"
	"errors"
	"net/http"
	"testing"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2aclient"
	"github.com/mcp-bridge/mcp-bridge/a2aface"
	"github.com/mcp-bridge/mcp-bridge/config"
)

// TestA2ATaskTable: the A2A face's tasks are a bounded table of /metrics
// like the others (bridge_table_limit, _size and _dropped_total with
// table="a2a_tasks"): past memory.a2a_tasks the task changed longest ago
// is forgotten, and counted.
func TestA2ATaskTable(t *testing.T) {
	cfg := config.Default()
	cfg.Memory.A2ATasks = 2
	h := start(t, cfg)
	h.runAgent("swarm", "swarm-agent")
	var card a2a.AgentCard
	if got := h.a2aGet(a2aface.Path+"/swarm-agent"+a2aface.CardPath, "", &card); got != http.StatusOK {
		t.Fatalf("card: HTTP %d", got)
	}
	c, err := a2aclient.NewFromCard(context.Background(), &card, a2aclient.WithJSONRPCTransport(h.httpClient()))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Destroy()
	series := func(name string) string { return name + `{table="a2a_tasks"}` }
	if got := metricValue(t, h, series("bridge_table_limit")); got != 2 {
		t.Fatalf("limit %v before any task", got)
	}
	var ids []a2a.TaskID
	for i := range 3 {
		msg := a2a.NewMessage(a2a.MessageRoleUser, a2a.NewDataPart(map[string]any{"text": "task"}))
		msg.Metadata = map[string]any{"skill": "echo"}
		res, err := c.SendMessage(context.Background(), &a2a.SendMessageRequest{Message: msg})
		task, ok := res.(*a2a.Task)
		if err != nil || !ok || task.Status.State != a2a.TaskStateCompleted {
			t.Fatalf("SendMessage %d: %v %+v", i, err, res)
		}
		ids = append(ids, task.ID)
		if got := metricValue(t, h, series("bridge_table_size")); got != float64(min(i+1, 2)) {
			t.Fatalf("after %d tasks: size %v", i+1, got)
		}
	}
	for _, tc := range []struct {
		series string
		want   float64
	}{
		{series("bridge_table_limit"), 2},
		{series("bridge_table_size"), 2},
		{series("bridge_table_dropped_total"), 1},
	} {
		if got := metricValue(t, h, tc.series); got != tc.want {
			t.Errorf("%s: %v, want %v", tc.series, got, tc.want)
		}
	}
	if _, err := c.GetTask(context.Background(), &a2a.GetTaskRequest{ID: ids[0]}); !errors.Is(err, a2a.ErrTaskNotFound) {
		t.Fatalf("the first task, dropped: %v", err)
	}
	if _, err := c.GetTask(context.Background(), &a2a.GetTaskRequest{ID: ids[2]}); err != nil {
		t.Fatalf("the last task: %v", err)
	}
}
