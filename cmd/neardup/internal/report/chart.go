package report

import (
	"fmt"
	"math"
)

// chart is an SVG drawing in user units: the template turns it into an
// inline <svg> with rectangles, lines and text. Geometry is worked out here,
// so that the template only prints it.
type chart struct {
	Width, Height float64
	Rects         []rect
	Lines         []line
	Labels        []label
}

type rect struct {
	X, Y, W, H float64
	Class      string
	Title      string // tooltip
}

type line struct {
	X1, Y1, X2, Y2 float64
	Class          string
}

type label struct {
	X, Y   float64
	Text   string
	Anchor string // start, middle or end
	Class  string
}

// bar is one horizontal bar: a name and a value.
type bar struct {
	Name  string
	Value float64
	Text  string // the value as shown
}

// hbarChart draws one horizontal bar per item, names on the left and values
// at the end of the bars, scaled to the largest value.
func hbarChart(bars []bar, width float64) chart {
	const rowH, barH, nameW, valueW, top = 22.0, 15.0, 150.0, 70.0, 4.0
	c := chart{Width: width, Height: top + rowH*float64(len(bars)) + 4}
	maxV := 0.0
	for _, b := range bars {
		maxV = max(maxV, b.Value)
	}
	span := width - nameW - valueW
	for i, b := range bars {
		y := top + rowH*float64(i)
		w := 0.0
		if maxV > 0 {
			w = span * b.Value / maxV
		}
		c.Labels = append(c.Labels, label{X: nameW - 8, Y: y + barH - 3, Text: b.Name, Anchor: "end"})
		c.Rects = append(c.Rects, rect{X: nameW, Y: y, W: round1(max(w, 1)), H: barH, Class: "bar", Title: b.Name + ": " + b.Text})
		c.Labels = append(c.Labels, label{X: round1(nameW + max(w, 1) + 6), Y: y + barH - 3, Text: b.Text, Anchor: "start", Class: "value"})
	}
	return c
}

// column is one column of a vertical bar chart: a label and stacked
// segments drawn bottom up.
type column struct {
	Label    string
	Segments []segment
}

type segment struct {
	Value int64
	Class string
	Title string
}

func (c column) total() int64 {
	var t int64
	for _, s := range c.Segments {
		t += s.Value
	}
	return t
}

// vbarChart draws stacked vertical bars with a labelled count axis, the
// column labels below and each column's total above it.
func vbarChart(cols []column, width, height float64, xTitle string) chart {
	const left, right, top, bottom = 56.0, 10.0, 18.0, 46.0
	c := chart{Width: width, Height: height}
	var maxV int64
	for _, col := range cols {
		maxV = max(maxV, col.total())
	}
	step := niceStep(float64(maxV) / 4)
	axisMax := step * math.Ceil(float64(maxV)/step)
	plotH, plotW := height-top-bottom, width-left-right
	y := func(v float64) float64 { return round1(top + plotH - plotH*v/axisMax) }
	for v := 0.0; v <= axisMax+step/2; v += step {
		c.Lines = append(c.Lines, line{X1: left, Y1: y(v), X2: width - right, Y2: y(v), Class: "grid"})
		c.Labels = append(c.Labels, label{X: left - 6, Y: y(v) + 4, Text: commas(int64(v)), Anchor: "end", Class: "axis"})
	}
	slot := plotW / float64(max(len(cols), 1))
	barW := round1(slot * 0.72)
	for i, col := range cols {
		x := round1(left + slot*float64(i) + (slot-barW)/2)
		base := 0.0
		for _, s := range col.Segments {
			if s.Value == 0 {
				continue
			}
			top := base + float64(s.Value)
			c.Rects = append(c.Rects, rect{X: x, Y: y(top), W: barW, H: round1(max(y(base)-y(top), 1)), Class: s.Class, Title: s.Title})
			base = top
		}
		mid := round1(x + barW/2)
		c.Labels = append(c.Labels, label{X: mid, Y: height - bottom + 16, Text: col.Label, Anchor: "middle", Class: "axis"})
		if t := col.total(); t > 0 {
			c.Labels = append(c.Labels, label{X: mid, Y: y(base) - 4, Text: commas(t), Anchor: "middle", Class: "value"})
		}
	}
	c.Lines = append(c.Lines, line{X1: left, Y1: y(0), X2: width - right, Y2: y(0), Class: "axisline"})
	c.Labels = append(c.Labels, label{X: left + plotW/2, Y: height - 8, Text: xTitle, Anchor: "middle", Class: "axis"})
	return c
}

// niceStep rounds x up to 1, 2 or 5 times a power of ten (at least 1).
func niceStep(x float64) float64 {
	if x <= 1 {
		return 1
	}
	p := math.Pow(10, math.Floor(math.Log10(x)))
	for _, m := range []float64{1, 2, 5, 10} {
		if m*p >= x {
			return m * p
		}
	}
	return 10 * p
}

func round1(x float64) float64 { return math.Round(x*10) / 10 }

// commas formats n with thousands separators: 1234567 -> "1,234,567".
func commas(n int64) string {
	s := fmt.Sprint(n)
	neg := n < 0
	if neg {
		s = s[1:]
	}
	out := make([]byte, 0, len(s)+len(s)/3+1)
	for i := range len(s) {
		if i > 0 && (len(s)-i)%3 == 0 {
			out = append(out, ',')
		}
		out = append(out, s[i])
	}
	if neg {
		return "-" + string(out)
	}
	return string(out)
}
