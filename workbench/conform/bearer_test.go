package conform

import (
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/pilotage-dev/pilotage/internal/base/bearer"
)

// bearer.Bearer, which HTTP sends every request through, sends the
// token as binding.md's authority header, and nothing without one; the
// caller's request is not modified. (Its test lives here, with its
// user, so that it links no test binary of its own.)
func TestBearer(t *testing.T) {
	var got []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got = append(got, r.Header.Get("Authorization"))
	}))
	defer srv.Close()
	for _, token := range []string{"owner-token", ""} {
		req, _ := http.NewRequest(http.MethodGet, srv.URL, nil)
		resp, err := bearer.Bearer{Token: token}.RoundTrip(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if req.Header.Get("Authorization") != "" {
			t.Error("RoundTrip modified the caller's request")
		}
	}
	if len(got) != 2 || got[0] != "Bearer owner-token" || got[1] != "" {
		t.Errorf("Authorization headers %q, want [\"Bearer owner-token\" \"\"]", got)
	}
}
