// Package service states the six Pilotage operations (§6) as one Go
// interface, independent of any carrier: the engine implements it, and the
// MCP server and the validate, plan and run commands call it.
package service

import (
	"context"

	pilotage "github.com/pilotage-dev/pilotage"
)

// Caller is who is asking and over which Session (§3.7): every
// catalog-derived answer is computed for Principal (§10.3), and retention
// "session" is scoped to Session.
type Caller struct {
	Principal string
	Session   string
}

// Service is a Pilotage Server's operations. Each method returns either a
// response or an error; an error of type *pilotage.RequestError travels on
// the request-error channel (§8), any other error is internal. Invalid
// programs and failed Runs are responses, never errors (§8).
type Service interface {
	// Discover returns the manifest (§6.1).
	Discover(ctx context.Context) (*pilotage.Manifest, error)
	// Learn returns *pilotage.LearnIndex or *pilotage.LearnFetch (§6.2).
	Learn(ctx context.Context, c Caller, language string, req pilotage.LearnRequest) (any, error)
	// Lookup returns *pilotage.ListResponse, *pilotage.GetResponse or
	// *pilotage.ChangedSinceResponse (§6.3).
	Lookup(ctx context.Context, c Caller, language string, req pilotage.LookupRequest) (any, error)
	// Validate checks a program (§6.4).
	Validate(ctx context.Context, c Caller, language string, req pilotage.ValidateRequest) (*pilotage.ValidateResponse, error)
	// Execute runs a program or a promoted program (§6.5).
	Execute(ctx context.Context, c Caller, language string, req pilotage.ExecuteRequest) (*pilotage.ExecuteResponse, error)
	// Trace fetches a stored Run (§6.6).
	Trace(ctx context.Context, c Caller, language string, req pilotage.TraceFetchRequest) (*pilotage.TraceFetchResponse, error)
	// EndSession ends the Session: what retention "session" kept for it
	// goes (the reference engine keeps its idempotency keys a grace period
	// longer, so a client that reconnects can still retry, §6.5.6).
	EndSession(session string)
}
