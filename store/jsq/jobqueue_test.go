package jsq_test

import (
	"bufio"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/nats-io/nats.go"

	"linkplan/store"
	"linkplan/store/jsq"
	"linkplan/store/storetest"
)

// TestMain doubles as the external server of the contract: with
// JSQ_TEST_SERVER=dir the test binary runs a standalone server (the same
// embedded server, in its own process, over TCP with credentials),
// prints its appliance URL and serves until its stdin closes.
func TestMain(m *testing.M) {
	if dir := os.Getenv("JSQ_TEST_SERVER"); dir != "" {
		s, err := jsq.StartEmbedded(jsq.EmbeddedOptions{Dir: dir, Listen: "127.0.0.1:0"})
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		fmt.Println(s.ApplianceURL())
		_, _ = bufio.NewReader(os.Stdin).ReadString('\n')
		s.Shutdown()
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// queue is the JetStream queue with its ledger and connection, closed
// together.
type queue struct {
	*jsq.JobQueue
	db   *store.DB
	nc   *nats.Conn
	stop func()
}

func (q *queue) Close() error {
	q.nc.Close()
	if q.stop != nil {
		q.stop()
	}
	return q.db.Close()
}

func openLedger(t testing.TB, dir string, now func() time.Time) *store.DB {
	t.Helper()
	db, err := store.Open(dir, store.Options{LockTimeout: 200 * time.Millisecond, Now: now})
	if err != nil {
		t.Fatal(err)
	}
	return db
}

// embedded opens the queue of dir on an embedded server storing in
// dir/nats, connected in-process, as the appliance runs it by default.
var embedded = storetest.JobQueueHarness{Open: func(t testing.TB, dir string, now func() time.Time) storetest.JobQueue {
	t.Helper()
	db := openLedger(t, dir, now)
	s, err := jsq.StartEmbedded(jsq.EmbeddedOptions{Dir: filepath.Join(dir, "nats"), Listen: "127.0.0.1:0"})
	if err != nil {
		t.Fatal(err)
	}
	nc, err := s.Connect("test")
	if err != nil {
		t.Fatal(err)
	}
	return newQueue(t, db, nc, jsq.Config{}, s.Shutdown)
}}

func newQueue(t testing.TB, db *store.DB, nc *nats.Conn, cfg jsq.Config, stop func()) *queue {
	t.Helper()
	ctx := context.Background()
	if err := jsq.Setup(ctx, nc, cfg); err != nil {
		t.Fatal(err)
	}
	q, err := jsq.NewJobQueue(ctx, db, nc, cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	return &queue{JobQueue: q, db: db, nc: nc, stop: stop}
}

// externalURL starts (once) the external server process and returns its
// appliance URL.
var externalURL = sync.OnceValues(func() (string, error) {
	dir, err := os.MkdirTemp("", "jsq-external-")
	if err != nil {
		return "", err
	}
	cmd := exec.Command(os.Args[0])
	cmd.Env = append(os.Environ(), "JSQ_TEST_SERVER="+dir)
	cmd.Stderr = os.Stderr
	in, err := cmd.StdinPipe()
	if err != nil {
		return "", err
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return "", err
	}
	if err := cmd.Start(); err != nil {
		return "", err
	}
	externalStop = func() { _ = in.Close(); _ = cmd.Wait(); _ = os.RemoveAll(dir) }
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil {
		return "", fmt.Errorf("external server: %w", err)
	}
	return strings.TrimSpace(line), nil
})

var externalStop func()

// external opens the queue of dir on a server in another process, over
// TCP with the appliance user's password (--nats URL), under a prefix of
// its own so that the queues of the tests do not share streams.
var external = storetest.JobQueueHarness{Open: func(t testing.TB, dir string, now func() time.Time) storetest.JobQueue {
	t.Helper()
	url, err := externalURL()
	if err != nil {
		t.Fatal(err)
	}
	db := openLedger(t, dir, now)
	nc, err := jsq.Connect(url, jsq.ConnectOptions{Name: "test"})
	if err != nil {
		t.Fatal(err)
	}
	h := sha256.Sum256([]byte(dir))
	return newQueue(t, db, nc, jsq.Config{Prefix: "T" + strings.ToUpper(hex.EncodeToString(h[:6]))}, nil)
}}

// TestJobQueueContract: the contract of appliance.JobQueue (the bbolt
// queue's tests, store/storetest) on the JetStream queue, with the
// embedded server and with an external one.
func TestJobQueueContract(t *testing.T) {
	t.Run("embedded", func(t *testing.T) { storetest.RunJobQueue(t, embedded) })
	t.Run("external", func(t *testing.T) { storetest.RunJobQueue(t, external) })
	if externalStop != nil {
		externalStop()
	}
}

// BenchmarkJobQueue measures Enqueue and Lease+Ack of the JetStream queue
// on the embedded server (compare store's BenchmarkJobQueue).
func BenchmarkJobQueue(b *testing.B) { storetest.BenchJobQueue(b, embedded) }
