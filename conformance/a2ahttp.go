package conformance

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2aclient"
	"github.com/a2aproject/a2a-go/v2/a2aclient/agentcard"
	"github.com/tidwall/gjson"
)

// CardPath is where an A2A agent serves its agent card, under its base URL.
const CardPath = "/.well-known/agent-card.json"

// The bounds of what the suite reads of an A2A agent over HTTP, beyond the
// frame size limit.
const (
	maxDrain  = 64 << 20 // bytes of a body read past the frame limit
	maxStream = 1000     // SSE events of one answer
)

// A2A is an A2A agent over HTTP (A2A v1.0, JSON-RPC binding). rawURL is its
// agent card's URL, or a base URL the card is at CardPath under. Opening it
// fetches the card and takes the first interface it offers with the
// JSON-RPC binding; each frame written is then POSTed there, and the
// answer's body (application/json) or each of its events (text/event-stream)
// is a frame read back. The run uses the a2a dialect's requirements over
// HTTP (dialects/a2a/conformance_http.yaml) rather than those of its
// frames on a stream.
func A2A(rawURL string) Target { return A2AWith(rawURL, nil) }

// A2AWith is A2A with header sent on every request to the agent (the card's
// and the JSON-RPC calls), e.g. its Authorization.
func A2AWith(rawURL string, header http.Header) Target {
	return &a2aTarget{cardURL: cardURL(rawURL), client: &http.Client{}, header: header.Clone()}
}

// IsHTTP reports whether a --url names an A2A agent over HTTP (http:// or
// https://) rather than a WebSocket.
func IsHTTP(rawURL string) bool {
	u, err := url.Parse(rawURL)
	return err == nil && (u.Scheme == "http" || u.Scheme == "https")
}

// cardURL is the card's URL of rawURL: itself when its path ends in .json,
// else CardPath under it.
func cardURL(rawURL string) string {
	u, err := url.Parse(rawURL)
	if err != nil || strings.HasSuffix(u.Path, ".json") {
		return rawURL
	}
	u.Path = strings.TrimSuffix(u.Path, "/") + CardPath
	return u.String()
}

// a2aTarget is an A2A agent reached over HTTP.
type a2aTarget struct {
	cardURL string
	client  *http.Client
	header  http.Header // sent with every request
}

// get is a GET of the card, with the target's headers.
func (t *a2aTarget) get(ctx context.Context) (*http.Request, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, t.cardURL, nil)
	if err != nil {
		return nil, err
	}
	addHeader(req, t.header)
	return req, nil
}

// addHeader adds every value of h to req's headers.
func addHeader(req *http.Request, h http.Header) {
	for k, vs := range h {
		for _, v := range vs {
			req.Header.Add(k, v)
		}
	}
}

func (t *a2aTarget) String() string { return t.cardURL }

// Open fetches the card and opens a connection to the JSON-RPC interface
// it names. A card that cannot be fetched, is not JSON or names no
// JSON-RPC interface leaves the agent unreachable; what else is wrong with
// it is for the requirements to find.
func (t *a2aTarget) Open(ctx context.Context, maxFrame int) (Conn, error) {
	req, err := t.get(ctx)
	if err != nil {
		return nil, unreachable(fmt.Errorf("the agent card's URL %s: %w", t.cardURL, err))
	}
	res, err := t.client.Do(req)
	if err != nil {
		return nil, unreachable(fmt.Errorf("fetching the agent card: %w", err))
	}
	card, size, err := readBody(res.Body, maxFrame)
	res.Body.Close()
	switch {
	case err != nil:
		return nil, unreachable(fmt.Errorf("reading the agent card at %s: %w", t.cardURL, err))
	case res.StatusCode != http.StatusOK:
		return nil, unreachable(fmt.Errorf("the agent card at %s: HTTP %s: %s", t.cardURL, res.Status, clip(card)))
	case size > len(card):
		return nil, unreachable(fmt.Errorf("the agent card at %s is %d bytes, over the frame limit of %d", t.cardURL, size, maxFrame))
	case !gjson.ValidBytes(card) || !gjson.ParseBytes(card).IsObject():
		return nil, unreachable(fmt.Errorf("the agent card at %s is not a JSON object: %s", t.cardURL, clip(card)))
	}
	endpoint, err := jsonrpcURL(t.cardURL, card)
	if err != nil {
		return nil, unreachable(fmt.Errorf("the agent card at %s: %w", t.cardURL, err))
	}
	cctx, cancel := context.WithCancel(context.Background())
	return &a2aConn{client: t.client, header: t.header, endpoint: endpoint, card: card, maxFrame: maxFrame,
		ctx: cctx, cancel: cancel, frames: make(chan Frame, inboxFrames)}, nil
}

