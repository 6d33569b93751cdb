package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime/debug"
	"strings"
	"testing"
)

// TestVersionLine: what Go stamped comes first, the -X values fill in
// what it could not, and with neither the version is (devel).
func TestVersionLine(t *testing.T) {
	const rev = "3293d565c364fe2d079e47ee36cb123e992dbbe0"
	stamped := &debug.BuildInfo{Main: debug.Module{Version: "v0.0.0-20261125063654-3293d565c364+dirty"},
		Settings: []debug.BuildSetting{{Key: "vcs", Value: "git"}, {Key: "vcs.revision", Value: rev}, {Key: "vcs.modified", Value: "true"}}}
	unstamped := &debug.BuildInfo{Main: debug.Module{Version: "(devel)"}}
	cases := []struct {
		name              string
		bi                *debug.BuildInfo
		version, revision string
		want              string
	}{
		{"no build info", nil, "", "", "mcp-bridge (devel)"},
		{"not stamped, not set", unstamped, "", "", "mcp-bridge (devel)"},
		{"set by make in a worktree", unstamped, "3293d56-dirty", rev, "mcp-bridge 3293d56-dirty (revision " + rev + ")"},
		{"stamped by go build in a clone", stamped, "", "", "mcp-bridge v0.0.0-20261125063654-3293d565c364+dirty (revision " + rev + ", modified)"},
		{"stamped and set", stamped, "3293d56-dirty", "0000000000000000000000000000000000000000", "mcp-bridge v0.0.0-20261125063654-3293d565c364+dirty (revision " + rev + ", modified)"},
		{"a release", &debug.BuildInfo{Main: debug.Module{Version: "v1.4.0"}}, "", "", "mcp-bridge v1.4.0"},
	}
	for _, tc := range cases {
		if got := versionLine(tc.bi, tc.version, tc.revision); got != tc.want {
			t.Errorf("%s: %q, want %q", tc.name, got, tc.want)
		}
	}
}

// TestVersionBuilt builds the binary as `make build` does, with CI's
// GOFLAGS (-buildvcs=false), and checks that `version` names the
// checkout's commit.
func TestVersionBuilt(t *testing.T) {
	for _, tool := range []string{"make", "git"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("no %s: %v", tool, err)
		}
	}
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	head, err := exec.Command("git", "-C", root, "rev-parse", "HEAD").Output()
	if err != nil {
		t.Skipf("not a git checkout: %v", err)
	}
	bin := filepath.Join(t.TempDir(), "mcp-bridge")
	build := exec.Command("make", "-s", "-C", root, "build", "BIN="+bin)
	build.Env = append(os.Environ(), "GOFLAGS=-buildvcs=false")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("make build: %v\n%s", err, out)
	}
	out, err := exec.Command(bin, "version").Output()
	if err != nil {
		t.Fatal(err)
	}
	want := "(revision " + strings.TrimSpace(string(head))
	if !strings.HasPrefix(string(out), "mcp-bridge ") || !strings.Contains(string(out), want) || strings.Contains(string(out), "(devel)") {
		t.Errorf("version printed %q, want the version and %q", out, want)
	}
}
