package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"

	"linkplan/appliance/cmd/linkplan/assemble"
	"linkplan/store/jsq"
)

const natsServerUsage = `usage:
  linkplan nats-server --data DIR [--listen HOST:PORT] [--nats-cert FILE --nats-key FILE [--nats-ca FILE]]
      run the embedded NATS JetStream server on its own, for appliances
      served with --queue jetstream --nats URL (a server that outlives an
      appliance restart). It stores in DIR/jetstream and writes the
      appliance's and the workers' URLs, with their generated passwords, to
      DIR/appliance.url and DIR/worker.url (mode 0600). A NATS cluster for
      many workers is better run with the nats-server distribution itself.
`

// natsServerCmd runs `linkplan nats-server`.
func natsServerCmd(ctx context.Context, args []string, stderr io.Writer) error {
	fs := newFlags("nats-server", stderr)
	dir := fs.String("data", "", "directory of the server's files and credentials")
	listen := fs.String("listen", jsq.DefaultListen, "client address")
	var c assemble.NATSConfig
	fs.StringVar(&c.CA, "nats-ca", "", "PEM file of the CA of client certificates (then required)")
	fs.StringVar(&c.Cert, "nats-cert", "", "PEM certificate of the server (TLS then required)")
	fs.StringVar(&c.Key, "nats-key", "", "PEM key of --nats-cert")
	flagsUsage := fs.Usage
	fs.Usage = func() {
		fmt.Fprint(fs.Output(), natsServerUsage)
		flagsUsage()
	}
	if err := fs.Parse(args); err != nil {
		return fmt.Errorf("nats-server: %w", errUsage)
	}
	if *dir == "" || fs.NArg() > 0 {
		fs.Usage()
		return fmt.Errorf("nats-server: --data is required: %w", errUsage)
	}
	tc, err := assemble.ServerTLS(c)
	if err != nil {
		return fmt.Errorf("nats-server: %w", err)
	}
	log := slog.New(slog.NewTextHandler(stderr, nil))
	s, err := jsq.StartEmbedded(jsq.EmbeddedOptions{Dir: *dir, Listen: *listen, TLS: tc})
	if err != nil {
		return fmt.Errorf("nats-server: %w", err)
	}
	defer s.Shutdown()
	for name, url := range map[string]string{"appliance.url": s.ApplianceURL(), "worker.url": s.WorkerURL()} {
		if err := os.WriteFile(filepath.Join(*dir, name), []byte(url+"\n"), 0o600); err != nil {
			return fmt.Errorf("nats-server: %w", err)
		}
	}
	log.Info("NATS JetStream server running", "addr", s.Addr(), "store", filepath.Join(*dir, "jetstream"))
	<-ctx.Done()
	log.Info("NATS JetStream server stopping")
	return nil
}
