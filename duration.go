package pilotage

import (
	"fmt"
	"math"
	"regexp"
	"strconv"
	"time"
)

// isoDuration matches an ISO 8601 duration: PnYnMnWnDTnHnMnS with an
// optional fraction on the smallest unit written.
var isoDuration = regexp.MustCompile(`^P(?:(\d+)Y)?(?:(\d+)M)?(?:(\d+)W)?(?:(\d+)D)?(?:T(?:(\d+)H)?(?:(\d+)M)?(?:(\d+(?:[.,]\d+)?)S)?)?$`)

// ParseISODuration parses an ISO 8601 duration such as "P7D" or "PT1H30M"
// (§6.6). Years count 365 days and months 30, which is what a retention
// commitment "for at least" the duration needs: a lower bound. It rejects
// "P", "PT", negative and overflowing values.
func ParseISODuration(s string) (time.Duration, error) {
	m := isoDuration.FindStringSubmatch(s)
	if m == nil || s == "P" || s[len(s)-1] == 'T' {
		return 0, fmt.Errorf("%q is not an ISO 8601 duration (examples: \"P7D\", \"PT1H\", \"P1Y2M\")", s)
	}
	units := []float64{365 * 24 * 3600, 30 * 24 * 3600, 7 * 24 * 3600, 24 * 3600, 3600, 60, 1}
	var secs float64
	for i, u := range units {
		if m[i+1] == "" {
			continue
		}
		v, err := strconv.ParseFloat(normalizeComma(m[i+1]), 64)
		if err != nil {
			return 0, fmt.Errorf("%q: %v", s, err)
		}
		secs += v * u
	}
	if secs*float64(time.Second) > math.MaxInt64 {
		return 0, fmt.Errorf("%q is longer than this tool can represent (about 292 years)", s)
	}
	return time.Duration(secs * float64(time.Second)), nil
}

func normalizeComma(s string) string {
	b := []byte(s)
	for i, c := range b {
		if c == ',' {
			b[i] = '.'
		}
	}
	return string(b)
}
