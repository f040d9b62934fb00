package compile

import (
	"iter"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/alecthomas/participle/v2/lexer"

	"github.com/pilotage-dev/pilotage/internal/base/report"
	"github.com/pilotage-dev/pilotage/internal/model/language"
	"github.com/pilotage-dev/pilotage/workbench/pdl"
)

// checkShownNames reports a text every caller of a Language receives that
// names a catalog entry some principal may not see from the Language
// (§10.3: discovery feedback MUST NOT leak what a caller may not know),
// rule pdl-guide-name. Lookup shows a caller only the entries it sees,
// but these texts are the same for everyone, so a guest's learn would
// hand it a name its validate calls nonexistent. So are an entry's own
// texts (entryTexts) to every principal that sees the entry: a name in
// them is held to what each of those sees. Each name is reported once
// per text, at its first occurrence, with the principals that may not
// see it. Without principals every caller sees every entry.
//
// The texts are those shownTexts and entryTexts list and the server
// statement, which every caller of every Language reads in the manifest:
// a name in it leaks to the principals that see the entry from no
// Language. Each text
// is cut into words of the characters entry ids are made of and each word
// looked up, so the work is linear in the texts whatever the size of the
// catalog.
func (c *compiler) checkShownNames() {
	if len(c.srv.Principals) == 0 {
		return
	}
	c.idHeads = new(heads)
	for _, es := range c.entries {
		c.idHeads.add(es.e.ID)
		c.longestID = max(c.longestID, len(es.e.ID))
	}
	if c.serverStmt != nil {
		c.checkShown(readers{}, c.argTexts(nil, "the server", "the manifest", c.serverStmt))
	}
	for _, ls := range c.langs {
		c.checkShown(readers{lang: ls.lang.ID}, c.shownTexts(ls))
	}
	c.checkEntriesShown()
}

// checkEntriesShown checks the texts of each entry in c.entries
// (entryTexts), reading the entries' statements again: kept from the
// entries' compile, until every entry was known, the texts took 250
// bytes an entry, more than a generated entry's 100 bytes of PDL
// (docs/performance.md, "Generated catalogs past the tree budget").
// The entries were read in file order, the second of an id left out.
func (c *compiler) checkEntriesShown() {
	if len(c.entries) == 0 {
		return
	}
	next := 0
	for s := range c.tree.StatementsOf("entry") {
		es := c.entries[next]
		if s.Pos != es.at().from {
			continue // an id given twice: its first is the one checked
		}
		c.checkShown(readers{entry: es.e}, c.entryTexts(entryTextStmts(s)))
		if next++; next == len(c.entries) {
			return
		}
	}
}

// entryTextStmts are the statements of entry s whose texts entryTexts
// reads, as the entry's compile took them: the last statement of each
// member's keyword, at the place of its first, then every fail.
func entryTextStmts(s *pdl.Stmt) []*pdl.Stmt {
	var fields, fails []*pdl.Stmt
	for _, ss := range s.Children() {
		switch ss.Keyword {
		case "fail":
			fails = append(fails, ss)
		case "name", "description", "tags", "revision", "input_schema", "output_schema", "returns", "compute":
			if i := slices.IndexFunc(fields, func(f *pdl.Stmt) bool { return f.Keyword == ss.Keyword }); i >= 0 {
				fields[i] = ss
			} else {
				fields = append(fields, ss)
			}
		}
	}
	return append(fields, fails...)
}

// readers are who receive a text: every caller of Language lang ("" for
// the server's, which every Language shows) or, when entry is set, the
// principals that see entry, from each Language that lists it.
type readers struct {
	lang  string
	entry *language.Entry
}

// shown is one text callers receive: what it is and what carries it, for
// the message, and where its lines and columns are in the source.
type shown struct {
	what  string // "guide core", "the title of guide core", "risk safe"
	where string // "the guide", "the guide index", "the manifest", "the closed-sets guide"
	text  string
	// The source of text is one of: at, which maps a 1-based line and
	// column (in characters) of text to it (a guide's body); the file,
	// when text is a file's (which entries' schemas may share: the names
	// in it are found once, named); or else the PDL value v, a copy
	// that keeps no statement.
	at   func(line, col int) lexer.Position
	file string
	v    pdl.Value
}

