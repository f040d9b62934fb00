package wasm

import (
	"context"
	"testing"
)

// TestEnumValues: every value of enums.go is the one the module gives.
func TestEnumValues(t *testing.T) {
	if loaded.Load() != nil {
		t.Fatal("the module loaded before its first use")
	}
	ctx := context.Background()
	for name, want := range enumValues {
		if got := mod.getEnumValue(ctx, name); got != want {
			t.Errorf("%s: the module gives %d, enums.go %d", name, got, want)
		}
	}
}
