package language

import (
	"fmt"
	"strings"
)

// NoPrincipalNote says what acting as no principal means on a Server
// that declares principals: such a caller is none of them and sees no
// catalog entry (§10.3), so every name it writes is unknown. It names the
// declared principals and the --principal flag that chooses one, for the
// place a user looks: a diagnostic's hint, serve's log. It is "" when the
// Server declares no principals, since then every caller sees everything.
func (s *Server) NoPrincipalNote() string {
	if len(s.Principals) == 0 {
		return ""
	}
	names := make([]string, len(s.Principals))
	for i, p := range s.Principals {
		names[i] = p.Name
	}
	return fmt.Sprintf("no --principal was given, and the PDL declares principals (%s), so the caller is none of them and sees no catalog entry; give --principal %s (or another)",
		strings.Join(names, ", "), names[0])
}