// pos is where line and col of t's text are in its source.
func (t *shown) pos(name string, line, col int) lexer.Position {
	switch {
	case t.at != nil:
		return t.at(line, col)
	case t.file != "":
		return lexer.Position{Filename: t.file, Line: line, Column: col}
	}
	return valuePos(name, &t.v, line, col)
}

// whereGuide is what carries a guide's body.
const whereGuide = "the guide"

// shownTexts lists what every caller of a Language receives that its
// author wrote: in the manifest its title, description and
// context_schema; in the guide index each authored guide's id, title,
// description and topics, and in learn its body (prose and program
// examples); in the closed-sets guide every diagnostic code, kind, risk
// level and status the Language publishes, with its meaning (its own and
// the file's), and its prose paragraphs; and its grammar's member names,
// which the closed-sets guide and every diagnostic's path show. Build's
// own text (the reserved values, the fixed prose, the loop decisions)
// names no entry; a text syntax's keywords are plain words (keyword),
// which idWords never reads as ids on their own, and its fence shows only
// in the guides; what lookup returns is per entry, shown only to who
// sees it. The closed sets are read as built (sets), so only the
// values the Language publishes are checked.
func (c *compiler) shownTexts(ls *langState) []shown {
	const manifest, index, closed = "the manifest", "the guide index", "the closed-sets guide"
	var out []shown
	for _, wire := range []string{"title", "description"} {
		if s := ls.settings[wire]; s != nil {
			out = c.argTexts(out, "the "+wire, manifest, s)
		}
	}
	if s := ls.settings["context_schema"]; s != nil {
		out = c.schemaTexts(out, "the context_schema", manifest, s)
	}
	for j, g := range ls.lang.Guides {
		if g.Generated || j >= len(ls.guides) {
			continue
		}
		of := " of guide " + g.ID
		for _, t := range ls.guides[j].texts {
			out = append(out, shownValue(t.what+of, index, t.v))
		}
		out = append(out, shown{what: "guide " + g.ID, where: whereGuide, text: g.Body,
			at: func(line, col int) lexer.Position { return c.bodyPos(ls.guides[j], line, col) }})
	}
	sets := &ls.lang.Sets
	var keys []string
	for _, x := range sets.DiagnosticCodes {
		keys = append(keys, "diagnostic:"+x.Code)
	}
	for _, x := range sets.Kinds {
		keys = append(keys, "kind:"+x.Kind)
	}
	for _, x := range sets.RiskLevels {
		keys = append(keys, "risk:"+x.Risk)
	}
	for _, x := range sets.RunStatuses {
		keys = append(keys, "status run:"+x.Status)
	}
	for _, x := range sets.StepStatuses {
		keys = append(keys, "status step:"+x.Status)
	}
	for _, k := range keys {
		// A Language's statements include the file's (language); a
		// reserved value has none.
		if vs := ls.sets.texts[k]; len(vs) > 0 {
			what := strings.Replace(k, ":", " ", 1)
			for _, v := range vs {
				out = append(out, shownValue(what, closed, v))
			}
		}
	}
	for _, p := range ls.proseTexts {
		out = append(out, shownValue("prose "+p.what, closed, p.v))
	}
	for _, s := range ls.stmt.Children() {
		if s.Keyword == "grammar" {
			for _, ch := range s.Children() {
				out = c.argTexts(out, "the grammar", "the grammar, in the closed-sets guide and diagnostic paths", ch)
			}
		}
	}
	return out
}

// Where an entry's texts reach the principals that see it.
const (
	whereLookup     = "it in lookup"
	whereRunMessage = "it as a Run's step message"
	whereRunOutput  = "it as a Run's step output"
)

