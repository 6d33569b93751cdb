package a2aface

import (
	"context"
	"errors"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2aclient"
	"github.com/mcp-bridge/mcp-bridge/bridge"
	"github.com/mcp-bridge/mcp-bridge/canonical"
)

// skillLike returns the id of the card's skill whose id holds word.
func skillLike(t *testing.T, card *a2a.AgentCard, word string) string {
	t.Helper()
	for _, s := range card.Skills {
		if strings.Contains(s.ID, word) {
			return s.ID
		}
	}
	t.Fatalf("card of %s has no skill like %q: %+v", card.Name, word, card.Skills)
	return ""
}

// TestEveryDialect: an A2A client of the official SDK, made from the card
// the bridge serves, calls a reference agent of each dialect: the result
// as a completed task with a data and a text part, a failure as a failed
// task, a stream to its completion, a slow call cancelled, and GetTask and
// ListTasks find the tasks.
func TestEveryDialect(t *testing.T) {
	l := serve(t, Options{Version: "1.2.3"})
	for _, tc := range []struct{ dialect, id string }{
		{"elizaacl", "eliza-agent"}, {"collab", "collab-agent"}, {"bluelabel", "BLUE"},
		{"fuse", "fuse-agent"}, {"swarm", "swarm-agent"},
	} {
		t.Run(tc.dialect, func(t *testing.T) {
			if tc.dialect == "bluelabel" { // its agents tell no tools: they are declared
				l.b.Declare(bridge.AgentSpec{ID: tc.id, Dialect: tc.dialect, Tools: []canonical.Tool{{Name: "echo"}, {Name: "fail"}, {Name: "sleep"}}})
			}
			l.attach(tc.dialect, tc.id, "echo", "fail", "sleep")
			var card a2a.AgentCard
			if status := l.get(l.url+Path+"/"+tc.id+CardPath, "", &card); status != http.StatusOK {
				t.Fatalf("card: HTTP %d", status)
			}
			if card.Name != tc.id || card.Version != "1.2.3" || !card.Capabilities.Streaming || len(card.Skills) != 3 ||
				!slices.Contains(card.Skills[0].Tags, tc.dialect) || card.SupportedInterfaces[0].URL != l.url+Path+"/"+tc.id {
				t.Fatalf("card: %+v", card)
			}
			c := l.client(tc.id, "")
			ctx := context.Background()

			task := send(t, c, message(skillLike(t, &card, "echo"), a2a.NewDataPart(map[string]any{"text": "hi"})))
			if task.Status.State != a2a.TaskStateCompleted || len(task.Artifacts) != 1 || len(task.Artifacts[0].Parts) != 2 {
				t.Fatalf("echo: %+v", task)
			}
			data, _ := task.Artifacts[0].Parts[0].Data().(map[string]any)
			if !strings.Contains(task.Artifacts[0].Parts[1].Text(), "hi") || data == nil {
				t.Fatalf("echo's artifact: %+v %+v", task.Artifacts[0].Parts[0], task.Artifacts[0].Parts[1])
			}

			failed := send(t, c, message(skillLike(t, &card, "fail"), a2a.NewTextPart("boom")))
			if failed.Status.State != a2a.TaskStateFailed || !strings.Contains(statusText(failed), tc.id) {
				t.Fatalf("fail: %s %q", failed.Status.State, statusText(failed))
			}

			got, err := c.GetTask(ctx, &a2a.GetTaskRequest{ID: task.ID})
			if err != nil || got.Status.State != a2a.TaskStateCompleted {
				t.Fatalf("GetTask: %v %+v", err, got)
			}
			if states := stream(t, c, message(skillLike(t, &card, "echo"), a2a.NewTextPart("streamed"))); states[len(states)-1] != a2a.TaskStateCompleted {
				t.Fatalf("streamed: %v", states)
			}
			slow := make(chan a2a.TaskID, 1)
			go func() {
				for ev, err := range c.SendStreamingMessage(ctx, message(skillLike(t, &card, "sleep"), a2a.NewDataPart(map[string]any{"ms": 60000}))) {
					if task, ok := ev.(*a2a.Task); ok && err == nil {
						slow <- task.ID
					}
				}
			}()
			cancelled, err := c.CancelTask(ctx, &a2a.CancelTaskRequest{ID: <-slow})
			if err != nil || cancelled.Status.State != a2a.TaskStateCanceled {
				t.Fatalf("CancelTask: %v %+v", err, cancelled)
			}
			list, err := c.ListTasks(ctx, &a2a.ListTasksRequest{})
			if err != nil || len(list.Tasks) != 4 {
				t.Fatalf("ListTasks: %v %+v", err, list)
			}
		})
	}
	var listing Listing
	if l.get(l.url+Path, "", &listing); len(listing.Agents) != 5 || listing.Agents[0].Card != l.url+Path+"/"+listing.Agents[0].Name+CardPath {
		t.Fatalf("GET /a2a: %+v", listing)
	}
}

