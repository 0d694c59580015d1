package ui

import (
	"runtime"
	"testing"

	tea "charm.land/bubbletea/v2"
)

// BenchmarkOpenLongSession opens the TUI on a 10,000-message session
// (benchHistory: questions, tool calls with results, markdown answers
// with code), sizes it to 120×40 and draws the first frame, then reports
// the heap it holds (heap-MiB, HeapInuse after a collection, the model
// kept alive) and what opening it allocated (alloc-MiB, TotalAlloc).
func BenchmarkOpenLongSession(b *testing.B) {
	hist := benchHistory(10000)
	var inuse, total float64
	for b.Loop() {
		runtime.GC()
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		m := New(Options{Port: portOf(&fakeAgent{}), Provider: "openai", Model: "gpt-4.1", Theme: "dark", MaxIterations: 90, History: hist})
		m.Update(tea.WindowSizeMsg{Width: 120, Height: 40})
		_ = m.View()
		runtime.GC()
		runtime.ReadMemStats(&after)
		inuse += float64(after.HeapInuse) - float64(before.HeapInuse)
		total += float64(after.TotalAlloc - before.TotalAlloc)
		runtime.KeepAlive(m)
		m.shutdown()
	}
	b.ReportMetric(inuse/float64(b.N)/(1<<20), "heap-MiB")
	b.ReportMetric(total/float64(b.N)/(1<<20), "alloc-MiB")
}
