package server

import (
	"context"
	"path/filepath"
	"time"

	"github.com/fsnotify/fsnotify"
	"github.com/mcp-bridge/mcp-bridge/config"
)

// watchedFiles are the files whose change reloads cfg: the config file,
// its mapping files and the --mapping ones, its TLS files, its JWT key
// files and mcp.oauth's JWKS file.
func watchedFiles(cfg *config.Config, extra []string) []string {
	files := []string{cfg.File}
	files = append(files, cfg.Mappings...)
	files = append(files, extra...)
	for _, f := range []string{cfg.TLS.Cert, cfg.TLS.Key, cfg.TLS.ClientCA, cfg.TLS.CA} {
		if f != "" {
			files = append(files, f)
		}
	}
	if j := cfg.Auth.JWT; j != nil {
		files = append(files, j.PublicKeys...)
		if j.JWKSFile != "" {
			files = append(files, j.JWKSFile)
		}
		if j.Sign != nil && j.Sign.Key != "" {
			files = append(files, j.Sign.Key)
		}
	}
	if o := cfg.MCP.OAuth; o != nil && o.JWKSFile != "" {
		files = append(files, o.JWKSFile)
	}
	out := files[:0]
	for _, f := range files {
		if abs, err := filepath.Abs(f); err == nil {
			out = append(out, abs)
		}
	}
	return out
}

// watch reloads the config when one of its files changes, once the files
// have been quiet for reload.debounce, until ctx ends. It watches the
// files' directories, since editors and tools replace a file by renaming
// another over it.
func (s *Server) watch(ctx context.Context) {
	w, err := fsnotify.NewWatcher()
	if err != nil {
		s.log.Error("config reload: cannot watch the config's files; SIGHUP still reloads", "error", err)
		return
	}
	defer w.Close()
	s.reloadMu.Lock()
	debounce := s.cfg.Reload.Debounce
	files := watchedFiles(s.cfg, s.extra)
	s.reloadMu.Unlock()
	watched := map[string]bool{}  // the files
	watching := map[string]bool{} // their directories
	follow := func(files []string) {
		clear(watched)
		for _, f := range files {
			watched[f] = true
			if dir := filepath.Dir(f); !watching[dir] {
				if err := w.Add(dir); err != nil {
					s.log.Warn("config reload: cannot watch a directory", "dir", dir, "error", err)
					continue
				}
				watching[dir] = true
			}
		}
	}
	follow(files)
	timer := time.NewTimer(time.Hour)
	timer.Stop()
	var changed string
	for {
		select {
		case <-ctx.Done():
			return
		case ev, ok := <-w.Events:
			if !ok {
				return
			}
			if watched[filepath.Clean(ev.Name)] && ev.Op&(fsnotify.Write|fsnotify.Create|fsnotify.Rename|fsnotify.Remove) != 0 {
				changed = ev.Name
				timer.Reset(debounce)
			}
		case err, ok := <-w.Errors:
			if !ok {
				return
			}
			s.log.Warn("config reload: watching the config's files", "error", err)
		case <-timer.C:
			_ = s.ReloadNow("changed: " + changed)
			s.reloadMu.Lock()
			files = watchedFiles(s.cfg, s.extra)
			s.reloadMu.Unlock()
			follow(files)
		}
	}
}
