package loadgen

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// A bridge in its own process: one the run was given (External), or one it
// starts as a child (Spawn). Its figures come from its /metrics, and its
// agents from its /v1/agents.

// externalBridge returns the running bridge at u, an http:// or ws:// URL
// of its listener.
func externalBridge(u string) (*running, error) {
	p, err := url.Parse(u)
	if err != nil || p.Host == "" || (p.Scheme != "http" && p.Scheme != "ws") {
		return nil, fmt.Errorf("loadgen: external bridge %q: want http://HOST:PORT or ws://HOST:PORT", u)
	}
	r := &running{addr: p.Host}
	if _, err := r.scrape(); err != nil {
		return nil, fmt.Errorf("loadgen: external bridge %s: %w", u, err)
	}
	return r, nil
}

// spawnBridge starts command (a program and its first arguments, as
// `mcp-bridge`) with `serve` on a loopback port, and a config that
// validates as o says and serves pprof (to collect the heap before each
// measure), and returns once it listens.
func spawnBridge(command []string, o Options) (*running, error) {
	dir, err := os.MkdirTemp("", "mcp-bridge-bench-")
	if err != nil {
		return nil, fmt.Errorf("loadgen: spawn: %w", err)
	}
	started := false
	defer func() {
		if !started {
			os.RemoveAll(dir)
		}
	}()
	cfgFile := filepath.Join(dir, "serve.yaml")
	cfg := fmt.Sprintf("listen: 127.0.0.1:0\nvalidate: %s\nshutdown_timeout: 2s\npprof: true\nlog: {level: warn}\n", o.Validate)
	if err := os.WriteFile(cfgFile, []byte(cfg), 0o600); err != nil {
		return nil, fmt.Errorf("loadgen: spawn: %w", err)
	}
	cmd := exec.Command(command[0], append(append([]string{}, command[1:]...), "serve", "--config", cfgFile)...)
	cmd.Stderr = os.Stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, fmt.Errorf("loadgen: spawn: %w", err)
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("loadgen: spawn %s: %w", command[0], err)
	}
	line, err := bufio.NewReader(out).ReadString('\n')
	m := listening.FindStringSubmatch(line)
	if m == nil {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		return nil, fmt.Errorf("loadgen: spawn: the bridge did not start (%q, %v)", line, err)
	}
	go func() { _, _ = io.Copy(io.Discard, out) }()
	started = true
	return &running{addr: m[1], child: cmd, dir: dir}, nil
}

// listening finds the address in serve's startup line.
var listening = regexp.MustCompile(`listening on http://([^ ]+) `)

// stopChild stops a spawned bridge with SIGTERM, as an operator would, and
// waits for it.
func (r *running) stopChild() error {
	defer os.RemoveAll(r.dir)
	_ = r.child.Process.Signal(syscall.SIGTERM)
	done := make(chan error, 1)
	go func() { done <- r.child.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			return fmt.Errorf("loadgen: the spawned bridge: %w", err)
		}
		return nil
	case <-time.After(connectWait):
		_ = r.child.Process.Kill()
		return errors.New("loadgen: the spawned bridge did not stop")
	}
}

// readyTools returns the agents the bridge lists READY, from /v1/agents
// page by page, with how many tools each has.
func (r *running) readyTools(ctx context.Context) (map[string]int, error) {
	ids := map[string]int{}
	after := ""
	for {
		q := url.Values{"limit": {"1000"}}
		if after != "" {
			q.Set("after", after)
		}
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, "http://"+r.addr+"/v1/agents?"+q.Encode(), nil)
		if err != nil {
			return nil, err
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			return nil, err
		}
		var list struct {
			Agents []struct {
				ID, Status string
				Tools      []struct{}
			}
			Next string
		}
		err = json.NewDecoder(resp.Body).Decode(&list)
		resp.Body.Close()
		if err != nil {
			return nil, fmt.Errorf("/v1/agents: %w", err)
		}
		for _, a := range list.Agents {
			if a.Status == "READY" {
				ids[a.ID] = len(a.Tools)
			}
		}
		if list.Next == "" || list.Next == after {
			return ids, nil
		}
		after = list.Next
	}
}

// Memory is a bridge process's memory, from its /metrics.
type Memory struct {
	RSS       int64 // process_resident_memory_bytes
	HeapInuse int64 // go_memstats_heap_inuse_bytes
	// GCs and GCPause are the collections so far and their pauses in all
	// (go_gc_duration_seconds); MaxPause the longest of the recent ones.
	GCs      int64
	GCPause  time.Duration
	MaxPause time.Duration
}

