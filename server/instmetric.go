package server

import "strconv"

// instMetric is Redis's inst_metric: the rate of a counter sampled every
// 100 ms (trackInstantaneousMetric), reported as the mean of the last
// STATS_METRIC_SAMPLES samples (getInstantaneousMetric): INFO's
// instantaneous_ops_per_sec and instantaneous_*_kbps. Under s.mu.
type instMetric struct {
	samples   [statsMetricSamples]int64
	idx       int
	lastTime  int64 // ms
	lastCount int64
}

const statsMetricSamples = 16

func (m *instMetric) track(nowMs, current int64) {
	t := nowMs - m.lastTime
	var rate int64
	if t > 0 {
		rate = (current - m.lastCount) * 1000 / t
	}
	m.samples[m.idx] = rate
	m.idx = (m.idx + 1) % statsMetricSamples
	m.lastTime, m.lastCount = nowMs, current
}

func (m *instMetric) get() int64 {
	var sum int64
	for _, v := range m.samples {
		sum += v
	}
	return sum / statsMetricSamples
}

// reset is resetServerStats' for a metric.
func (m *instMetric) reset(nowMs int64) {
	*m = instMetric{lastTime: nowMs}
}

// kbps formats a bytes-per-second metric as INFO's "%.2f" kilobytes.
func kbps(m *instMetric) string {
	return strconv.FormatFloat(float64(m.get())/1024, 'f', 2, 64)
}
