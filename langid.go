package pilotage

import (
	"fmt"
	"strings"
)

// LanguageID is a parsed Language identifier `family/version` (§3.3).
type LanguageID struct {
	Family  string
	Version string
}

// String returns the identifier in wire form.
func (id LanguageID) String() string { return id.Family + "/" + id.Version }

// ParseLanguageID parses `family/version`: both parts non-empty, exactly
// one `/` (data-model.md §5.1).
func ParseLanguageID(s string) (LanguageID, error) {
	family, version, ok := strings.Cut(s, "/")
	switch {
	case !ok:
		return LanguageID{}, fmt.Errorf("language id %q has no '/': the form is family/version, e.g. \"workflow/v1\"", s)
	case family == "":
		return LanguageID{}, fmt.Errorf("language id %q has an empty family before '/'", s)
	case version == "":
		return LanguageID{}, fmt.Errorf("language id %q has an empty version after '/'", s)
	case strings.Contains(version, "/"):
		return LanguageID{}, fmt.Errorf("language id %q has more than one '/': family and version contain no '/'", s)
	}
	return LanguageID{Family: family, Version: version}, nil
}
