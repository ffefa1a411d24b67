package images

import "testing"

// BenchmarkFit6000x4000 is the cost of fitting a 6000×4000 screenshot (decode, scale to
// 2000×1333, encode).
func BenchmarkFit6000x4000(b *testing.B) {
	data := testPNG(b, 6000, 4000)
	b.ResetTimer()
	for range b.N {
		if _, err := Fit(data, DefaultLimits); err != nil {
			b.Fatal(err)
		}
	}
}