// jsonrpcURL is the URL of the first interface of card with the JSON-RPC
// binding, resolved against the card's own URL when it is relative (a card
// that gives a relative URL fails a requirement, and still gets called).
func jsonrpcURL(cardAt string, card []byte) (string, error) {
	for _, in := range gjson.GetBytes(card, "supportedInterfaces").Array() {
		if in.Get("protocolBinding").String() != "JSONRPC" || in.Get("url").String() == "" {
			continue
		}
		base, err := url.Parse(cardAt)
		if err != nil {
			return "", err
		}
		ref, err := url.Parse(in.Get("url").String())
		if err != nil {
			return "", fmt.Errorf("supportedInterfaces: url %q: %w", in.Get("url").String(), err)
		}
		return base.ResolveReference(ref).String(), nil
	}
	return "", errors.New(`it offers no JSON-RPC interface (supportedInterfaces[] with protocolBinding "JSONRPC" and a url)`)
}

// readBody reads up to max bytes of body, and how long the whole body is
// (read to its end, up to maxDrain more).
func readBody(body io.Reader, max int) (data []byte, size int, err error) {
	data, err = io.ReadAll(io.LimitReader(body, int64(max)))
	if err != nil {
		return data, len(data), err
	}
	n, err := io.Copy(io.Discard, io.LimitReader(body, maxDrain))
	return data, len(data) + int(n), err
}

// a2aConn is the connection to an A2A agent over HTTP: each Write is one
// POST; the answers are read as frames.
type a2aConn struct {
	client   *http.Client
	header   http.Header // sent with every request
	endpoint string
	card     []byte
	maxFrame int

	ctx    context.Context // ends at Close, with every request under way
	cancel context.CancelFunc
	frames chan Frame
	wg     sync.WaitGroup
}

// Card returns the agent card fetched when the connection opened.
func (c *a2aConn) Card() []byte { return c.card }

// Endpoint returns the URL of the JSON-RPC interface the frames go to.
func (c *a2aConn) Endpoint() string { return c.endpoint }

// Write POSTs frame to the JSON-RPC interface and waits for the answer's
// status and headers, giving up when ctx ends. An answer other than 200 is
// an error saying its status and body; a 200's body (a JSON-RPC answer, or
// the events of a stream) is read back as frames.
func (c *a2aConn) Write(ctx context.Context, frame []byte) error {
	req, err := http.NewRequestWithContext(c.ctx, http.MethodPost, c.endpoint, bytes.NewReader(frame))
	if err != nil {
		return err
	}
	addHeader(req, c.header)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	type answer struct {
		res *http.Response
		err error
	}
	got := make(chan answer, 1)
	go func() {
		res, err := c.client.Do(req)
		got <- answer{res, err}
	}()
	var a answer
	select {
	case a = <-got:
	case <-ctx.Done():
		go func() { // the answer may still come: close it
			if a := <-got; a.res != nil {
				a.res.Body.Close()
			}
		}()
		return fmt.Errorf("POST %s: no HTTP answer: %w", c.endpoint, ctx.Err())
	}
	if a.err != nil {
		return fmt.Errorf("POST %s: %w", c.endpoint, a.err)
	}
	if a.res.StatusCode != http.StatusOK {
		body, _, _ := readBody(a.res.Body, clipFrame)
		a.res.Body.Close()
		return fmt.Errorf("POST %s: HTTP %s (A2A's JSON-RPC binding answers 200, errors included): %s", c.endpoint, a.res.Status, clip(body))
	}
	c.wg.Add(1)
	go func() {
		defer c.wg.Done()
		defer a.res.Body.Close()
		if mt, _, _ := mime.ParseMediaType(a.res.Header.Get("Content-Type")); mt == "text/event-stream" {
			c.readStream(a.res.Body)
			return
		}
		data, size, _ := readBody(a.res.Body, c.maxFrame)
		c.put(Frame{Data: data, Size: size})
	}()
	return nil
}

