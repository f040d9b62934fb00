package pilotage

import (
	"fmt"
	"math/big"
	"regexp"
	"strings"
	"time"
)

// isoDuration matches an ISO 8601 duration: PnYnMnWnDTnHnMnS, each number
// with an optional decimal fraction (ParseISODuration allows one only on the
// smallest unit written).
var isoDuration = regexp.MustCompile(`^P(?:(\d+(?:[.,]\d+)?)Y)?(?:(\d+(?:[.,]\d+)?)M)?(?:(\d+(?:[.,]\d+)?)W)?(?:(\d+(?:[.,]\d+)?)D)?(?:T(?:(\d+(?:[.,]\d+)?)H)?(?:(\d+(?:[.,]\d+)?)M)?(?:(\d+(?:[.,]\d+)?)S)?)?$`)

// unitSeconds are the lengths of Y, M, W, D, H, M and S in seconds.
var unitSeconds = [...]int64{365 * 24 * 3600, 30 * 24 * 3600, 7 * 24 * 3600, 24 * 3600, 3600, 60, 1}

// ParseISODuration parses an ISO 8601 duration such as "P7D" or "PT1H30M"
// (§6.6). Years count 365 days and months 30, which is what a retention
// commitment "for at least" the duration needs: a lower bound. It rejects
// "P", "PT", negative and overflowing values. The arithmetic is exact
// (rational), so the bound of time.Duration is enforced to the nanosecond.
func ParseISODuration(s string) (time.Duration, error) {
	m := isoDuration.FindStringSubmatch(s)
	if m == nil || s == "P" || s[len(s)-1] == 'T' {
		return 0, fmt.Errorf("%q is not an ISO 8601 duration (examples: \"P7D\", \"PT1H\", \"P1Y2M\")", s)
	}
	total := new(big.Rat)
	fraction := false
	for i, u := range unitSeconds {
		v := m[i+1]
		if v == "" {
			continue
		}
		if fraction {
			return 0, fmt.Errorf("%q is not an ISO 8601 duration: only the smallest unit written may have a fraction", s)
		}
		v = strings.Replace(v, ",", ".", 1)
		fraction = strings.Contains(v, ".")
		r, ok := new(big.Rat).SetString(v)
		if !ok {
			return 0, fmt.Errorf("%q is not an ISO 8601 duration: bad number %q", s, v)
		}
		total.Add(total, r.Mul(r, new(big.Rat).SetInt64(u*int64(time.Second))))
	}
	// Whole nanoseconds; a fraction of a nanosecond is dropped.
	ns := new(big.Int).Quo(total.Num(), total.Denom())
	if !ns.IsInt64() {
		return 0, fmt.Errorf("%q is longer than this tool can represent (about 292 years)", s)
	}
	return time.Duration(ns.Int64()), nil
}
