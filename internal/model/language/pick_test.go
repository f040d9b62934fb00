package language

import (
	"maps"
	"testing"
)

func TestCheckPrincipal(t *testing.T) {
	srv := &Server{Principals: []*Principal{{Name: "owner", Token: "s3"}, {Name: "guest"}}}
	for _, c := range []struct{ name, err string }{
		{"", ""},
		{"owner", ""},
		{"guest", ""},
		{"Owner", `--principal "Owner" is not declared in the PDL (did you mean "owner"?); declared: owner, guest`},
		{"ownr", `--principal "ownr" is not declared in the PDL (did you mean "owner"?); declared: owner, guest`},
		{"root", `--principal "root" is not declared in the PDL; declared: owner, guest`},
	} {
		err := srv.CheckPrincipal(c.name)
		if got := errText(err); got != c.err {
			t.Errorf("CheckPrincipal(%q) = %q, want %q", c.name, got, c.err)
		}
	}
	none := &Server{}
	if got, want := errText(none.CheckPrincipal("owner")), `--principal "owner": the PDL declares no principals`; got != want {
		t.Errorf("without principals: %q, want %q", got, want)
	}
	if got := (&Server{Principals: srv.Principals}).Tokens(); !maps.Equal(got, map[string]string{"s3": "owner"}) {
		t.Errorf("Tokens() = %v, want only owner's token", got)
	}
}

func TestPick(t *testing.T) {
	one := &Server{Languages: []*Language{{ID: "calc/v1"}}}
	two := &Server{Languages: []*Language{{ID: "b/v1"}, {ID: "a/v1"}}}
	for _, c := range []struct {
		srv      *Server
		id, want string
		err      string
	}{
		{one, "", "calc/v1", ""},
		{one, "calc/v1", "calc/v1", ""},
		{one, "calc/v2", "", `--language "calc/v2" is not defined in the PDL (did you mean "calc/v1"?); defined: calc/v1`},
		{two, "a/v1", "a/v1", ""},
		{two, "", "", "the PDL defines 2 Languages; choose one with --language (a/v1, b/v1)"},
		{&Server{}, "", "", "the PDL defines 0 Languages; choose one with --language ()"},
	} {
		l, err := c.srv.Pick(c.id)
		got := ""
		if l != nil {
			got = l.ID
		}
		if got != c.want || errText(err) != c.err {
			t.Errorf("Pick(%q) = %q, %q; want %q, %q", c.id, got, errText(err), c.want, c.err)
		}
	}
}

func errText(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}
