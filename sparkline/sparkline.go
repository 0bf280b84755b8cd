// Package sparkline is Redis 7.0.15's sparkline.c (Salvatore Sanfilippo's
// ASCII sparklines), as LATENCY GRAPH draws them. It holds no state.
package sparkline

import "strings"

// Sequence is sparkline.c's struct sequence: the samples and their
// labels, rendered with SPARKLINE_FILL.
type Sequence struct {
	values   []float64
	labels   []string
	nlabels  int
	min, max float64
}

// Add is sparklineSequenceAddSample; an empty label leaves the column
// unlabelled.
func (q *Sequence) Add(v float64, label string) {
	if len(q.values) == 0 {
		q.min, q.max = v, v
	} else if v < q.min {
		q.min = v
	} else if v > q.max {
		q.max = v
	}
	q.values = append(q.values, v)
	q.labels = append(q.labels, label)
	if label != "" {
		q.nlabels++
	}
}

// Render is sparklineRender: columns samples per block of rows.
func (q *Sequence) Render(b *strings.Builder, columns, rows int) {
	for j := 0; j < len(q.values); j += columns {
		if j != 0 {
			b.WriteByte('\n')
		}
		q.renderRange(b, rows, j, min(len(q.values)-j, columns))
	}
}

// renderRange is sparklineRenderRange with SPARKLINE_FILL: rows of
// "_o#" steps (and '|' below the top), one blank row, then the labels
// written vertically.
func (q *Sequence) renderRange(b *strings.Builder, rows, offset, n int) {
	const charsetFill = "_o#"
	const labelMarginTop = 1
	relmax := q.max - q.min
	if relmax == 0 {
		relmax = 1
	}
	steps := len(charsetFill) * rows
	chars := make([]byte, n)
	for row := 0; ; row++ {
		loop := false
		for j := range chars {
			chars[j] = ' '
		}
		for j := 0; j < n; j++ {
			relval := q.values[j+offset] - q.min
			// (int)(relval*steps)/relmax, truncated again on assignment.
			step := int(float64(int(relval*float64(steps))) / relmax)
			step = min(max(step, 0), steps-1)
			if row < rows {
				loop = true
				idx := step - (rows-row-1)*len(charsetFill)
				if idx >= 0 && idx < len(charsetFill) {
					chars[j] = charsetFill[idx]
				} else if idx >= len(charsetFill) {
					chars[j] = '|'
				}
			} else {
				if q.nlabels > 0 && row-rows < labelMarginTop {
					loop = true
					break
				}
				if label := q.labels[j+offset]; label != "" {
					if k := row - rows - labelMarginTop; len(label) > k {
						loop = true
						chars[j] = label[k]
					}
				}
			}
		}
		if !loop {
			return
		}
		b.Write(chars)
		b.WriteByte('\n')
	}
}
