package syntax

import (
	"math"

	"github.com/alecthomas/participle/v2/lexer"

	"github.com/pilotage-dev/pilotage/internal/model/language"
	"github.com/pilotage-dev/pilotage/internal/model/program"
)

// For reader_test.go, which reads programs with participle's grammar
// interpreter from the grammar's struct tags, as the reader did before
// it read itself: the nodes that read themselves, the lexer definition,
// and the reader's outcome.
type (
	TArgs     = tArgs
	TExprOpen = tExprOpen
	TExprArg  = tExprArg
)

var LexDef lexer.Definition = lexDef{}

// Tokens is src lexed for participle, as read lexes it.
func Tokens(src []byte, ts *language.TextSyntax) (*lexer.PeekingLexer, error) {
	return lexer.Upgrade(newScanner(string(src), ts, maxNesting(8)), kSpace, kComment)
}

// ReadError is the error the reader gives on src, nil if it reads.
func ReadError(src []byte, ts *language.TextSyntax) error {
	lex := newStream(newScanner(string(src), ts, maxNesting(8)), 8*kept)
	if err := newReader(lex, math.MaxInt).program(func(*tItem) *program.LimitError { return nil }); err != nil {
		return err
	}
	return lex.err
}
