package stdio

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"strings"
	"syscall"
	"testing"
	"time"
)

// The test binary doubles as the stdio agent the tests run: with
// STDIO_TEST_CHILD set it plays the child instead of running the tests.
//
//	echo      answers every swarm request with a response echoing its
//	          arguments; the tool "crash" makes it exit 1 unanswered, "big"
//	          makes it write a line of arguments.size bytes before answering.
//	          Other messages are written to standard error. It exits at the
//	          end of its standard input.
//	stubborn  ignores SIGTERM and the end of its standard input.
//	orphan    starts a linger child on its own standard output and error,
//	          writes "spawned pid=PID" to standard error and exits.
//	linger    sleeps for the tests' patience, holding the pipes it got.
//	record    writes every line of its standard input to the named pipe
//	          STDIO_TEST_RECORD, and exits at the end of its input.
//
// All first write "child pid=PID dir=DIR" to standard error.
const (
	childEnv  = "STDIO_TEST_CHILD"
	idEnv     = "STDIO_TEST_ID"
	recordEnv = "STDIO_TEST_RECORD"
)

func TestMain(m *testing.M) {
	if mode := os.Getenv(childEnv); mode != "" {
		os.Exit(runChild(mode))
	}
	os.Exit(m.Run())
}

func runChild(mode string) int {
	if mode == "stubborn" {
		// Before the first line, which tells the test the child is set
		// up: a SIGTERM right after it must find the signal ignored.
		signal.Ignore(syscall.SIGTERM)
	}
	wd, _ := os.Getwd()
	fmt.Fprintf(os.Stderr, "child pid=%d dir=%s\n", os.Getpid(), wd)
	switch mode {
	case "echo":
		return echo(os.Getenv(idEnv))
	case "stubborn":
		_, _ = bufio.NewReader(os.Stdin).ReadString(0)
		time.Sleep(time.Hour)
		return 0
	case "orphan":
		return orphan()
	case "linger":
		time.Sleep(patience)
		return 0
	case "record":
		return recordLines(os.Getenv(recordEnv))
	}
	fmt.Fprintf(os.Stderr, "unknown mode %q\n", mode)
	return 2
}

// swarmRequest is the part of a swarm request the echo child reads.
type swarmRequest struct {
	MessageID   string `json:"message_id"`
	MessageType string `json:"message_type"`
	SenderID    string `json:"sender_id"`
	Payload     struct {
		ToolName  string         `json:"tool_name"`
		Arguments map[string]any `json:"arguments"`
	} `json:"payload"`
}

func echo(id string) int {
	in := bufio.NewScanner(os.Stdin)
	in.Buffer(nil, 4<<20)
	out := bufio.NewWriter(os.Stdout)
	for n := 1; in.Scan(); n++ {
		var req swarmRequest
		if err := json.Unmarshal(in.Bytes(), &req); err != nil || req.MessageType != "request" {
			fmt.Fprintf(os.Stderr, "got %s\n", in.Bytes())
			continue
		}
		switch req.Payload.ToolName {
		case "crash":
			fmt.Fprintln(os.Stderr, "crashing")
			return 1
		case "big":
			size, _ := req.Payload.Arguments["size"].(float64)
			out.WriteString(strings.Repeat("x", int(size)) + "\n")
		}
		reply, _ := json.Marshal(map[string]any{
			"message_id":     fmt.Sprintf("00000000-0000-4000-8000-%012d", n),
			"message_type":   "response",
			"sender_id":      id,
			"receiver_id":    req.SenderID,
			"timestamp":      time.Now().UTC().Format("2006-01-02T15:04:05.000000"),
			"correlation_id": req.MessageID,
			"priority":       "normal",
			"payload": map[string]any{
				"success":        true,
				"result":         map[string]any{"echo": req.Payload.Arguments},
				"error":          nil,
				"execution_time": 0.0,
			},
		})
		out.Write(reply)
		out.WriteByte('\n')
		if err := out.Flush(); err != nil {
			return 3
		}
	}
	return 0
}

// recordLines copies its standard input, line by line, to the named pipe at
// path.
func recordLines(path string) int {
	f, err := os.OpenFile(path, os.O_WRONLY, 0)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	defer f.Close()
	if _, err := io.Copy(f, os.Stdin); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 3
	}
	return 0
}

func orphan() int {
	exe, err := os.Executable()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	cmd := exec.Command(exe)
	cmd.Env = append(os.Environ(), childEnv+"=linger")
	cmd.Stdout, cmd.Stderr = os.Stdout, os.Stderr
	if err := cmd.Start(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	fmt.Fprintf(os.Stderr, "spawned pid=%d\n", cmd.Process.Pid)
	return 0
}
