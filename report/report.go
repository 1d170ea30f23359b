// Package report makes `sbgo report`: one self-contained HTML file that
// compares runs' results files (the tables of package compare, charts of
// their figures over time, over thread counts and by percentile, and each
// run's metadata), or one of its charts as a standalone SVG.
//
// The page needs nothing from the network when opened: the charts are
// inline SVG drawn by gonum.org/v1/plot, their one font is embedded once
// in the page's style sheet, and there is no script. It reads files
// through packages results and compare and never imports the engine.
package report

import (
	"encoding/base64"
	"errors"
	"fmt"
	"html/template"
	"io"
	"strings"
	"sync"

	"codeberg.org/go-fonts/liberation/liberationsansregular"

	"sbgo/compare"
)

// Options say which tables the page shows and how ratios read.
type Options struct {
	Metrics []compare.Metric
	Ratio   compare.RatioStyle
}

// WriteHTML writes the report page of t.
func WriteHTML(w io.Writer, t *compare.Table, o Options) error {
	pg, err := newPage(t, o)
	if err != nil {
		return err
	}
	return pageTemplate.Execute(w, pg)
}

// WriteSVG writes the chart called name (the first chart when name is
// empty) as a standalone SVG with its own legend and font.
func WriteSVG(w io.Writer, t *compare.Table, name string) error {
	charts := Charts(t)
	if len(charts) == 0 {
		return errors.New("the runs have no step to chart")
	}
	c, ok := charts[0], name == ""
	var names []string
	for _, ch := range charts {
		names = append(names, ch.Name)
		if ch.Name == name {
			c, ok = ch, true
		}
	}
	if !ok {
		return fmt.Errorf("no chart %q; the charts are: %s", name, strings.Join(names, ", "))
	}
	p, err := c.draw(true)
	if err != nil {
		return fmt.Errorf("chart %s: %w", c.Name, err)
	}
	svg, err := svgOf(p, true)
	if err != nil {
		return err
	}
	_, err = io.WriteString(w, svg)
	return err
}

// fontFace is the style sheet rule that embeds the charts' font, once for
// all charts and the page's own text.
var fontFace = sync.OnceValue(func() template.CSS {
	return template.CSS(`@font-face { font-family: "Liberation Sans"; src: url(data:font/ttf;base64,` +
		base64.StdEncoding.EncodeToString(liberationsansregular.TTF) + `) format("truetype"); }`)
})
