package console_test

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/mcp-bridge/mcp-bridge/dialects"
)

// TestBrowser drives the console in headless Chromium (Debian's chromium)
// against a live bridge with a swarm agent and an elizaacl agent: the
// agents table lists them, a request from one to the other shows up in the
// traffic view with its frames side by side, and the playground translates
// a pasted message into the other dialects. It saves a screenshot of each
// view in $CONSOLE_SCREENSHOTS (default: the test's temporary directory).
func TestBrowser(t *testing.T) {
	browser, err := exec.LookPath("chromium")
	if err != nil {
		t.Skip("the browser test needs Chromium: apt-get install chromium (make browser does it, as root)")
	}
	shots := os.Getenv("CONSOLE_SCREENSHOTS")
	if shots == "" {
		shots = t.TempDir()
	}
	if err := os.MkdirAll(shots, 0o755); err != nil {
		t.Fatal(err)
	}
	h := start(t, nil)
	h.runAgent("swarm", "Jules")
	eddy := h.runAgent("elizaacl", "eddy")

	alloc, stopAlloc := chromedp.NewExecAllocator(context.Background(), append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(browser), chromedp.NoSandbox, chromedp.DisableGPU, chromedp.WindowSize(1400, 1000))...)
	defer stopAlloc()
	ctx, stopBrowser := chromedp.NewContext(alloc, chromedp.WithLogf(t.Logf))
	defer stopBrowser()
	ctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	// until waits for a JavaScript condition on the page.
	until := func(what, expr string) {
		t.Helper()
		if _, err := chromedp.Run(ctx, chromedp.Poll[bool](expr, chromedp.WithPollingTimeout(wait))); err != nil {
			t.Fatalf("the page never showed %s: %v", what, err)
		}
	}
	text := func(sel string) string {
		t.Helper()
		s, err := chromedp.Run(ctx, chromedp.Text(chromedp.CSS(sel)))
		if err != nil {
			t.Fatalf("%s: %v", sel, err)
		}
		return s
	}
	shoot := func(name string) {
		t.Helper()
		png, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(shots, name), png, 0o644); err != nil {
			t.Fatal(err)
		}
	}

	// The agents table lists both agents, live.
	if err := chromedp.Do(ctx, chromedp.Navigate(h.url("/ui/#agents"))); err != nil {
		t.Fatal(err)
	}
	until("both agents", `document.querySelector('#agents-table tr[data-id="Jules"]') !== null && document.querySelector('#agents-table tr[data-id="eddy"]') !== null`)
	jules, eddyRow := text(`#agents-table tr[data-id="Jules"]`), text(`#agents-table tr[data-id="eddy"]`)
	if !strings.Contains(jules, "swarm") || !strings.Contains(jules, "READY") || !strings.Contains(eddyRow, "elizaacl") || !strings.Contains(eddyRow, "add") {
		t.Errorf("agents table rows: %q, %q", jules, eddyRow)
	}
	shoot("agents.png")

	// A message from eddy to Jules shows up in the traffic view; clicked,
	// it shows its frames as received and as delivered.
	if err := chromedp.Do(ctx, chromedp.Click(chromedp.CSS(`nav a[data-view="traffic"]`))); err != nil {
		t.Fatal(err)
	}
	until("the traffic view", `!document.querySelector('#view-traffic').hidden && document.querySelector('#traffic-status').textContent.includes('live')`)
	if _, err := eddy.Call(ctx, "Jules", eddy.Operation("add"), `{"a":2,"b":3}`); err != nil {
		t.Fatal(err)
	}
	const request = `[...document.querySelectorAll('#traffic-table tbody tr')].find(tr => tr.cells[1].textContent.startsWith('eddy') && tr.cells[2].textContent.startsWith('Jules') && tr.cells[3].textContent === 'request')`
	until("eddy's request", request+` !== undefined`)
	until("Jules's answer", `[...document.querySelectorAll('#traffic-table tbody tr')].some(tr => tr.cells[1].textContent.startsWith('Jules') && tr.cells[3].textContent === 'result')`)
	if err := chromedp.Do(ctx, chromedp.Click(chromedp.JSPath(request))); err != nil {
		t.Fatal(err)
	}
	until("the request's frames", `document.querySelector('#detail-received').textContent.includes('TASK_REQUEST') && document.querySelector('#detail-delivered').textContent.includes('tool_name')`)
	if s := text("#detail-title"); !strings.Contains(s, "eddy → Jules") {
		t.Errorf("detail title %q", s)
	}
	shoot("traffic.png")

	// The playground translates a pasted swarm request into the others.
	if err := chromedp.Do(ctx, chromedp.Click(chromedp.CSS(`nav a[data-view="playground"]`)),
		chromedp.SetValue(chromedp.ID("pg-message"), swarmRequest),
		chromedp.Click(chromedp.ID("pg-translate"))); err != nil {
		t.Fatal(err)
	}
	others := len(dialects.Names()) - 1
	until("a translation into each other dialect", fmt.Sprintf(`document.querySelectorAll('#pg-results .translation pre').length === %d`, others))
	if s := text("#pg-dialect"); !strings.Contains(s, "swarm (detected): valid") {
		t.Errorf("the playground's verdict: %q", s)
	}
	for _, d := range []string{"elizaacl", "collab", "bluelabel", "fuse", "a2a"} {
		if s := text(`.translation[data-dialect="` + d + `"] pre`); !strings.Contains(s, "debug_code") {
			t.Errorf("%s translation: %q", d, s)
		}
	}
	if s := text(`.translation[data-dialect="bluelabel"] .losses`); !strings.Contains(s, "AGENT-1") {
		t.Errorf("bluelabel's losses: %q", s)
	}
	shoot("playground.png")
	t.Logf("screenshots in %s", shots)
}