// readStream reads the events of a server-sent event stream, the data of
// each a frame (its data lines joined with newlines).
func (c *a2aConn) readStream(body io.Reader) {
	r := bufio.NewReaderSize(body, 64<<10)
	limit := c.maxFrame + 16
	var data []byte
	size, events := 0, 0
	for events < maxStream {
		line, n, eol, err := readLine(r, limit)
		field := bytes.TrimRight(line, "\r\n")
		switch {
		case len(field) == 0 && n > 0: // a blank line ends an event
			if size > 0 {
				c.put(Frame{Data: data, Size: size})
				events++
			}
			data, size = nil, 0
		case bytes.HasPrefix(field, []byte("data:")):
			chunk := bytes.TrimPrefix(bytes.TrimPrefix(field, []byte("data:")), []byte(" "))
			whole := n - eol - (len(field) - len(chunk)) // the data's length, the line's kept or not
			if size > 0 {
				chunk, whole = append([]byte("\n"), chunk...), whole+1
			}
			size += whole
			if room := c.maxFrame - len(data); room > 0 {
				data = append(data, chunk[:min(room, len(chunk))]...)
			}
		}
		if err != nil {
			break
		}
	}
	if size > 0 {
		c.put(Frame{Data: data, Size: size})
	}
}

// readLine reads one line, keeping at most limit bytes of it; n is its
// whole length, eol the length of its line ending (0 at the end of the
// stream, 1 for LF, 2 for CRLF).
func readLine(r *bufio.Reader, limit int) (line []byte, n, eol int, err error) {
	for {
		part, err := r.ReadSlice('\n')
		n += len(part)
		if room := limit - len(line); room > 0 {
			line = append(line, part[:min(room, len(part))]...)
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		switch {
		case bytes.HasSuffix(part, []byte("\r\n")):
			eol = 2
		case bytes.HasSuffix(part, []byte("\n")):
			eol = 1
		}
		return line, n, eol, err
	}
}

// put queues a frame for Read; it is dropped once the connection is
// closed.
func (c *a2aConn) put(f Frame) {
	select {
	case c.frames <- f:
	case <-c.ctx.Done():
	}
}

// Read returns the next frame the agent answered.
func (c *a2aConn) Read() (Frame, error) {
	select {
	case f := <-c.frames:
		return f, nil
	case <-c.ctx.Done():
		return Frame{}, errors.New("the connection was closed")
	}
}

// Close ends the requests under way.
func (c *a2aConn) Close() error {
	c.cancel()
	c.wg.Wait()
	return nil
}

// cardStep fetches the agent card again and checks that it resolves: 200
// and JSON that a2a-go's card parser reads; then, as e asks, that a2a-go's
// client can be made from it (an interface it speaks, with an absolute URL
// and a protocol version) and e's checks on its JSON.
func (r *runner) cardStep(e *Expect) outcome {
	t, ok := r.target.(*a2aTarget)
	if !ok {
		return failure("a card step is for an A2A agent over HTTP (an http:// or https:// --url)")
	}
	ctx, cancel := context.WithTimeout(r.ctx, r.o.Timeout)
	defer cancel()
	req, err := t.get(ctx)
	if err != nil {
		return failure("the agent card's URL: %v", err)
	}
	at := time.Now()
	res, err := t.client.Do(req)
	if err != nil {
		return failure("fetching the agent card: %v", err)
	}
	raw, size, err := readBody(res.Body, r.o.MaxFrame)
	res.Body.Close()
	f := &inbound{Frame: Frame{Data: raw, Size: size}, at: at}
	switch {
	case err != nil:
		return failure("reading the agent card: %v", err)
	case res.StatusCode != http.StatusOK:
		return failure("GET %s answered HTTP %s", t.cardURL, res.Status).blame(f, "", "the agent card is served with 200")
	case f.Oversize():
		return failure("the agent card is %d bytes", size).blame(f, "", fmt.Sprintf("a card is at most %d bytes", r.o.MaxFrame))
	}
	card, err := agentcard.DefaultCardParser(raw)
	if err != nil {
		return failure("a2a-go's card parser refuses the agent card").blame(f, "", "the card is an A2A v1.0 AgentCard in JSON: "+err.Error())
	}
	if e == nil {
		return passed("")
	}
	if e.Client {
		client, err := a2aclient.NewFromCard(ctx, card)
		if err != nil {
			return failure("a2a-go cannot make a client from the agent card").blame(f, "supportedInterfaces",
				"an interface a client speaks, with an absolute URL and a protocol version: "+err.Error())
		}
		_ = client.Destroy()
	}
	for _, c := range e.Check {
		if o := r.check(c, f, nil); o.status != "" {
			o.detail = "the agent card: " + o.detail
			return o
		}
	}
	return passed("")
}
