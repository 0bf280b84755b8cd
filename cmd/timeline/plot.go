package main

import (
	"fmt"
	"image"
	"image/color"
	"image/color/palette"
	stddraw "image/draw"
	"image/png"
	"math"
	"os"
	"strings"
	"time"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
)

const dpi = 96

var (
	colP50   = color.RGBA{R: 31, G: 119, B: 180, A: 255}
	colP99   = color.RGBA{R: 255, G: 127, B: 14, A: 255}
	colMax   = color.RGBA{R: 214, G: 39, B: 40, A: 255}
	colCur   = color.RGBA{R: 44, G: 160, B: 44, A: 255}
	colBase  = color.RGBA{R: 148, G: 103, B: 189, A: 255}
	colAvg   = color.RGBA{R: 127, G: 127, B: 127, A: 255}
	colBatch = color.RGBA{R: 31, G: 119, B: 180, A: 255}
	colJob   = color.NRGBA{R: 255, G: 200, B: 0, A: 60} // not premultiplied: a light wash
	colEdge  = color.RGBA{R: 120, G: 100, B: 0, A: 255}
)

// scales are the axes every picture of one invocation shares, so the
// servers compare at a glance.
type scales struct {
	xMax             float64 // seconds
	latMin, latMax   float64 // ms, log scale
	sizeMax          float64 // MB
	batchMax         float64
	anyGroup, anyJob bool
}

func sharedScales(runs []*runResult) scales {
	sc := scales{latMin: math.Inf(1), batchMax: 1}
	for _, r := range runs {
		sc.xMax = max(sc.xMax, r.end.Seconds())
		for _, w := range r.lat {
			sc.latMin = min(sc.latMin, w.p50)
			sc.latMax = max(sc.latMax, w.max)
		}
		for _, s := range r.samples {
			sc.sizeMax = max(sc.sizeMax, s.curSize/1e6, s.baseSize/1e6)
			if s.hasGroup {
				sc.anyGroup = true
				sc.batchMax = max(sc.batchMax, s.avgCmds)
			}
		}
		for _, b := range batches(r) {
			sc.batchMax = max(sc.batchMax, b.Y)
		}
	}
	if math.IsInf(sc.latMin, 1) {
		sc.latMin, sc.latMax = 0.01, 1
	}
	// Whole decades, so the log axis has labelled ticks.
	sc.latMin = math.Pow(10, math.Floor(math.Log10(max(sc.latMin, 1e-3))))
	sc.latMax = math.Pow(10, math.Ceil(math.Log10(max(sc.latMax, sc.latMin*10))))
	sc.sizeMax = max(sc.sizeMax*1.1, 0.1)
	sc.batchMax *= 1.15
	return sc
}

// batches is the commands per fsync in each ~250 ms span, from the change in
// aof_fsyncs and in aof_group_commit_avg_cmds × aof_fsyncs (the average is
// since start-up: the picture wants it per moment).
func batches(r *runResult) plotter.XYs {
	var out plotter.XYs
	j := 0
	for i, s := range r.samples {
		if !s.hasFsyncs || !s.hasGroup {
			return nil
		}
		for j < i && s.at-r.samples[j].at > 250*time.Millisecond {
			j++
		}
		p := r.samples[max(j-1, 0)]
		df := s.fsyncs - p.fsyncs
		if df <= 0 {
			continue
		}
		cmds := s.avgCmds*s.fsyncs - p.avgCmds*p.fsyncs
		out = append(out, plotter.XY{X: s.at.Seconds(), Y: max(cmds/df, 0)})
	}
	return out
}

// writePNG draws runs side by side (one column each) into path.
func writePNG(path string, runs []*runResult, sc scales, o options) error {
	wPt := vg.Length(o.width*len(runs)) * vg.Inch / dpi
	hPt := vg.Length(o.height) * vg.Inch / dpi
	img := vgimg.NewWith(vgimg.UseWH(wPt, hPt), vgimg.UseDPI(dpi))
	dc := draw.New(img)
	rows := make([][]*plot.Plot, 3)
	for _, r := range runs {
		lat, err := latencyPlot(r, sc, o)
		if err != nil {
			return err
		}
		size, err := sizePlot(r, sc)
		if err != nil {
			return err
		}
		group, err := groupPlot(r, sc)
		if err != nil {
			return err
		}
		rows[0] = append(rows[0], lat)
		rows[1] = append(rows[1], size)
		rows[2] = append(rows[2], group)
	}
	tiles := draw.Tiles{Rows: 3, Cols: len(runs), PadX: vg.Points(8), PadY: vg.Points(8),
		PadTop: vg.Points(4), PadBottom: vg.Points(4), PadLeft: vg.Points(4), PadRight: vg.Points(8)}
	canvases := plot.Align(rows, tiles, dc)
	for i := range rows {
		for j := range rows[i] {
			rows[i][j].Draw(canvases[i][j])
		}
	}
	// A 256-colour palette (nearest colour, no dithering) keeps a chart
	// of thin lines sharp at a third of the bytes: small enough for docs/.
	rgba := img.Image()
	pal := image.NewPaletted(rgba.Bounds(), palette.Plan9)
	stddraw.Draw(pal, pal.Bounds(), rgba, rgba.Bounds().Min, stddraw.Src)
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	enc := png.Encoder{CompressionLevel: png.BestCompression}
	if err := enc.Encode(f, pal); err != nil {
		f.Close()
		return fmt.Errorf("writing %s: %w", path, err)
	}
	return f.Close()
}

