package jsq

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"linkplan/appliance"
)

// DefaultPrefix names the streams, consumers, buckets and subjects of
// one appliance: LP_JOBS, LP_UNITS, LP_RESULTS, KV_LP_INPUTS,
// KV_LP_WORKERS; subjects LP.jobs.>, LP.units.>, LP.results.>.
const DefaultPrefix = "LP"

// MaxMessageBytes is the largest message (a unit or a result): 8 MiB.
// Units are sized to stay well below it (coverage: MaxUnitPixels).
const MaxMessageBytes = 8 << 20

// Config names the JetStream resources and their timing. Zero values
// take the defaults.
type Config struct {
	// Prefix names every stream, consumer, bucket and subject (several
	// appliances, or tests, may share one server); "" is DefaultPrefix.
	Prefix string
	// LeaseTTL is the AckWait of job lease messages: a lease whose holder
	// has not renewed it for this long is redelivered (its holder is
	// dead). 0 is 30 s, the jobs service's lease TTL.
	LeaseTTL time.Duration
	// UnitAckWait is how long a worker may hold a unit without a
	// heartbeat before it is delivered again; 0 is DefaultUnitAckWait.
	// Workers heartbeat every UnitAckWait/3 while they compute.
	UnitAckWait time.Duration
	// UnitBackOff are the waits before the redeliveries of a unit whose
	// worker went silent (the first is the AckWait); nil is
	// [UnitAckWait, 2·UnitAckWait].
	UnitBackOff []time.Duration
	// Replicas of each stream on a clustered external server; 0 is 1.
	Replicas int
}

// DefaultUnitAckWait is the default Config.UnitAckWait.
const DefaultUnitAckWait = 30 * time.Second

func (c Config) withDefaults() Config {
	if c.Prefix == "" {
		c.Prefix = DefaultPrefix
	}
	if c.LeaseTTL <= 0 {
		c.LeaseTTL = 30 * time.Second
	}
	if c.UnitAckWait <= 0 {
		c.UnitAckWait = DefaultUnitAckWait
	}
	if len(c.UnitBackOff) == 0 {
		c.UnitBackOff = []time.Duration{c.UnitAckWait, 2 * c.UnitAckWait}
	}
	if c.Replicas <= 0 {
		c.Replicas = 1
	}
	return c
}

func (c Config) jobsStream() string    { return c.Prefix + "_JOBS" }
func (c Config) unitsStream() string   { return c.Prefix + "_UNITS" }
func (c Config) resultsStream() string { return c.Prefix + "_RESULTS" }
func (c Config) inputsBucket() string  { return c.Prefix + "_INPUTS" }
func (c Config) workersBucket() string { return c.Prefix + "_WORKERS" }
func (c Config) leaseSubject(id string) string {
	return c.Prefix + ".jobs.lease." + id
}
func (c Config) unitSubject(k appliance.UnitKind) string { return c.Prefix + ".units." + string(k) }
func (c Config) resultSubject(job string) string         { return c.Prefix + ".results." + job }

// UnitConsumer is the durable consumer every worker pulls units from.
const UnitConsumer = "workers"

// ResultConsumer is the appliance's durable consumer of results.
const ResultConsumer = "appliance"

// LeaseConsumer is the durable consumer of job lease messages.
const LeaseConsumer = "leases"

// Setup creates or updates the streams, consumers and buckets of c on
// the server behind nc. Only the appliance calls it (a worker may not).
func Setup(ctx context.Context, nc *nats.Conn, c Config) error {
	c = c.withDefaults()
	js, err := jetstream.New(nc)
	if err != nil {
		return fmt.Errorf("jetstream setup: %w", err)
	}
	streams := []jetstream.StreamConfig{
		{Name: c.jobsStream(), Subjects: []string{c.Prefix + ".jobs.>"}, Retention: jetstream.WorkQueuePolicy,
			Storage: jetstream.FileStorage, Duplicates: 2 * time.Minute, Replicas: c.Replicas,
			Description: "job lease messages: one per running job, acknowledged at its verdict"},
		{Name: c.unitsStream(), Subjects: []string{c.Prefix + ".units.>"}, Retention: jetstream.WorkQueuePolicy,
			Storage: jetstream.FileStorage, Duplicates: 2 * time.Minute, MaxMsgSize: MaxMessageBytes, Replicas: c.Replicas,
			Description: "work units waiting for a worker"},
		{Name: c.resultsStream(), Subjects: []string{c.Prefix + ".results.>"}, Retention: jetstream.WorkQueuePolicy,
			Storage: jetstream.FileStorage, Duplicates: 2 * time.Minute, MaxMsgSize: MaxMessageBytes, Replicas: c.Replicas,
			Description: "unit results waiting for the appliance to merge them"},
	}
	for _, sc := range streams {
		if _, err := js.CreateOrUpdateStream(ctx, sc); err != nil {
			return fmt.Errorf("jetstream setup: stream %s: %w", sc.Name, err)
		}
	}
	consumers := []struct {
		stream string
		cfg    jetstream.ConsumerConfig
	}{
		{c.jobsStream(), jetstream.ConsumerConfig{Durable: LeaseConsumer, AckPolicy: jetstream.AckExplicitPolicy,
			AckWait: c.LeaseTTL, MaxDeliver: -1, MaxAckPending: 100000}},
		{c.unitsStream(), jetstream.ConsumerConfig{Durable: UnitConsumer, AckPolicy: jetstream.AckExplicitPolicy,
			AckWait: c.UnitAckWait, BackOff: c.UnitBackOff, MaxDeliver: appliance.JobCrashLimit, MaxAckPending: 100000}},
		{c.resultsStream(), jetstream.ConsumerConfig{Durable: ResultConsumer, AckPolicy: jetstream.AckExplicitPolicy,
			AckWait: 30 * time.Second, MaxDeliver: -1, MaxAckPending: 100000}},
	}
	for _, cc := range consumers {
		if _, err := js.CreateOrUpdateConsumer(ctx, cc.stream, cc.cfg); err != nil {
			return fmt.Errorf("jetstream setup: consumer %s of %s: %w", cc.cfg.Durable, cc.stream, err)
		}
	}
	kvs := []jetstream.KeyValueConfig{
		{Bucket: c.inputsBucket(), History: 1, Storage: jetstream.FileStorage, Replicas: c.Replicas,
			Description: "the read-only inputs the appliance computes on, by hash"},
		{Bucket: c.workersBucket(), History: 1, TTL: 30 * time.Second, Storage: jetstream.MemoryStorage, Replicas: c.Replicas,
			Description: "worker status, refreshed every few seconds"},
	}
	for _, kc := range kvs {
		if _, err := js.CreateOrUpdateKeyValue(ctx, kc); err != nil {
			return fmt.Errorf("jetstream setup: bucket %s: %w", kc.Bucket, err)
		}
	}
	return nil
}

// isTimeout reports an error of a fetch that found nothing.
func isTimeout(err error) bool {
	return errors.Is(err, nats.ErrTimeout) || errors.Is(err, context.DeadlineExceeded) || errors.Is(err, jetstream.ErrNoMessages)
}
