package luabind

import (
	"os"
	"regexp"
	"testing"
)

// TestVMPatchesInstalled fails when init left one of gopher-lua's
// handlers in place: the linked gopher-lua is not the verified release,
// or its registry, callFrame or dispatch table no longer look like
// vmpatch.go's mirrors. Scripts then still run, with gopher-lua's `%`,
// `..` and call errors; after checking the mirrors against the new
// gopher-lua's vm.go and state.go, raise verifiedGopherLua.
func TestVMPatchesInstalled(t *testing.T) {
	if vmPatches.version != verifiedGopherLua {
		t.Fatalf("linked gopher-lua is %q, the VM patches were verified against %s", vmPatches.version, verifiedGopherLua)
	}
	for name, ok := range map[string]bool{"OP_MOD": vmPatches.modulo, "OP_CONCAT": vmPatches.concat, "OP_CALL": vmPatches.call, "OP_SELF": vmPatches.self,
		"OP_GETTABLEKS and OP_SETTABLEKS": vmPatches.fields, "OP_CALL of leaf functions": vmPatches.leaves} {
		if !ok {
			t.Errorf("gopher-lua's %s handler was not replaced: check vmpatch.go's mirrors against the gopher-lua in go.mod", name)
		}
	}
	if note := VMPatchNote(); note != "" {
		t.Errorf("VMPatchNote() = %q, want empty", note)
	}
}

// TestGopherLuaPinned keeps pinnedGopherLua, which test binaries use for
// want of build information, equal to go.mod's requirement, and both
// equal to the verified release: changing gopher-lua's version fails here
// until the VM patches are checked against it.
func TestGopherLuaPinned(t *testing.T) {
	mod, err := os.ReadFile("../go.mod")
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(?m)^\s*(?:require\s+)?github\.com/yuin/gopher-lua\s+(\S+)`).FindSubmatch(mod)
	if m == nil {
		t.Fatal("go.mod does not require github.com/yuin/gopher-lua")
	}
	// pinnedGopherLua and verifiedGopherLua are two constants so that each
	// can be changed alone, and this test then tells which one is stale.
	if got := string(m[1]); got != pinnedGopherLua || pinnedGopherLua != verifiedGopherLua {
		t.Fatalf("go.mod requires gopher-lua %s; pinnedGopherLua is %s and the VM patches were verified against %s",
			got, pinnedGopherLua, verifiedGopherLua)
	}
	if regexp.MustCompile(`(?m)^\s*(?:replace\s+)?github\.com/yuin/gopher-lua\s.*=>`).Match(mod) {
		t.Fatal("go.mod replaces gopher-lua: the VM patches are verified only against the released module")
	}
}

// TestVMPatchNote checks the note `sbgo --version` prints when the
// patches are off.
func TestVMPatchNote(t *testing.T) {
	saved := vmPatches
	t.Cleanup(func() { vmPatches = saved })
	vmPatches.version, vmPatches.modulo, vmPatches.concat, vmPatches.call = "v1.1.3", false, false, false
	want := "note: gopher-lua v1.1.3 is not the verified v1.1.2: `%`, `..` and call errors keep gopher-lua's own rules"
	if got := VMPatchNote(); got != want {
		t.Errorf("got %q\nwant %q", got, want)
	}
	vmPatches.version = verifiedGopherLua
	want = "note: gopher-lua v1.1.2 does not have the internals it was verified with: `%`, `..` and call errors keep gopher-lua's own rules"
	if got := VMPatchNote(); got != want {
		t.Errorf("got %q\nwant %q", got, want)
	}
}
