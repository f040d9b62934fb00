package cmd

import (
	"runtime/debug"
	"testing"
)

// TestVersionNamesTheCommit: version names the commit go build stamped
// into the binary (vcs.revision, vcs.modified), shortened in text and
// whole in JSON, and says nothing of one a build does not carry (go test
// and -buildvcs=false builds, which the CLI scripts run). Issue 13 item
// 15.
func TestVersionNamesTheCommit(t *testing.T) {
	const rev = "4d1af45da077cee714a5f26beb61e7721498856a"
	stamped := func(modified string) *debug.BuildInfo {
		return &debug.BuildInfo{Settings: []debug.BuildSetting{{Key: "vcs", Value: "git"}, {Key: "vcs.revision", Value: rev}, {Key: "vcs.modified", Value: modified}}}
	}
	for _, c := range []struct {
		name       string
		bi         *debug.BuildInfo
		text, json string
	}{
		{"clean checkout", stamped("false"), "pilotage devel (Pilotage 1.1), commit 4d1af45da077",
			`{"commit":"` + rev + `","modified":false,"pilotage":"1.1","version":"devel"}`},
		{"uncommitted changes", stamped("true"), "pilotage devel (Pilotage 1.1), commit 4d1af45da077 with uncommitted changes",
			`{"commit":"` + rev + `","modified":true,"pilotage":"1.1","version":"devel"}`},
		{"no vcs stamp", &debug.BuildInfo{}, "pilotage devel (Pilotage 1.1)", `{"pilotage":"1.1","version":"devel"}`},
		{"no build info", nil, "pilotage devel (Pilotage 1.1)", `{"pilotage":"1.1","version":"devel"}`},
	} {
		if got := versionText(c.bi); got != c.text {
			t.Errorf("%s: text %q, want %q", c.name, got, c.text)
		}
		if got := string(versionJSON(c.bi)); got != c.json {
			t.Errorf("%s: json %s, want %s", c.name, got, c.json)
		}
	}
}