// TestSkill: without message.metadata.skill, an agent of one tool is
// called; one of several answers invalid params listing the skills, as
// does a skill it does not have.
func TestSkill(t *testing.T) {
	l := serve(t, Options{})
	l.attach("swarm", "one", "echo")
	l.attach("swarm", "two", "echo", "add")
	ctx := context.Background()
	task := send(t, l.client("one", ""), message("", a2a.NewTextPart("plain words")))
	if task.Status.State != a2a.TaskStateCompleted || !strings.Contains(task.Artifacts[0].Parts[1].Text(), "plain words") {
		t.Fatalf("one tool: %+v", task)
	}
	for _, skill := range []string{"", "nosuch"} {
		_, err := l.client("two", "").SendMessage(ctx, message(skill, a2a.NewTextPart("x")))
		if !errors.Is(err, a2a.ErrInvalidParams) || !strings.Contains(err.Error(), "add, echo") {
			t.Fatalf("skill %q: %v", skill, err)
		}
	}
}

// TestInputRequired: an agent's needs_input is a task in input-required
// asking for the inputs; a message with the same taskId answers it, and
// the task completes with the agent's result.
func TestInputRequired(t *testing.T) {
	l := serve(t, Options{})
	l.deployer()
	c := l.client("DEPLOYER", "")
	task := send(t, c, message("deploy", a2a.NewDataPart(map[string]any{"app": "web"})))
	if task.Status.State != a2a.TaskStateInputRequired || !strings.Contains(statusText(task), "region") {
		t.Fatalf("first: %s %q", task.Status.State, statusText(task))
	}
	m := a2a.NewMessageForTask(a2a.MessageRoleUser, task, a2a.NewDataPart(map[string]any{"region": "eu"}))
	done := send(t, c, &a2a.SendMessageRequest{Message: m})
	if done.ID != task.ID || done.Status.State != a2a.TaskStateCompleted ||
		!strings.Contains(done.Artifacts[0].Parts[1].Text(), `"eu"`) {
		t.Fatalf("answered: %+v", done)
	}
}

// TestStreaming: SendStreamingMessage streams the task submitted, working
// on its delivery, and its final state with the artifact.
func TestStreaming(t *testing.T) {
	l := serve(t, Options{})
	l.attach("collab", "streamer", "echo")
	var card a2a.AgentCard
	l.get(l.url+Path+"/streamer"+CardPath, "", &card)
	states := stream(t, l.client("streamer", ""), message(skillLike(t, &card, "echo"), a2a.NewTextPart("hi")))
	if len(states) < 3 || states[0] != a2a.TaskStateSubmitted || !slices.Contains(states, a2a.TaskStateWorking) ||
		states[len(states)-1] != a2a.TaskStateCompleted {
		t.Fatalf("states %v", states)
	}
}

// stream sends req with c over SendStreamingMessage, and returns the
// states it streamed; an artifact of other than a data and a text part,
// or a completed task with none, fails the test.
func stream(t *testing.T, c *a2aclient.Client, req *a2a.SendMessageRequest) []a2a.TaskState {
	t.Helper()
	var states []a2a.TaskState
	artifact := false
	for ev, err := range c.SendStreamingMessage(context.Background(), req) {
		if err != nil {
			t.Fatal(err)
		}
		switch ev := ev.(type) {
		case *a2a.Task:
			states = append(states, ev.Status.State)
		case *a2a.TaskStatusUpdateEvent:
			states = append(states, ev.Status.State)
		case *a2a.TaskArtifactUpdateEvent:
			if len(ev.Artifact.Parts) != 2 {
				t.Fatalf("artifact: %+v", ev.Artifact)
			}
			artifact = true
		}
	}
	if len(states) == 0 || states[len(states)-1] == a2a.TaskStateCompleted && !artifact {
		t.Fatalf("streamed %v, an artifact: %v", states, artifact)
	}
	return states
}

