package engine

import (
	"strings"
	"testing"

	pilotage "github.com/pilotage-dev/pilotage"
)

// lockProgram calls lock.open, which bob may not see (homeServer).
const lockProgram = `{"steps": [{"id": "o", "call": "lock.open", "with": {}}]}`

// TestDeployedIDIsNoBodyOracle: a deployed program's id and name must not
// let a caller confirm a guessed body (§10.3: a name the caller may not
// see must be indistinguishable from a nonexistent one; §1.6: the
// reference is opaque). Bob sees program.* but not lock.open; with an id
// derived from the unkeyed hash of the canonical body he could hash
// lockProgram offline, find it in alice's id and learn that lock.open
// exists.
func TestDeployedIDIsNoBodyOracle(t *testing.T) {
	e := newEngine(t, homeServer(), t.TempDir())
	ref := deploy(t, e, raw(lockProgram))
	guess := hashBytes(canonical(raw(lockProgram)))
	got := lookup(t, e, "bob", "home/v1", pilotage.LookupRequest{Verb: pilotage.VerbGet, ID: new(ref)})
	seen := string(mustJSON(got))
	if !strings.Contains(seen, ref) {
		t.Fatalf("bob does not see %s: %s", ref, seen)
	}
	if strings.Contains(seen, guess[:8]) {
		t.Errorf("the unkeyed body hash %s is in what bob sees of the deployed program: %s", guess[:12], seen)
	}
}

// TestDeployedIDsAcrossStores: ids are keyed with the run store's
// secret, so the same body by the same promoter keeps its id across a
// restart on the same data directory (an idempotent re-promotion, §5.4)
// and gets another id under another data directory, or in another
// memory-only engine: nobody can compute an id without the server.
func TestDeployedIDsAcrossStores(t *testing.T) {
	dir := t.TempDir()
	first := newEngine(t, homeServer(), dir)
	ref := deploy(t, first, raw(lockProgram))
	first.Close()
	reopened := newEngine(t, homeServer(), dir)
	if again := deploy(t, reopened, raw(lockProgram)); again != ref {
		t.Errorf("after reopening the data directory the same body was promoted as %s, want %s", again, ref)
	}
	elsewhere := deploy(t, newEngine(t, homeServer(), t.TempDir()), raw(lockProgram))
	inMemory := deploy(t, newEngine(t, homeServer(), ""), raw(lockProgram))
	otherMemory := deploy(t, newEngine(t, homeServer(), ""), raw(lockProgram))
	if refName(elsewhere) == refName(ref) || refName(inMemory) == refName(ref) || refName(inMemory) == refName(otherMemory) {
		t.Errorf("different servers minted related ids for one body: %s, %s, %s, %s", ref, elsewhere, inMemory, otherMemory)
	}
}

// TestDeployedIDsWithAFixedKey: Options.IDKey fixes the key, so goldens
// read the same ids every run; it replaces the store's key.
func TestDeployedIDsWithAFixedKey(t *testing.T) {
	one := deploy(t, newEngineWith(t, homeServer(), Options{DataDir: t.TempDir(), IDKey: goldenIDKey}), raw(lockProgram))
	two := deploy(t, newEngineWith(t, homeServer(), Options{IDKey: goldenIDKey}), raw(lockProgram))
	if one != two {
		t.Errorf("one key minted %s and %s for one body", one, two)
	}
}

// TestDeployedIDHidesOtherPromoters: another principal's promotion of
// the same body is not counted in a caller's reference. Before, bob
// promoting alice's body got name@2 and so learnt that someone had
// promoted exactly that body, whether or not he may see it (§10.3).
// Each promoter's re-promotions still count on (TestPromotion).
func TestDeployedIDHidesOtherPromoters(t *testing.T) {
	e := newEngine(t, homeServer(), t.TempDir())
	const body = `{"steps": [{"id": "f", "call": "fan.set", "with": {"on": "true"}}]}`
	alices := deployAs(t, e, "alice", raw(body))
	bobs := deployAs(t, e, "bob", raw(body))
	if bobs == alices || !strings.HasSuffix(bobs, "@1") {
		t.Errorf("bob promoted the body alice promoted as %s and got %s, want a reference of his own at @1", alices, bobs)
	}
}

// refName is a reference without its @N.
func refName(ref string) string {
	name, _, _ := strings.Cut(ref, "@")
	return name
}
