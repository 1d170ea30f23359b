package headless

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestConsoleAndBlank: the helpers catch what the report tests rely on
// them to catch: a script error on the console, and a page with nothing
// on it.
func TestConsoleAndBlank(t *testing.T) {
	browser := Browser(t)
	dir := t.TempDir()
	for _, c := range []struct {
		name, html string
		console    string // a console line that must be reported; "" for none
		blank      bool
	}{
		// An uncaught exception and a console.error.
		{"broken", `<!DOCTYPE html><p>x</p><script>console.error("logged"); missingFunction();</script>`, "missingFunction", false},
		// Nothing but a white page.
		{"blank", `<!DOCTYPE html><body style="background: #fff"></body>`, "", true},
		// Colored blocks and no script.
		{"colored", `<!DOCTYPE html><div style="background: #c33; width: 200px; height: 100px"></div>` +
			`<div style="background: #36c; width: 150px; height: 80px"></div>`, "", false},
	} {
		page := filepath.Join(dir, c.name+".html")
		if err := os.WriteFile(page, []byte(c.html), 0o644); err != nil {
			t.Fatal(err)
		}
		out := filepath.Join(dir, c.name+".png")
		console, err := Screenshot(browser, page, out, 400, 300)
		if err != nil {
			t.Fatal(err)
		}
		text := strings.Join(console, "\n")
		if c.console == "" && len(console) > 0 || !strings.Contains(text, c.console) {
			t.Errorf("%s: console %q, want a line with %q", c.name, text, c.console)
		}
		distinct, nonWhite, err := Colors(out)
		if err != nil {
			t.Fatal(err)
		}
		if blank := distinct <= 1 && nonWhite == 0; blank != c.blank {
			t.Errorf("%s: %d colors, %.3f not white; blank %v, want %v", c.name, distinct, nonWhite, blank, c.blank)
		}
		if size, err := Size(out); err != nil || size.X != 400 || size.Y != 300 {
			t.Errorf("%s: picture %v (%v), want 400x300", c.name, size, err)
		}
	}
}
