package cluster

import (
	"time"

	"github.com/mcp-bridge/mcp-bridge/bridge"
	"github.com/mcp-bridge/mcp-bridge/canonical"
)

// The messages instances send each other, as JSON on NATS. Subjects, under
// the cluster's prefix P:
//
//	P.dir          directory: snapshots of an instance's agents, their
//	               changes, an instance leaving; every instance listens
//	P.to.<name>    what one instance sends another: messages for the
//	               agents it holds, and answers to its requests
type message struct {
	// Kind is what the message is: kindSnapshot, kindAgent, kindBye,
	// kindDeliver, kindAnswer.
	Kind string `json:"kind"`
	// From is the instance that sent it.
	From string `json:"from"`
	// Agents are the sender's agents (a snapshot: all it holds; an agent
	// change: one).
	Agents []agentState `json:"agents,omitempty"`
	// Every is the sender's snapshot interval: it is gone after three
	// missed.
	Every time.Duration `json:"every,omitempty"`
	// Ask asks every instance for a snapshot at once (an instance that
	// just joined).
	Ask bool `json:"ask,omitempty"`
	// Agent is the agent a delivery is for, or an answer is from.
	Agent string `json:"agent,omitempty"`
	// Forward is a delivery's message and how to deliver it.
	Forward *forward `json:"forward,omitempty"`
	// Env is an answer.
	Env *canonical.Envelope `json:"env,omitempty"`
}

// The kinds of message.
const (
	kindSnapshot = "snapshot"
	kindAgent    = "agent"
	kindBye      = "bye"
	kindDeliver  = "deliver"
	kindAnswer   = "answer"
)

// agentState is an agent as the instance that holds it describes it.
type agentState struct {
	ID        string           `json:"id"`
	Dialect   string           `json:"dialect"`
	Transport string           `json:"transport"`
	Status    bridge.Status    `json:"status"`
	Connected bool             `json:"connected"`
	Since     time.Time        `json:"since"`
	Tools     []canonical.Tool `json:"tools,omitempty"`
	Topics    []string         `json:"topics,omitempty"`
	Reason    string           `json:"reason,omitempty"`
}

// forward is peer.Forward on the wire.
type forward struct {
	Env      *canonical.Envelope `json:"env"`
	From     string              `json:"from,omitempty"`
	Final    bool                `json:"final,omitempty"`
	Answer   bool                `json:"answer,omitempty"`
	ByBridge bool                `json:"by_bridge,omitempty"`
	AtLeast  int                 `json:"at_least,omitempty"`
}

// stateOf is the state of a local agent as info describes it.
func stateOf(info bridge.AgentInfo, tools []canonical.Tool, reason string) agentState {
	s := agentState{ID: info.ID, Dialect: info.Dialect, Transport: info.Transport, Status: info.Status,
		Connected: info.Connected, Tools: tools, Topics: info.Topics, Reason: reason}
	if info.Since != nil {
		s.Since = *info.Since
	}
	return s
}
