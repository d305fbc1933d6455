// Package web runs linkplan's HTTP server: listener, timeouts, a base
// context that is cancelled on shutdown (so long-lived streams end), and
// graceful shutdown. The routes, middleware and wire contract live in
// web/api (see its doc.go for why they are not here).
package web
