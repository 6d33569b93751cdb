package server

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/mcp-bridge/mcp-bridge/config"
)

// TestWatchedFiles: the files whose change reloads the config: the config
// file, every mapping file, the TLS files and the JWT key files, as
// absolute paths.
func TestWatchedFiles(t *testing.T) {
	dir := t.TempDir()
	in := func(name string) string { return filepath.Join(dir, name) }
	c := config.Default()
	c.File = in("serve.yaml")
	c.Mappings = []string{in("site.yaml")}
	c.TLS = config.TLS{Cert: in("cert.pem"), Key: in("key.pem"), ClientCA: in("clients.pem"), CA: in("ca.pem")}
	c.Auth.JWT = &config.JWT{PublicKeys: []string{in("pub.pem")}, JWKSFile: in("jwks.json"), Sign: &config.Sign{Key: in("sign.pem")}}
	c.MCP.OAuth = &config.OAuth{JWKSFile: in("oauth-jwks.json")}
	got := watchedFiles(c, []string{"extra.yaml"})
	cwd, _ := os.Getwd()
	want := []string{in("serve.yaml"), in("site.yaml"), filepath.Join(cwd, "extra.yaml"), in("cert.pem"), in("key.pem"),
		in("clients.pem"), in("ca.pem"), in("pub.pem"), in("jwks.json"), in("sign.pem"), in("oauth-jwks.json")}
	if !slices.Equal(got, want) {
		t.Errorf("watched\n%q\nwant\n%q", got, want)
	}
	plain := config.Default()
	plain.File = in("serve.yaml")
	if got := watchedFiles(plain, nil); !slices.Equal(got, []string{in("serve.yaml")}) {
		t.Errorf("a config with no other files: %q", got)
	}
}

// watcher is a server watching its config file in a directory of the
// test's, reloading with a loader that counts its calls.
type watcher struct {
	t     *testing.T
	s     *Server
	dir   string
	file  string
	mu    sync.Mutex
	loads int
	read  []string              // the config file's content at each load
	next  func() *config.Config // what the loader reads; nil: the config as it is
}

// watching runs the watch of a server whose config file is serve.yaml in
// a new directory, with debounce, until the test ends.
func watching(t *testing.T, debounce time.Duration) *watcher {
	t.Helper()
	dir := t.TempDir()
	w := &watcher{t: t, dir: dir, file: filepath.Join(dir, "serve.yaml")}
	w.write("serve.yaml", "1")
	cfg := config.Default()
	cfg.File, cfg.Reload = w.file, config.Reload{Watch: true, Debounce: debounce}
	w.s = newServer(t, cfg)
	w.s.SetLoader(func() (*config.Config, error) {
		w.mu.Lock()
		defer w.mu.Unlock()
		w.loads++
		data, _ := os.ReadFile(w.file)
		w.read = append(w.read, string(data))
		next := config.Default()
		next.File, next.Reload = w.file, cfg.Reload
		if w.next != nil {
			next = w.next()
		}
		return next, nil
	})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); w.s.watch(ctx) }()
	t.Cleanup(func() { cancel(); <-done })
	return w
}

func (w *watcher) write(name, content string) {
	w.t.Helper()
	if err := os.WriteFile(filepath.Join(w.dir, name), []byte(content), 0o600); err != nil {
		w.t.Fatal(err)
	}
}

func (w *watcher) count() int {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.loads
}

// await waits until the config has been loaded n times; the test fails
// when it is not within a generous deadline.
func (w *watcher) await(n int, what string) {
	w.t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for w.count() < n {
		if time.Now().After(deadline) {
			w.t.Fatalf("%s: loaded %d times, want %d", what, w.count(), n)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// touch writes content to the file name until the config has been loaded
// more than n times: the watch may not be set up when the first write
// comes. Each write waits a while for its reload, since a write within
// the debounce puts the reload off.
func (w *watcher) touch(name, content string, n int) {
	w.t.Helper()
	path := name
	if !filepath.IsAbs(path) {
		path = filepath.Join(w.dir, name)
	}
	deadline := time.Now().Add(20 * time.Second)
	for w.count() <= n {
		if time.Now().After(deadline) {
			w.t.Fatalf("writing %s never reloaded the config (loaded %d times)", name, w.count())
		}
		if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
			w.t.Fatal(err)
		}
		for wait := time.Now().Add(5 * time.Second); w.count() <= n && time.Now().Before(wait); {
			time.Sleep(10 * time.Millisecond)
		}
	}
}

// awaitRead waits until a load read content.
func (w *watcher) awaitRead(content string) {
	w.t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		w.mu.Lock()
		done := slices.Contains(w.read, content)
		w.mu.Unlock()
		if done {
			return
		}
		if time.Now().After(deadline) {
			w.t.Fatalf("no load read %q", content)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// TestWatchReloads: a change to the config file reloads it, once for a
// burst of changes (the debounce); a file replaced by renaming another
// over it, as editors save, reloads too.
func TestWatchReloads(t *testing.T) {
	w := watching(t, time.Second)
	w.touch("serve.yaml", "2", 0)

	// A burst of writes well within the debounce is one reload, of the
	// last; the next write another.
	before := w.count()
	for i := range 5 {
		w.write("serve.yaml", string(rune('a'+i)))
	}
	w.await(before+1, "a burst of writes")
	w.write("serve.yaml", "after")
	w.awaitRead("after")
	w.mu.Lock()
	got := slices.Clone(w.read[before:])
	w.mu.Unlock()
	if !slices.Equal(got, []string{"e", "after"}) {
		t.Errorf("the loads after a burst of writes and one more read %q, want the burst's last and the one more", got)
	}

	// Replaced by a rename.
	w.write("serve.yaml.tmp", "renamed")
	if err := os.Rename(filepath.Join(w.dir, "serve.yaml.tmp"), w.file); err != nil {
		t.Fatal(err)
	}
	w.await(before+3, "a file renamed over the config file")
}

// TestWatchFollows: a reload that names a new mapping file watches it
// from then on.
func TestWatchFollows(t *testing.T) {
	w := watching(t, 100*time.Millisecond)
	other := t.TempDir()
	hook, err := os.ReadFile(filepath.Join("..", "examples", "hook.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	mapping := filepath.Join(other, "site.yaml")
	if err := os.WriteFile(mapping, hook, 0o600); err != nil {
		t.Fatal(err)
	}
	w.mu.Lock()
	w.next = func() *config.Config {
		c := config.Default()
		c.File, c.Reload, c.Mappings = w.file, config.Reload{Watch: true, Debounce: 100 * time.Millisecond}, []string{mapping}
		return c
	}
	w.mu.Unlock()
	w.touch("serve.yaml", "mappings: [site.yaml]", 0)
	// The loader has been called; the reload it reads applies just after.
	eventually(t, "the reload applied", func() bool {
		w.s.reloadMu.Lock()
		defer w.s.reloadMu.Unlock()
		return slices.Equal(w.s.cfg.Mappings, []string{mapping})
	})
	if _, ok := w.s.Bridge().Registry().Lookup("hook"); !ok {
		t.Error("the mapping file's dialect is not in force after the reload")
	}
	// The watch re-reads its files after the reload: a change to the
	// mapping file, in a directory it did not watch before, reloads.
	w.touch(mapping, string(hook)+"\n# changed\n", w.count())
}
