// Package headless opens pages in a real browser, Debian's chromium
// without a display, for tests of the HTML sbgo writes: it renders a page
// to a PNG, tells what the page logged to its console, and checks that
// the picture holds more than a blank page.
//
// The browser runs with a profile of its own and with every host name
// resolving to nothing, so that neither the page nor the browser's own
// background services reach the network.
package headless

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"image"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"testing"
	"time"
)

// Browser is the chromium binary's path, or a reason it cannot be used
// here. Under CI=true a missing browser fails the test (.ci/run installs
// it); elsewhere the test is skipped.
func Browser(t testing.TB) string {
	t.Helper()
	path, err := exec.LookPath("chromium")
	if err == nil {
		return path
	}
	if os.Getenv("CI") == "true" {
		t.Fatalf("no chromium for the browser test: %v", err)
	}
	t.Skipf("no chromium (apt-get install chromium): %v", err)
	return ""
}

// renderTimeout bounds one page's rendering: a browser that hangs must
// not hold up the test suite.
const renderTimeout = 2 * time.Minute

// consoleLine is how chromium's log (--enable-logging=stderr) reports
// what a page wrote to its console, uncaught exceptions included.
var consoleLine = regexp.MustCompile(`(?m)^.*:CONSOLE[:(].*$`)

// Screenshot renders the HTML file page in a window of width × height
// CSS pixels into the PNG file out, and returns the lines the page wrote
// to its console.
func Screenshot(browser, page, out string, width, height int) ([]string, error) {
	abs, err := filepath.Abs(page)
	if err != nil {
		return nil, err
	}
	profile, err := os.MkdirTemp("", "sbgo-chromium")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(profile)
	ctx, cancel := context.WithTimeout(context.Background(), renderTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, browser,
		"--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
		"--user-data-dir="+profile, "--no-first-run", "--disable-background-networking",
		"--disable-component-update", "--disable-sync", "--disable-default-apps",
		`--host-resolver-rules=MAP * ~NOTFOUND`,
		"--enable-logging=stderr", "--v=0",
		fmt.Sprintf("--window-size=%d,%d", width, height),
		"--screenshot="+out, "file://"+abs)
	var stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stderr, &stderr
	if err := cmd.Run(); err != nil {
		return nil, fmt.Errorf("chromium: %v\n%s", err, stderr.String())
	}
	if _, err := os.Stat(out); err != nil {
		return nil, fmt.Errorf("chromium wrote no screenshot: %v\n%s", err, stderr.String())
	}
	return consoleLine.FindAllString(stderr.String(), -1), nil
}

// Colors reads a PNG and counts its distinct colors and the share of its
// pixels that are not white: a blank page has one color and no such
// pixel.
func Colors(path string) (distinct int, nonWhite float64, err error) {
	f, err := os.Open(path)
	if err != nil {
		return 0, 0, err
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		return 0, 0, err
	}
	b := img.Bounds()
	if b.Empty() {
		return 0, 0, errors.New("the picture is empty")
	}
	seen := map[[3]uint32]bool{}
	var colored int
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			r, g, bl, _ := img.At(x, y).RGBA()
			seen[[3]uint32{r, g, bl}] = true
			if r < 0xf000 || g < 0xf000 || bl < 0xf000 {
				colored++
			}
		}
	}
	return len(seen), float64(colored) / float64(b.Dx()*b.Dy()), nil
}

// Size is a PNG's width and height in pixels.
func Size(path string) (image.Point, error) {
	f, err := os.Open(path)
	if err != nil {
		return image.Point{}, err
	}
	defer f.Close()
	cfg, err := png.DecodeConfig(f)
	return image.Point{X: cfg.Width, Y: cfg.Height}, err
}