// TestCancel: CancelTask of a slow call cancels the request to the agent,
// and the task is canceled.
func TestCancel(t *testing.T) {
	l := serve(t, Options{})
	l.attach("swarm", "slow", "sleep")
	c := l.client("slow", "")
	ctx := context.Background()
	ids := make(chan a2a.TaskID, 1)
	go func() {
		for ev, err := range c.SendStreamingMessage(ctx, message("sleep", a2a.NewDataPart(map[string]any{"ms": 60000}))) {
			if task, ok := ev.(*a2a.Task); ok && err == nil {
				ids <- task.ID
				return
			}
		}
	}()
	var id a2a.TaskID
	select {
	case id = <-ids:
	case <-time.After(wait):
		t.Fatal("no task")
	}
	task, err := c.CancelTask(ctx, &a2a.CancelTaskRequest{ID: id})
	if err != nil || task.Status.State != a2a.TaskStateCanceled {
		t.Fatalf("CancelTask: %v %+v", err, task)
	}
	eventually(t, "the call given up", func() bool {
		l.f.mu.Lock()
		defer l.f.mu.Unlock()
		return len(l.f.agents["slow"].exec.calls) == 0
	})
}

// TestExposeAndTokens: a2a.expose hides an agent from the list and its
// card and endpoint; with tokens, a request without one is refused, and an
// agent's token reaches its agent only.
func TestExposeAndTokens(t *testing.T) {
	l := serve(t, Options{Deny: []string{"hidden"},
		Auth: Auth{Tokens: []Token{{Token: "all"}, {Token: "calc-only", Agents: []string{"calc"}}}}})
	l.attach("swarm", "calc", "echo")
	l.attach("swarm", "other", "echo")
	l.attach("swarm", "hidden", "echo")
	for _, tc := range []struct {
		url, token string
		status     int
	}{
		{Path, "", http.StatusUnauthorized},
		{Path + "/calc" + CardPath, "", http.StatusUnauthorized},
		{Path + "/calc" + CardPath, "wrong", http.StatusUnauthorized},
		{Path + "/calc" + CardPath, "all", http.StatusOK},
		{Path + "/hidden" + CardPath, "all", http.StatusNotFound},
		{Path + "/other" + CardPath, "calc-only", http.StatusNotFound},
		{Path + "/calc" + CardPath, "calc-only", http.StatusOK},
	} {
		if got := l.get(l.url+tc.url, tc.token, nil); got != tc.status {
			t.Errorf("GET %s with %q: %d, want %d", tc.url, tc.token, got, tc.status)
		}
	}
	var listing Listing
	l.get(l.url+Path, "all", &listing)
	if len(listing.Agents) != 2 {
		t.Fatalf("listing: %+v", listing)
	}
	var card a2a.AgentCard
	l.get(l.url+Path+"/calc"+CardPath, "all", &card)
	if _, ok := card.SecuritySchemes["bearer"]; !ok {
		t.Fatalf("card without its bearer scheme: %+v", card.SecuritySchemes)
	}
	task := send(t, l.client("calc", "all"), message("", a2a.NewTextPart("hi")))
	if task.Status.State != a2a.TaskStateCompleted {
		t.Fatalf("with a token: %+v", task)
	}
}

