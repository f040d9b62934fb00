package pilotage_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	pilotage "github.com/pilotage-dev/pilotage"
)

// The Go types carry the exact wire names of data-model.md: decoding the
// documentation's examples into them and encoding again loses, renames or
// invents no member.
func TestWireRoundTrip(t *testing.T) {
	examples := filepath.Join("docs", "examples")
	tests := []struct {
		file string
		into any
	}{
		{"manifest.json", &pilotage.Manifest{}},
		{"snapshot.json", &pilotage.Snapshot{}},
		{filepath.Join("replay", "plan.json"), &pilotage.Plan{}},
		{filepath.Join("replay", "trace.json"), &pilotage.Trace{}},
	}
	for _, tt := range tests {
		src, err := os.ReadFile(filepath.Join(examples, tt.file))
		if err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(src, tt.into); err != nil {
			t.Fatalf("%s: %v", tt.file, err)
		}
		out, err := json.Marshal(tt.into)
		if err != nil {
			t.Fatalf("%s: %v", tt.file, err)
		}
		var want, got any
		if err := json.Unmarshal(src, &want); err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(out, &got); err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s does not survive a round trip through %T:\n got %s", tt.file, tt.into, out)
		}
	}
}
