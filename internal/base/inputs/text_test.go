package inputs

import "testing"

func TestLooksLikeText(t *testing.T) {
	for src, want := range map[string]bool{
		"# a comment\nadd = todo.add(item: input.item)": true,
		"\xef\xbb\xbf  add = todo.add()":                true,
		"output input.shop":                             true,
		`{"steps": []}`:                                 false,
		"[1, 2":                                         false,
		"true":                                          false,
		"null x":                                        false,
		"nullish = a.b()":                               true,
		"":                                              false,
		"1, 2, 3":                                       false,
	} {
		if got := LooksLikeText([]byte(src)); got != want {
			t.Errorf("LooksLikeText(%q) = %v, want %v", src, got, want)
		}
	}
}
