package providers

import "strings"

// Price is a model's list price in US dollars per million tokens.
type Price struct {
	Input, Output, CacheRead, CacheWrite float64
}

// PriceOf returns the list price of a model by its id, matched on the
// longest known prefix (provider prefixes such as "openai/" or
// "anthropic." are ignored). The table holds public list prices and is an
// estimate: providers change them, and discounts are not known here.
func PriceOf(model string) (Price, bool) {
	m := strings.ToLower(model)
	if i := strings.LastIndexAny(m, "/"); i >= 0 {
		m = m[i+1:]
	}
	m = strings.TrimPrefix(strings.TrimPrefix(m, "anthropic."), "us.anthropic.")
	best, found := "", Price{}
	for _, row := range priceTable() {
		if strings.HasPrefix(m, row.prefix) && len(row.prefix) > len(best) {
			best, found = row.prefix, row.price
		}
	}
	return found, best != ""
}

// EstimateCost prices a usage at a model's list price; ok is false for an
// unknown model. Input tokens are the uncached ones, as transports report.
func EstimateCost(model string, u Usage) (float64, bool) {
	p, ok := PriceOf(model)
	if !ok {
		return 0, false
	}
	cw := p.CacheWrite
	if cw == 0 {
		cw = p.Input
	}
	cr := p.CacheRead
	if cr == 0 {
		cr = p.Input
	}
	return (float64(u.InputTokens)*p.Input + float64(u.OutputTokens)*p.Output +
		float64(u.CacheReadTokens)*cr + float64(u.CacheWriteTokens)*cw) / 1e6, true
}

type priceRow struct {
	prefix string
	price  Price
}

// priceTable lists public per-million-token prices of common models.
func priceTable() []priceRow {
	return []priceRow{
		{"gpt-4.1", Price{2.00, 8.00, 0.50, 0}},
		{"gpt-4.1-mini", Price{0.40, 1.60, 0.10, 0}},
		{"gpt-4.1-nano", Price{0.10, 0.40, 0.025, 0}},
		{"gpt-4o", Price{2.50, 10.00, 1.25, 0}},
		{"gpt-4o-mini", Price{0.15, 0.60, 0.075, 0}},
		{"gpt-5", Price{1.25, 10.00, 0.125, 0}},
		{"gpt-5-mini", Price{0.25, 2.00, 0.025, 0}},
		{"gpt-5-nano", Price{0.05, 0.40, 0.005, 0}},
		{"o3", Price{2.00, 8.00, 0.50, 0}},
		{"o4-mini", Price{1.10, 4.40, 0.275, 0}},
		{"claude-sonnet-4", Price{3.00, 15.00, 0.30, 3.75}},
		{"claude-3-7-sonnet", Price{3.00, 15.00, 0.30, 3.75}},
		{"claude-3-5-sonnet", Price{3.00, 15.00, 0.30, 3.75}},
		{"claude-opus-4", Price{15.00, 75.00, 1.50, 18.75}},
		{"claude-haiku-4", Price{1.00, 5.00, 0.10, 1.25}},
		{"claude-3-5-haiku", Price{0.80, 4.00, 0.08, 1.00}},
		{"gemini-2.5-pro", Price{1.25, 10.00, 0.31, 0}},
		{"gemini-2.5-flash", Price{0.30, 2.50, 0.075, 0}},
		{"gemini-2.5-flash-lite", Price{0.10, 0.40, 0.025, 0}},
		{"deepseek-chat", Price{0.27, 1.10, 0.07, 0}},
		{"deepseek-reasoner", Price{0.55, 2.19, 0.14, 0}},
	}
}