// TestREST: the HTTP+JSON binding the card lists serves the same agent:
// SendMessage, GetTask and ListTasks over it.
func TestREST(t *testing.T) {
	l := serve(t, Options{})
	l.attach("elizaacl", "eliza", "echo")
	paths := make(chan string, 16)
	c := l.restClient("eliza", paths)
	ctx := context.Background()
	task := send(t, c, message("", a2a.NewDataPart(map[string]any{"text": "over rest"})))
	if task.Status.State != a2a.TaskStateCompleted || !strings.Contains(task.Artifacts[0].Parts[1].Text(), "over rest") {
		t.Fatalf("SendMessage: %+v", task)
	}
	if got, err := c.GetTask(ctx, &a2a.GetTaskRequest{ID: task.ID}); err != nil || got.Status.State != a2a.TaskStateCompleted {
		t.Fatalf("GetTask: %v %+v", err, got)
	}
	if list, err := c.ListTasks(ctx, &a2a.ListTasksRequest{}); err != nil || len(list.Tasks) != 1 {
		t.Fatalf("ListTasks: %v %+v", err, list)
	}
	if p := <-paths; !strings.HasPrefix(p, Path+"/eliza"+RESTPath+"/") {
		t.Fatalf("the client's first request went to %s", p)
	}
}

// TestStoredOnce: a SendMessage that waits for the task's end has it
// stored once, in its final state (or in input-required, and once more
// when the answer completes it), with the history a status update would
// leave; one that asks to be answered at once (returnImmediately) gets
// the task submitted, and GetTask finds it completed later.
func TestStoredOnce(t *testing.T) {
	l := serve(t, Options{})
	l.attach("swarm", "calc", "echo", "sleep")
	l.deployer()
	ctx := context.Background()
	version := func(id a2a.TaskID) int {
		l.f.tasks.mu.Lock()
		defer l.f.tasks.mu.Unlock()
		if h := l.f.tasks.byID[id]; h != nil {
			return int(h.version)
		}
		return 0
	}
	roles := func(task *a2a.Task) []a2a.MessageRole {
		var r []a2a.MessageRole
		for _, m := range task.History {
			r = append(r, m.Role)
		}
		return r
	}
	for _, tc := range []struct {
		name string
		run  func(t *testing.T)
	}{
		{"result", func(t *testing.T) {
			task := send(t, l.client("calc", ""), message("echo", a2a.NewTextPart("once")))
			if task.Status.State != a2a.TaskStateCompleted || task.Status.Timestamp == nil || len(task.Artifacts) != 1 ||
				!strings.Contains(task.Artifacts[0].Parts[1].Text(), "once") || len(task.History) != 1 {
				t.Fatalf("task: %+v", task)
			}
			if v := version(task.ID); v != 1 {
				t.Fatalf("stored %d times", v)
			}
		}},
		{"input required", func(t *testing.T) {
			c := l.client("DEPLOYER", "")
			task := send(t, c, message("deploy", a2a.NewDataPart(map[string]any{"app": "web"})))
			if task.Status.State != a2a.TaskStateInputRequired || version(task.ID) != 1 {
				t.Fatalf("first: %s, version %d", task.Status.State, version(task.ID))
			}
			m := a2a.NewMessageForTask(a2a.MessageRoleUser, task, a2a.NewDataPart(map[string]any{"region": "us"}))
			done := send(t, c, &a2a.SendMessageRequest{Message: m})
			want := []a2a.MessageRole{a2a.MessageRoleUser, a2a.MessageRoleUser, a2a.MessageRoleAgent}
			if done.Status.State != a2a.TaskStateCompleted || !slices.Equal(roles(done), want) ||
				!strings.Contains(done.History[2].Parts[0].Text(), "region") {
				t.Fatalf("answered: %s, history %v", done.Status.State, roles(done))
			}
			// the answer is stored in history (1), then the final task (2)
			if v := version(done.ID); v != 3 {
				t.Fatalf("stored at version %d, not 3", v)
			}
		}},
		{"return immediately", func(t *testing.T) {
			c := l.client("calc", "")
			req := message("sleep", a2a.NewDataPart(map[string]any{"ms": 300}))
			req.Config = &a2a.SendMessageConfig{ReturnImmediately: true}
			task := send(t, c, req)
			if task.Status.State.Terminal() {
				t.Fatalf("answered at once in %s", task.Status.State)
			}
			eventually(t, "the task completed", func() bool {
				got, err := c.GetTask(ctx, &a2a.GetTaskRequest{ID: task.ID})
				return err == nil && got.Status.State == a2a.TaskStateCompleted && len(got.Artifacts) == 1
			})
		}},
	} {
		t.Run(tc.name, tc.run)
	}
}
