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
func (s *Server) CheckPrincipal(name string) error { return s.CheckPrincipalAs(name, "--principal") }

// CheckPrincipalAs is CheckPrincipal naming the principal as its user
// gave it: `principal:` in a case file, not the flag.
func (s *Server) CheckPrincipalAs(name, as string) error {
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
		return fmt.Errorf("%s %q: the PDL declares no principals", as, report.Clip(name))
	}
	var mean string
	if m := suggest.Closest(name, names); m != "" {
		mean = fmt.Sprintf(" (did you mean %q?)", report.Clip(m))
	}
	return fmt.Errorf("%s %q is not declared in the PDL%s; declared: %s", as, report.Clip(name), mean, strings.Join(report.Clips(names), ", "))
}

// Pick returns the Language with the given id, or the only one when id
// is empty; the error lists the ids to choose from.
func (s *Server) Pick(id string) (*Language, error) { return s.PickAs(id, "--language") }

// PickAs is Pick naming the Language's id as its user gave it:
// `language:` in a case file, not the flag.
func (s *Server) PickAs(id, as string) (*Language, error) {
	var ids []string
	for _, l := range s.Languages {
		if l.ID == id || (id == "" && len(s.Languages) == 1) {
			return l, nil
		}
		ids = append(ids, l.ID)
	}
	slices.Sort(ids)
	if id == "" {
		return nil, fmt.Errorf("the PDL defines %d Languages; choose one with %s (%s)", len(ids), as, strings.Join(ids, ", "))
	}
	var mean string
	if m := suggest.Closest(id, ids); m != "" {
		mean = fmt.Sprintf(" (did you mean %q?)", report.Clip(m))
	}
	return nil, fmt.Errorf("%s %q is not defined in the PDL%s; defined: %s", as, report.Clip(id), mean, strings.Join(report.Clips(ids), ", "))
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
