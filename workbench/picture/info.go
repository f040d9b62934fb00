package picture

import (
	"github.com/pilotage-dev/pilotage/internal/model/language"
	"github.com/pilotage-dev/pilotage/internal/model/program"
	"github.com/pilotage-dev/pilotage/internal/model/syntax"
)

// ProgramInfo reads what a plan leaves out from the program it was
// derived from (its characters, as syntax.Source gives them): each
// branch's condition, each loop's list and the steps that run promoted
// programs. A program that does not parse gives what could be read; the
// plan is drawn either way.
func ProgramInfo(src []byte, l *language.Language) Info {
	info := Info{Conds: map[string]string{}, Runs: map[string]string{}, Subprograms: l.TraceSubprogram}
	parsed, err := syntax.For(l).Parse(src, l.Limits.WithDefaults().Depth)
	if err != nil || parsed.Program == nil {
		return info
	}
	program.Walk(parsed.Program.Steps, func(s *program.Step) {
		switch s.Kind {
		case program.Branch:
			if s.Cond != nil {
				info.Conds[s.ID] = s.Cond.Src
			}
		case program.Loop:
			if s.List != nil {
				info.Conds[s.ID] = s.List.Src
			}
		case program.Run:
			info.Runs[s.ID] = s.Target
		}
	})
	return info
}
