package language

import (
	"testing"
	"time"
)

func TestWithDefaults(t *testing.T) {
	got := Limits{Steps: 5, Time: time.Second}.WithDefaults()
	want := DefaultLimits
	want.Steps, want.Time = 5, time.Second
	if got != want {
		t.Errorf("got %+v want %+v", got, want)
	}
	if (Limits{}).WithDefaults() != DefaultLimits {
		t.Error("a zero Limits must take every default")
	}
	if neg := (Limits{Depth: -3}).WithDefaults(); neg.Depth != DefaultLimits.Depth {
		t.Errorf("a negative depth must not survive: %+v", neg)
	}
}
