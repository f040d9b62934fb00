package wasm

import (
	"context"
	"errors"
	"os"
	"regexp"
	"testing"
)

// TestEnumValues: every value of enums.go is the one the module gives,
// and every enum bind.go sets a variable from is in enums.go (a missing
// one would read as 0).
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
	src, err := os.ReadFile("bind.go")
	if err != nil {
		t.Fatal(err)
	}
	uses := regexp.MustCompile(`enumValues\["([^"]*)"\]`).FindAllSubmatch(src, -1)
	if len(uses) == 0 {
		t.Fatal("bind.go takes no enum from enumValues")
	}
	for _, m := range uses {
		if _, ok := enumValues[string(m[1])]; !ok {
			t.Errorf("bind.go takes %s, which enums.go does not have", m[1])
		}
	}
}

// A load whose OnLoad function fails panics with its error and leaves
// the module unpublished, so that a caller that recovers does not go on
// with the module half set up.
func TestLoadFails(t *testing.T) {
	saved, was := onLoad, loaded.Load()
	defer func() { onLoad = saved; loaded.Store(was) }()
	loaded.Store(nil)
	fail := errors.New("set-up failed")
	onLoad = append(onLoad[:len(onLoad):len(onLoad)], func(context.Context) error { return fail })
	func() {
		defer func() {
			if r := recover(); r != fail {
				t.Errorf("Load panicked with %v, want the OnLoad error", r)
			}
		}()
		Load()
	}()
	if loaded.Load() != nil {
		t.Error("the module is published though its OnLoad failed")
	}
}
