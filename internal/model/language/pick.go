package language

import (
	"fmt"
	"slices"
	"strings"

	"github.com/pilotage-dev/pilotage/internal/base/report"
	"github.com/pilotage-dev/pilotage/internal/base/suggest"
)

// CheckPrincipal refuses a principal name the Server does not declare:
// acting as a name the engine does not know would silently show an empty
// catalog (§10.3). The empty name, no principal, is accepted.
func (s *Server) CheckPrincipal(name string) error {
	if name == "" {
		return nil
	}
	var names []string
	for _, p := range s.Principals {
		if p.Name == name {
			return nil
		}
		names = append(names, p.Name)
	}
	if len(names) == 0 {
		return fmt.Errorf("--principal %q: the PDL declares no principals", report.Clip(name))
	}
	var mean string
	if m := suggest.Closest(name, names); m != "" {
		mean = fmt.Sprintf(" (did you mean %q?)", report.Clip(m))
	}
	return fmt.Errorf("--principal %q is not declared in the PDL%s; declared: %s", report.Clip(name), mean, strings.Join(report.Clips(names), ", "))
}

// Pick returns the Language with the given id, or the only one when id
// is empty; the error lists the ids to choose from.
func (s *Server) Pick(id string) (*Language, error) {
	var ids []string
	for _, l := range s.Languages {
		if l.ID == id || (id == "" && len(s.Languages) == 1) {
			return l, nil
		}
		ids = append(ids, l.ID)
	}
	slices.Sort(ids)
	if id == "" {
		return nil, fmt.Errorf("the PDL defines %d Languages; choose one with --language (%s)", len(ids), strings.Join(ids, ", "))
	}
	return nil, fmt.Errorf("--language %q is not defined in the PDL; defined: %s", id, strings.Join(ids, ", "))
}

// Tokens maps each principal's bearer token to its name; principals
// without a token are left out.
func (s *Server) Tokens() map[string]string {
	m := map[string]string{}
	for _, p := range s.Principals {
		if p.Token != "" {
			m[p.Token] = p.Name
		}
	}
	return m
}
