package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2aclient"
)

// a2aScene plays an A2A client (a2a-go's) that reads the card of an agent
// at cardURL and sends it a message asking skill with args, printing the
// card's skills, the message and the task it is answered with.
func (d *demo) a2aScene(ctx context.Context, cardURL, skill, args string) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, cardURL, nil)
	if err != nil {
		return err
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	var card a2a.AgentCard
	err = json.NewDecoder(res.Body).Decode(&card)
	res.Body.Close()
	if err != nil {
		return fmt.Errorf("the agent card at %s: %w", cardURL, err)
	}
	c, err := a2aclient.NewFromCard(ctx, &card)
	if err != nil {
		return err
	}
	defer c.Destroy()
	var data map[string]any
	if err := json.Unmarshal([]byte(args), &data); err != nil {
		return err
	}
	msg := a2a.NewMessage(a2a.MessageRoleUser, a2a.NewDataPart(data))
	msg.Metadata = map[string]any{"skill": skill}
	skills := make([]string, 0, len(card.Skills))
	for _, s := range card.Skills {
		skills = append(skills, s.ID)
	}
	d.mu.Lock()
	fmt.Fprintf(d.out, "  a2a client card of %s: skills %v, %s\n", card.Name, skills, card.SupportedInterfaces[0].URL)
	fmt.Fprintf(d.out, "  a2a client SendMessage skill %s %s\n", skill, args)
	d.mu.Unlock()
	answer, err := c.SendMessage(ctx, &a2a.SendMessageRequest{Message: msg})
	if err != nil {
		return err
	}
	task, ok := answer.(*a2a.Task)
	if !ok {
		return fmt.Errorf("SendMessage answered %T, not a task", answer)
	}
	out, err := json.Marshal(task.Artifacts)
	if err != nil {
		return err
	}
	d.mu.Lock()
	fmt.Fprintf(d.out, "  a2a client task %s\n  a2a client artifacts  %s\n", task.Status.State, out)
	d.mu.Unlock()
	if task.Status.State != a2a.TaskStateCompleted {
		return fmt.Errorf("the task ended %s", task.Status.State)
	}
	return nil
}