// scrape reads the bridge's memory from /metrics: its collections so far,
// then its resident memory and heap after asking it to collect its
// garbage where it serves pprof, so that the heap is what it keeps.
func (r *running) scrape() (Memory, error) {
	var m Memory
	if err := r.metrics(func(name string, v float64) {
		seconds := time.Duration(v * float64(time.Second))
		switch name {
		case "go_gc_duration_seconds_count":
			m.GCs = int64(v)
		case "go_gc_duration_seconds_sum":
			m.GCPause = seconds
		case `go_gc_duration_seconds{quantile="1"}`:
			m.MaxPause = seconds
		}
	}); err != nil {
		return m, err
	}
	if resp, err := http.Get("http://" + r.addr + "/debug/pprof/heap?gc=1"); err == nil {
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
	}
	err := r.metrics(func(name string, v float64) {
		switch name {
		case "process_resident_memory_bytes":
			m.RSS = int64(v)
		case "go_memstats_heap_inuse_bytes":
			m.HeapInuse = int64(v)
		}
	})
	return m, err
}

// heapProfile writes the bridge's heap profile, taken after a
// collection, to file.
func (r *running) heapProfile(file string) error {
	resp, err := http.Get("http://" + r.addr + "/debug/pprof/heap?gc=1")
	if err != nil {
		return fmt.Errorf("loadgen: heap profile: %w", err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("loadgen: heap profile: /debug/pprof/heap: %s", resp.Status)
	}
	f, err := os.Create(file)
	if err != nil {
		return fmt.Errorf("loadgen: heap profile: %w", err)
	}
	if _, err := io.Copy(f, resp.Body); err != nil {
		f.Close()
		return fmt.Errorf("loadgen: heap profile %s: %w", file, err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("loadgen: heap profile %s: %w", file, err)
	}
	return nil
}

// metrics reads the bridge's /metrics, telling each sample to take.
func (r *running) metrics(take func(name string, v float64)) error {
	resp, err := http.Get("http://" + r.addr + "/metrics")
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("/metrics: %s", resp.Status)
	}
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		name, value, ok := strings.Cut(sc.Text(), " ")
		if !ok || strings.HasPrefix(name, "#") {
			continue
		}
		if v, err := strconv.ParseFloat(value, 64); err == nil {
			take(name, v)
		}
	}
	return sc.Err()
}

// peakRSS watches the bridge process's resident memory for window and
// returns its peak, and how it was read. A spawned bridge is read from
// outside, in /proc: its high-water mark (VmHWM) reset at the start where
// the kernel allows it (clear_refs), and VmRSS sampled every 20 ms; one
// the run was given, from its /metrics every 250 ms.
func (r *running) peakRSS(ctx context.Context, window time.Duration) (int64, string, error) {
	end := time.Now().Add(window)
	var peak int64
	if r.child != nil {
		dir := fmt.Sprintf("/proc/%d/", r.child.Process.Pid)
		reset := os.WriteFile(dir+"clear_refs", []byte("5"), 0) == nil
		for time.Now().Before(end) && ctx.Err() == nil {
			rss, _, err := procStatus(dir + "status")
			if err != nil {
				return 0, "", err
			}
			peak = max(peak, rss)
			time.Sleep(20 * time.Millisecond)
		}
		if !reset {
			return peak, "VmRSS sampled every 20 ms", nil
		}
		_, hwm, err := procStatus(dir + "status")
		if err != nil {
			return 0, "", err
		}
		return max(peak, hwm), "VmHWM, reset at the start", nil
	}
	for time.Now().Before(end) && ctx.Err() == nil {
		err := r.metrics(func(name string, v float64) {
			if name == "process_resident_memory_bytes" {
				peak = max(peak, int64(v))
			}
		})
		if err != nil {
			return 0, "", err
		}
		time.Sleep(250 * time.Millisecond)
	}
	return peak, "/metrics sampled every 250 ms", nil
}

// procStatus reads a process's resident memory and its high-water mark,
// in bytes, from its /proc status file.
func procStatus(file string) (rss, hwm int64, err error) {
	b, err := os.ReadFile(file)
	if err != nil {
		return 0, 0, fmt.Errorf("loadgen: %w", err)
	}
	for line := range strings.Lines(string(b)) {
		name, value, ok := strings.Cut(line, ":")
		if !ok || (name != "VmRSS" && name != "VmHWM") {
			continue
		}
		kb, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(value), " kB"), 10, 64)
		if err != nil {
			return 0, 0, fmt.Errorf("loadgen: %s: %s: %q", file, name, value)
		}
		if name == "VmRSS" {
			rss = kb << 10
		} else {
			hwm = kb << 10
		}
	}
	if rss == 0 {
		return 0, 0, fmt.Errorf("loadgen: %s: no VmRSS", file)
	}
	return rss, hwm, nil
}
