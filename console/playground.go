package console

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/mcp-bridge/mcp-bridge/bridge/tap"
	"io"
	"net/http"

	"github.com/mcp-bridge/mcp-bridge/dialects"
	"github.com/mcp-bridge/mcp-bridge/translate"
)

// The playground: a pasted message, validated as `mcp-bridge validate`
// does and translated into every other dialect as `mcp-bridge translate`
// does, with the bridge's own dialects and mapping files.

// playRequest is what the playground sends.
type playRequest struct {
	// Message is the text pasted, JSON or not.
	Message string `json:"message"`
	// From is its dialect, or "auto" (the default) to detect it.
	From string `json:"from"`
	// Sender names the agent sending a message that names none (a fuse
	// capability declaration), as --sender does.
	Sender string `json:"sender"`
}

// playResult is what the playground shows.
type playResult struct {
	// Dialect is the message's dialect, Detected set when it was told
	// from the message.
	Dialect  string `json:"dialect,omitempty"`
	Detected bool   `json:"detected"`
	// Error is why the message could not be read at all (its dialect
	// could not be told); then there is nothing else.
	Error string `json:"error,omitempty"`
	// Valid is set when the message passes its dialect's schema and rules;
	// Problems are what does not, each at its JSON path.
	Valid    bool      `json:"valid"`
	Problems []problem `json:"problems"`
	// Translations are the message in every other dialect, when it
	// decodes.
	Translations []translation `json:"translations"`
}

type problem struct {
	Path    string `json:"path"`
	Message string `json:"message"`
}

// translation is the message in one other dialect.
type translation struct {
	To string `json:"to"`
	// Message is the translation, indented; empty when it failed or was
	// dropped.
	Message string `json:"message,omitempty"`
	// Losses are what the dialect could not hold, held approximately, or
	// had to fill in.
	Losses []tap.Loss `json:"losses"`
	// Dropped is set when a mapping's act policy drops the message for
	// this dialect (Losses say why); Error says why it cannot be
	// translated, with Hint when there is a way.
	Dropped bool   `json:"dropped,omitempty"`
	Error   string `json:"error,omitempty"`
	Hint    string `json:"hint,omitempty"`
}

// translate answers POST /ui/api/translate.
func (c *Console) translate(w http.ResponseWriter, r *http.Request) {
	var req playRequest
	body, err := io.ReadAll(io.LimitReader(r.Body, int64(c.b.MaxFrame())*2+4096))
	if err == nil {
		err = json.Unmarshal(body, &req)
	}
	if err != nil {
		fail(w, http.StatusBadRequest, "playground: the request is not {\"message\": TEXT, \"from\": DIALECT|\"auto\", \"sender\": ID}: %v", err)
		return
	}
	if len(req.Message) > c.b.MaxFrame() {
		fail(w, http.StatusRequestEntityTooLarge, "playground: a message of %d bytes is over the bridge's limit of %d bytes", len(req.Message), c.b.MaxFrame())
		return
	}
	if req.From == "" {
		req.From = translate.Auto
	}
	if req.From != translate.Auto {
		if _, err := c.translator().Codec(req.From); err != nil {
			fail(w, http.StatusBadRequest, "playground: from: %v", err)
			return
		}
	}
	writeJSON(w, http.StatusOK, c.play(req))
}

// play validates and translates one message.
func (c *Console) play(req playRequest) playResult {
	msg := []byte(req.Message)
	res := playResult{Problems: []problem{}, Translations: []translation{}}
	codec, err := c.translator().Source(req.From, bytes.Clone(msg))
	if err != nil {
		res.Error = err.Error()
		return res
	}
	res.Dialect, res.Detected = codec.Name(), req.From == translate.Auto
	problems := dialects.Check(codec, bytes.Clone(msg))
	env, decodeErr := codec.Decode(bytes.Clone(msg))
	if decodeErr == nil && req.Sender != "" && env.Sender.ID != "" && env.Sender.ID != req.Sender {
		problems = append(problems, dialects.Problem{Message: fmt.Sprintf("the message names its sender %q, not %q (the sender given)", env.Sender.ID, req.Sender)})
	}
	for _, p := range problems {
		res.Problems = append(res.Problems, problem{Path: p.Path, Message: p.Message})
	}
	res.Valid = len(problems) == 0
	if decodeErr != nil {
		return res
	}
	for _, to := range c.translator().Registry.Names() {
		if to == codec.Name() {
			continue
		}
		res.Translations = append(res.Translations, c.translateTo(codec.Name(), to, msg, req.Sender))
	}
	return res
}

// translateTo translates msg from one dialect to another.
func (c *Console) translateTo(from, to string, msg []byte, sender string) translation {
	t := translation{To: to, Losses: []tap.Loss{}}
	res, err := c.translator().Translate(nil, from, to, bytes.Clone(msg), translate.Options{Sender: sender})
	if err != nil {
		t.Error = err.Error()
		if se := (*translate.SenderError)(nil); errors.As(err, &se) && se.Named == "" {
			t.Hint = "name the sender (at run time the agent of its connection sends it)"
		}
		return t
	}
	for _, l := range res.Losses {
		t.Losses = append(t.Losses, tap.Loss{Kind: l.Kind.String(), Concept: l.Concept.String(), Field: l.Path, Message: l.Message(), Hint: l.Hint})
	}
	if res.Dropped {
		t.Dropped = true
		return t
	}
	var out bytes.Buffer
	if json.Indent(&out, res.Output, "", "  ") != nil {
		t.Message = string(res.Output)
	} else {
		t.Message = out.String()
	}
	return t
}