func newPlot(title, ylabel string, sc scales) *plot.Plot {
	p := plot.New()
	p.Title.Text = title
	p.Title.TextStyle.Font.Size = vg.Points(10)
	p.X.Label.Text = "time (s)"
	p.Y.Label.Text = ylabel
	p.X.Min, p.X.Max = 0, sc.xMax
	p.Add(plotter.NewGrid())
	p.Legend.Top = true
	p.Legend.TextStyle.Font.Size = vg.Points(8)
	return p
}

// markJob shades the job's span between y0 and y1 and edges it.
func markJob(p *plot.Plot, r *runResult, sc scales, y0, y1 float64) error {
	if r.jobStart == 0 {
		return nil
	}
	end := r.jobEnd
	if end == 0 {
		end = r.end
	}
	x0, x1 := r.jobStart.Seconds(), end.Seconds()
	poly, err := plotter.NewPolygon(plotter.XYs{{X: x0, Y: y0}, {X: x1, Y: y0}, {X: x1, Y: y1}, {X: x0, Y: y1}})
	if err != nil {
		return err
	}
	poly.Color = colJob
	poly.LineStyle.Width = 0
	p.Add(poly)
	for _, x := range []float64{x0, x1} {
		l, err := plotter.NewLine(plotter.XYs{{X: x, Y: y0}, {X: x, Y: y1}})
		if err != nil {
			return err
		}
		l.LineStyle.Color = colEdge
		l.LineStyle.Dashes = []vg.Length{vg.Points(3), vg.Points(2)}
		p.Add(l)
	}
	return nil
}

func addLine(p *plot.Plot, name string, pts plotter.XYs, c color.Color, width float64) error {
	if len(pts) == 0 {
		return nil
	}
	l, err := plotter.NewLine(pts)
	if err != nil {
		return err
	}
	l.LineStyle.Color = c
	l.LineStyle.Width = vg.Points(width)
	p.Add(l)
	p.Legend.Add(name, l)
	return nil
}

func latencyPlot(r *runResult, sc scales, o options) (*plot.Plot, error) {
	jobName := strings.ToUpper(o.job)
	span := "did not end"
	if r.jobEnd != 0 {
		span = fmt.Sprintf("%.1f–%.1f s", r.jobStart.Seconds(), r.jobEnd.Seconds())
	}
	p := newPlot(fmt.Sprintf("%s: request latency per %v (%s %s, shaded)", r.name, o.window, jobName, span), "ms (log)", sc)
	p.Y.Scale = plot.LogScale{}
	p.Y.Tick.Marker = plot.LogTicks{Prec: -1}
	p.Y.Min, p.Y.Max = sc.latMin, sc.latMax
	if err := markJob(p, r, sc, sc.latMin, sc.latMax); err != nil {
		return nil, err
	}
	var p50, p99, mx plotter.XYs
	for _, w := range r.lat {
		x := (w.at + o.window/2).Seconds()
		p50 = append(p50, plotter.XY{X: x, Y: max(w.p50, sc.latMin)})
		p99 = append(p99, plotter.XY{X: x, Y: max(w.p99, sc.latMin)})
		mx = append(mx, plotter.XY{X: x, Y: max(w.max, sc.latMin)})
	}
	for _, l := range []struct {
		name string
		pts  plotter.XYs
		c    color.Color
	}{{"max", mx, colMax}, {"p99", p99, colP99}, {"p50", p50, colP50}} {
		if err := addLine(p, l.name, l.pts, l.c, 1); err != nil {
			return nil, err
		}
	}
	return p, nil
}

func sizePlot(r *runResult, sc scales) (*plot.Plot, error) {
	p := newPlot(r.name+": AOF size (INFO persistence)", "MB", sc)
	p.Y.Min, p.Y.Max = 0, sc.sizeMax
	if err := markJob(p, r, sc, 0, sc.sizeMax); err != nil {
		return nil, err
	}
	var cur, base plotter.XYs
	for _, s := range r.samples {
		cur = append(cur, plotter.XY{X: s.at.Seconds(), Y: s.curSize / 1e6})
		base = append(base, plotter.XY{X: s.at.Seconds(), Y: s.baseSize / 1e6})
	}
	if err := addLine(p, "aof_current_size", cur, colCur, 1.5); err != nil {
		return nil, err
	}
	if err := addLine(p, "aof_base_size", base, colBase, 1.5); err != nil {
		return nil, err
	}
	return p, nil
}

func groupPlot(r *runResult, sc scales) (*plot.Plot, error) {
	b := batches(r)
	title := r.name + ": commands per fsync (group commit)"
	if b == nil {
		title = r.name + ": commands per fsync: not reported (no aof_group_commit_* in INFO)"
	}
	p := newPlot(title, "commands", sc)
	p.Y.Min, p.Y.Max = 0, sc.batchMax
	if err := markJob(p, r, sc, 0, sc.batchMax); err != nil {
		return nil, err
	}
	if b == nil {
		return p, nil
	}
	var avg plotter.XYs
	for _, s := range r.samples {
		avg = append(avg, plotter.XY{X: s.at.Seconds(), Y: s.avgCmds})
	}
	if err := addLine(p, "per 250 ms", b, colBatch, 1); err != nil {
		return nil, err
	}
	if err := addLine(p, "aof_group_commit_avg_cmds (since start)", avg, colAvg, 1.5); err != nil {
		return nil, err
	}
	return p, nil
}
