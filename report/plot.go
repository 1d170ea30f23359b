package report

import (
	"bytes"
	"fmt"
	"image/color"
	"math"
	"strconv"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgsvg"
)

// Chart sizes: small enough for three side by side on a wide page.
const (
	chartWidth  = 4.4 * vg.Inch
	chartHeight = 2.8 * vg.Inch
)

// sans is the charts' typeface, which the page embeds once for all of
// them (fontFace).
var sans = font.Font{Typeface: "Liberation", Variant: "Sans"}

// newPlot is an empty chart with its titles, a grid and the sans font.
func newPlot(title, x, y string) *plot.Plot {
	p := plot.New()
	p.Title.Text, p.X.Label.Text, p.Y.Label.Text = title, x, y
	for _, st := range []*draw.TextStyle{&p.Title.TextStyle, &p.X.Label.TextStyle, &p.Y.Label.TextStyle,
		&p.X.Tick.Label, &p.Y.Tick.Label, &p.Legend.TextStyle} {
		st.Font = font.Font{Typeface: sans.Typeface, Variant: sans.Variant, Size: st.Font.Size}
	}
	p.Title.TextStyle.Font.Size = 11
	p.X.Label.TextStyle.Font.Size, p.Y.Label.TextStyle.Font.Size = 10, 10
	p.X.Tick.Label.Font.Size, p.Y.Tick.Label.Font.Size, p.Legend.TextStyle.Font.Size = 8, 8, 8
	p.Legend.Top, p.Legend.Left = true, true
	p.Add(plotter.NewGrid())
	p.Y.Min = 0
	return p
}

// runColor is run i's color in every chart and in the page's key.
func runColor(i int) color.Color { return plotutil.DarkColors[i%len(plotutil.DarkColors)] }

// cssColor writes a color for a style sheet.
func cssColor(c color.Color) string {
	r, g, b, _ := c.RGBA()
	return fmt.Sprintf("#%02x%02x%02x", r>>8, g>>8, b>>8)
}

// maxGlyphs is the longest series whose points get glyphs: a few
// measured points stand out, a curve of many is a line.
const maxGlyphs = 30

// addLine draws xys as run i's line, dashed when dashed; name is its
// legend entry. An empty series draws nothing.
func addLine(p *plot.Plot, xys plotter.XYs, i int, dashed bool, name string) error {
	if len(xys) == 0 {
		return nil
	}
	l, s, err := plotter.NewLinePoints(xys)
	if err != nil {
		return err
	}
	l.Color, s.Color = runColor(i), runColor(i)
	l.Width = vg.Points(1.2)
	s.Shape, s.Radius = plotutil.Shape(i), vg.Points(2.5)
	if dashed {
		l.Dashes = []vg.Length{vg.Points(4), vg.Points(3)}
	}
	if len(xys) > maxGlyphs {
		p.Add(l)
		p.Legend.Add(name, l)
		return nil
	}
	p.Add(l, s)
	p.Legend.Add(name, l, s)
	return nil
}

// threadsAxis puts x on a log scale with a tick at each thread count.
func threadsAxis(p *plot.Plot, counts []int) {
	p.X.Scale = plot.LogScale{}
	var ticks plot.ConstantTicks
	for _, n := range counts {
		ticks = append(ticks, plot.Tick{Value: float64(n), Label: strconv.Itoa(n)})
	}
	p.X.Tick.Marker = ticks
	// Room around the first and last count, so that their glyphs show.
	p.X.Min, p.X.Max = float64(counts[0])/1.2, float64(counts[len(counts)-1])*1.2
}

// percentileAxis is HdrHistogram's x axis: 1/(1-q) on a log scale,
// labelled with the percentiles 0 %, 90 %, 99 %, ... 99.999 %.
func percentileAxis(p *plot.Plot) {
	p.X.Scale = plot.LogScale{}
	var ticks plot.ConstantTicks
	for d := 0.0; d <= 5; d++ {
		label := "0%"
		if d > 0 {
			label = strconv.FormatFloat(100-100/math.Pow(10, d), 'f', -1, 64) + "%"
		}
		ticks = append(ticks, plot.Tick{Value: math.Pow(10, d), Label: label})
	}
	p.X.Tick.Marker = ticks
	p.X.Min, p.X.Max = 1, maxInverse
}

// svgOf draws p as SVG. Inline charts leave the font to the page, which
// embeds it once; a standalone chart embeds it itself.
func svgOf(p *plot.Plot, standalone bool) (string, error) {
	c := vgsvg.NewWith(vgsvg.UseWH(chartWidth, chartHeight), vgsvg.EmbedFonts(standalone))
	p.Draw(draw.New(c))
	var b bytes.Buffer
	if _, err := c.WriteTo(&b); err != nil {
		return "", err
	}
	if standalone {
		return b.String(), nil
	}
	// Inside HTML the XML declaration and the generator's comment are
	// noise: the page starts at <svg.
	s := b.String()
	return s[strings.Index(s, "<svg"):], nil
}
