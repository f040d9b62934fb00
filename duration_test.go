package pilotage_test

import (
	"strings"
	"testing"
	"time"

	pilotage "github.com/pilotage-dev/pilotage"
)

const day = 24 * time.Hour

// §6.6: retention may be an ISO 8601 duration. Years count 365 days and
// months 30 (a lower bound for "retained for at least").
func TestParseISODuration(t *testing.T) {
	tests := []struct {
		in   string
		want time.Duration
	}{
		{"P7D", 7 * day},
		{"PT1H", time.Hour},
		{"PT1H30M", 90 * time.Minute},
		{"P1Y2M3DT4H5M6.5S", 365*day + 60*day + 3*day + 4*time.Hour + 5*time.Minute + 6500*time.Millisecond},
		{"P1W", 7 * day},
		{"P2W3D", 17 * day},
		{"P1M", 30 * day},
		{"PT1M", time.Minute}, // M after T is minutes
		{"PT0S", 0},
		{"P0D", 0},
		{"PT36H", 36 * time.Hour},
		{"PT0.5S", 500 * time.Millisecond},
		{"PT1,5S", 1500 * time.Millisecond}, // ISO 8601 allows a decimal comma
		{"PT1.5H", 90 * time.Minute},        // a fraction on the smallest unit written
		{"P0.5D", 12 * time.Hour},
		{"P1DT0.25H", day + 15*time.Minute},
		{"P200Y", 200 * 365 * day},
		{"P106751D", 106751 * day},                            // just below 2^63 ns
		{"PT9223372036.854775807S", time.Duration(1<<63 - 1)}, // the largest Duration, exactly
		{"PT0.0000000019S", 1 * time.Nanosecond},              // fractions of a nanosecond are dropped
	}
	for _, tt := range tests {
		got, err := pilotage.ParseISODuration(tt.in)
		if err != nil || got != tt.want {
			t.Errorf("ParseISODuration(%q) = %v, %v; want %v", tt.in, got, err, tt.want)
		}
	}
}

func TestParseISODurationRejects(t *testing.T) {
	tests := []rejectCase{
		{"", "not an ISO 8601 duration"},
		{"P", "not an ISO 8601 duration"},
		{"PT", "not an ISO 8601 duration"},
		{"P1DT", "not an ISO 8601 duration"}, // T with nothing after it
		{"1D", "not an ISO 8601 duration"},
		{"-P1D", "not an ISO 8601 duration"},
		{"P-1D", "not an ISO 8601 duration"},
		{"p7d", "not an ISO 8601 duration"},
		{"P7", "not an ISO 8601 duration"},
		{"PT1D", "not an ISO 8601 duration"},      // days are not a time unit
		{"P1H", "not an ISO 8601 duration"},       // hours need T
		{"P1D2Y", "not an ISO 8601 duration"},     // out of order
		{"P1.5DT1H", "not an ISO 8601 duration"},  // a fraction only on the last unit
		{"PT1.5H30M", "not an ISO 8601 duration"}, // likewise
		{"P.5D", "not an ISO 8601 duration"},
		{"P1.D", "not an ISO 8601 duration"},
		{"P7D ", "not an ISO 8601 duration"},
		{"none", "not an ISO 8601 duration"},
		{"session", "not an ISO 8601 duration"},
		{"P1000Y", "longer than"},                  // beyond time.Duration
		{"P106752D", "longer than"},                // just past 2^63 ns
		{"PT9223372036.854775808S", "longer than"}, // exactly 2^63 ns
		{"P" + strings.Repeat("9", 400) + "D", "longer than"},
	}
	checkRejects(t, "ParseISODuration", pilotage.ParseISODuration, tests)
}

// FuzzParseISODuration: never panics, never returns a negative duration,
// and a rejected value always says what the form is.
func FuzzParseISODuration(f *testing.F) {
	for _, s := range []string{"P7D", "PT1H30M", "P1Y2M3DT4H5M6.5S", "P1W", "P", "PT", "-P1D", "P1000Y", "PT1,5S", "P0.5D"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		d, err := pilotage.ParseISODuration(s)
		if err != nil {
			if d != 0 {
				t.Fatalf("ParseISODuration(%q) = %v with error %v", s, d, err)
			}
			return
		}
		if d < 0 {
			t.Fatalf("ParseISODuration(%q) = %v, negative", s, d)
		}
		if !strings.HasPrefix(s, "P") {
			t.Fatalf("ParseISODuration(%q) accepted a value without P", s)
		}
	})
}