// entryTexts lists what lookup and a Run hand, of an entry, to the
// principals that see it, from the statements of its block: its name,
// description, tags and revision and its input and output schemas (the
// whole of each, descriptions included, inline or in a file), which
// lookup returns; the message of each fail, which a Run gives as its
// step's message; and what returns or compute give, which is the step's
// output. Its kind, risk and fail statuses are closed-set values, held
// to every caller in the closed-sets guide; its languages name
// Languages, its behaviour's conditions are never shown, and a promoted
// program's body is not returned by lookup. It is called while the
// statements are read: the texts keep their values, not the block.
func (c *compiler) entryTexts(stmts []*pdl.Stmt) []shown {
	var out []shown
	for _, s := range stmts {
		switch s.Keyword {
		case "name", "description", "tags", "revision":
			out = c.argTexts(out, entryTextWhat[s.Keyword], whereLookup, s)
		case "input_schema", "output_schema":
			out = c.schemaTexts(out, entryTextWhat[s.Keyword], whereLookup, s)
		case "fail":
			if p := s.Positional(); len(p) == 2 {
				out = c.valueTexts(out, "the message of fail "+p[0].Value.Str(), whereRunMessage, p[1])
			}
		case "returns", "compute":
			out = c.argTexts(out, entryTextWhat[s.Keyword], whereRunOutput, s)
		}
	}
	return out
}

// entryTextWhat names an entry's texts by their keyword in messages.
var entryTextWhat = map[string]string{"name": "the name", "description": "the description", "tags": "the tags",
	"revision": "the revision", "input_schema": "the input_schema", "output_schema": "the output_schema",
	"returns": "the output (returns)", "compute": "the output (compute)"}

// argTexts appends every argument of s, options included, as a text.
func (c *compiler) argTexts(out []shown, what, where string, s *pdl.Stmt) []shown {
	for _, a := range s.Args {
		out = c.valueTexts(out, what, where, a)
	}
	return out
}

// valueTexts appends a's value as a text: none when a is nil, or when
// its text names nothing an entry id could be (most of an entry's).
func (c *compiler) valueTexts(out []shown, what, where string, a *pdl.Arg) []shown {
	if a == nil || !namesAny(a.Value.Str()) {
		return out
	}
	return append(out, shownValue(what, where, a.Value))
}

// namedArgs are the values of s's arguments that could name an entry
// (namesAny), in order: what argTexts shows of s, kept once s is let go
// of.
func namedArgs(s *pdl.Stmt) []pdl.Value {
	var out []pdl.Value
	for _, a := range s.Args {
		if namesAny(a.Value.Str()) {
			out = append(out, a.Value)
		}
	}
	return out
}

// shownValue is the text of a PDL value.
func shownValue(what, where string, v pdl.Value) shown {
	return shown{what: what, where: where, text: v.Str(), v: v}
}

// namesAny reports whether text has a word an entry id could be
// (idWords).
func namesAny(text string) bool {
	for range idWords(text) {
		return true
	}
	return false
}

// namedValue is a value of a statement that could name an entry, with
// what it is ("the title"), kept for shownTexts once the statement is
// let go of.
type namedValue struct {
	what string
	v    pdl.Value
}

// guideTexts are the values of a guide's statement the guide index
// shows that could name an entry, in order: its id and title, and the
// words of its description and topics.
func guideTexts(s *pdl.Stmt) []namedValue {
	var out []namedValue
	add := func(what string, a *pdl.Arg) {
		if a != nil && namesAny(a.Value.Str()) {
			out = append(out, namedValue{what, a.Value})
		}
	}
	p := s.Positional()
	add("the id", arg(p, 0))
	add("the title", arg(p, 1))
	for _, ch := range s.Children() {
		switch ch.Keyword {
		case "description":
			for _, a := range ch.Args {
				add("the description", a)
			}
		case "topics":
			for _, a := range ch.Args {
				add("the topics", a)
			}
		}
	}
	return out
}

// schemaTexts appends a schema statement's JSON as a text: inline, or
// the file it names as read (none when it could not be read).
func (c *compiler) schemaTexts(out []shown, what, where string, s *pdl.Stmt) []shown {
	a, ok := s.Option("file")
	if !ok {
		return c.valueTexts(out, what, where, arg(s.Positional(), 0))
	}
	path := c.path(a.Value.Str())
	text, ok := c.fileTexts[path]
	if !ok {
		src, read := c.res.Sources[path]
		if !read {
			return out
		}
		// Once a file: the entries that name it share the string.
		text = string(src)
		if c.fileTexts == nil {
			c.fileTexts = map[string]string{}
		}
		c.fileTexts[path] = text
	}
	return append(out, shown{what: what, where: where, text: text, file: path})
}

// checkShown reports the names of hidden entries in texts that r read.
func (c *compiler) checkShown(r readers, texts []shown) {
	type name struct{ what, id string }
	var reported map[name]bool
	for _, t := range texts {
		for _, w := range c.named(t) {
			key := name{t.what, w.text}
			if reported[key] {
				continue
			}
			if reported == nil {
				reported = map[name]bool{}
			}
			reported[key] = true
			if blind := c.blindTo(c.entryByID[w.text].e, r); len(blind) > 0 {
				hint, msg := leak(t, r, w.text, blind)
				col := w.col(t.text)
				c.add(pdl.Errorf(pdl.RuleGuideName, t.pos(c.name, w.line, col), t.pos(c.name, w.line, col+len(w.text)), hint, msg))
			}
		}
	}
}

// named lists the words of t that name an entry. Those of a schema file,
// which thousands of entries may share, are found once.
func (c *compiler) named(t shown) []idWord {
	if t.file != "" {
		if ws, ok := c.fileNames[t.file]; ok {
			return ws
		}
	}
	var out []idWord
	for w := range idWords(t.text) {
		out = c.appendNamed(out, w)
	}
	if t.file != "" {
		if c.fileNames == nil {
			c.fileNames = map[string][]idWord{}
		}
		c.fileNames[t.file] = out
	}
	return out
}

// appendNamed appends what the word w names: w itself when it is an
// entry id, else the ids it holds between the characters ids may hold
// but prose also puts next to them ("todo.add:", "todo.add/todo.list",
// "todo.add-based"), the longest at each start. A part names an entry
// only with a . or @ in it, as an unquoted word does. Each start tries
// its next four joins within 256 bytes, so a word of a million hyphens
// costs linear time; a longer id is found only as a whole word.
func (c *compiler) appendNamed(out []idWord, w idWord) []idWord {
	if c.idHeads.has(w.text) && c.entryByID[w.text] != nil {
		return append(out, w)
	}
	const maxTries, maxPart = 4, 256
	for a := 0; a < len(w.text); a++ {
		if a > 0 && !isIDJoin(w.text[a-1]) {
			continue
		}
		found, tries, dotted := -1, 0, false
		for b := a + 1; b <= len(w.text) && b-a <= min(c.longestID, maxPart) && tries < maxTries; b++ {
			dotted = dotted || w.text[b-1] == '.' || w.text[b-1] == '@'
			if b < len(w.text) && !isIDJoin(w.text[b]) {
				continue
			}
			tries++
			if part := w.text[a:b]; dotted && len(part) < len(w.text) && c.idHeads.has(part) && c.entryByID[part] != nil {
				found = b
			}
		}
		if found > 0 {
			out = append(out, idWord{text: w.text[a:found], line: w.line, lineStart: w.lineStart, at: w.at + a})
			a = found - 1
		}
	}
	return out
}

// isIDJoin reports whether ch, a character ids may hold, also joins an
// id to prose: "todo.add: adds", "a.b/c.d", "todo.add-based".
func isIDJoin(ch byte) bool { return ch == ':' || ch == '/' || ch == '-' }

// leak writes the hint and message of text t, read by r, naming name,
// which the principals blind may not see.
func leak(t shown, r readers, name string, blind []string) (hint, msg string) {
	// Every name quoted is clipped (report.Clip): an entry id is quoted
	// three times, and one entry's text may name many hidden entries.
	of, who, hint := "", "every caller reads ", "name only entries every principal sees"
	switch {
	case r.entry != nil:
		id := report.Clip(r.entry.ID)
		of, who, hint = " of entry "+id, "every principal that sees "+id+" reads ", "name only entries every principal that sees "+id+" sees"
	case r.lang != "":
		of, who, hint = " of "+report.Clip(r.lang), "every caller of the Language reads ", hint+" from the Language"
	}
	if t.where == whereGuide {
		hint += " (give the others their own guide in a Language only they use)"
	}
	return hint + ", or describe them without the name",
		report.Clip(t.what) + of + " names " + report.Clip(name) + ", which " + principals(report.Clips(blind)) + " may not see: " + who + t.where + " (§10.3)"
}

// principals writes names as "principal a" or "principals a and b".
func principals(names []string) string {
	if len(names) == 1 {
		return "principal " + names[0]
	}
	return "principals " + andWords(names)
}

// blindTo lists the principals among r that may not see e: for the
// callers of a Language, e is not in that Language or none of their
// patterns matches its id (with r.lang "", the server's own text, only
// the patterns count); for the principals that see r.entry, none of
// their patterns matches e's id, or e is missing from a Language that
// lists r.entry, where lookup and Runs hand them its texts too. A
// principal whose sees is misspelt is left out: what it sees is unknown.
func (c *compiler) blindTo(e *language.Entry, r readers) []string {
	inLang := r.lang == "" || sees(e, r.lang)
	if r.entry != nil {
		inLang = !slices.ContainsFunc(c.langs, func(ls *langState) bool {
			return sees(r.entry, ls.lang.ID) && !sees(e, ls.lang.ID)
		})
	}
	var out []string
	for _, p := range c.srv.Principals {
		if c.seesUnknown[p] || r.entry != nil && !p.SeesID(r.entry.ID) {
			continue
		}
		if !inLang || !p.SeesID(e.ID) {
			out = append(out, p.Name)
		}
	}
	return out
}

// heads is a set of the first two bytes of strings: most words of a
// text are no entry id, and asking it first spares their lookup in the
// index of ids, which would be half the rule's time on a catalog of
// 10,000 schemas' quoted words.
type heads [1 << 16 / 8]uint8

func head(s string) int {
	if len(s) < 2 {
		return int(s[0]) << 8
	}
	return int(s[0])<<8 | int(s[1])
}

func (h *heads) add(s string) {
	if s != "" {
		h[head(s)/8] |= 1 << (head(s) % 8)
	}
}

func (h *heads) has(s string) bool { return s != "" && h[head(s)/8]&(1<<(head(s)%8)) != 0 }

// idWord is a run of entry-id characters (ASCII, so its length in bytes
// is its length in characters) in a text: its 1-based line, and its
// offset and that of its line's start in the text.
type idWord struct {
	text                string
	line, lineStart, at int
}

// col is w's 1-based column in characters in body, counted only for a
// word that names an entry: counting it for every word would take time
// quadratic in the length of a line (a minified schema is one).
func (w idWord) col(body string) int {
	return utf8.RuneCountInString(body[w.lineStart:w.at]) + 1
}

// idWords yields the runs of a text of the characters entry ids use
// (letters, digits and _ . @ - / :), without a trailing dot, which ends
// a sentence. A run without . @ / or : reads as an id only when quoted
// (after ` " or '): the room entry living is named in `'living'`, not in
// "the living room".
func idWords(body string) iter.Seq[idWord] {
	return func(yield func(idWord) bool) {
		line, lineStart, start := 1, 0, -1
		flush := func(end int) bool {
			if start < 0 {
				return true
			}
			w := strings.TrimRight(body[start:end], ".")
			quoted := start > 0 && strings.IndexByte("`\"'", body[start-1]) >= 0
			at := start
			start = -1
			return w == "" || !quoted && !strings.ContainsAny(w, ".@/:") || yield(idWord{text: w, line: line, lineStart: lineStart, at: at})
		}
		for i := 0; i < len(body); i++ {
			ch := body[i]
			if idChar(ch) {
				if start < 0 {
					start = i
				}
				continue
			}
			if !flush(i) {
				return
			}
			if ch == '\n' {
				line, lineStart = line+1, i+1
			}
		}
		flush(len(body))
	}
}

func idChar(ch byte) bool { return idChars[ch] }

// idChars marks the characters entry ids use: a table, since idWords
// asks of every byte of every text a caller receives.
var idChars = func() (t [256]bool) {
	for ch := range 256 {
		b := byte(ch)
		t[ch] = b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z' || b >= '0' && b <= '9' || strings.IndexByte("_.@-/:", b) >= 0
	}
	return t
}()
