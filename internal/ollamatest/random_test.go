package ollamatest

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestFloat16Bits(t *testing.T) {
	cases := []struct {
		in   float32
		want uint16
	}{
		{0, 0x0000},
		{float32(math.Copysign(0, -1)), 0x8000},
		{1, 0x3c00},
		{-2, 0xc000},
		{0.1, 0x2e66},
		{65504, 0x7bff},                 // the largest half
		{65520, 0x7c00},                 // rounds up past it: infinity
		{1e6, 0x7c00},                   // overflow
		{float32(math.Inf(-1)), 0xfc00}, // infinity stays infinity
		{6.1035156e-05, 0x0400},         // the smallest normal half
		{5.9604645e-08, 0x0001},         // the smallest subnormal
		{2e-8, 0x0000},                  // below half of it: zero
		{1 + 1.0/2048, 0x3c00},          // a tie rounds to even (down)
		{1 + 3.0/2048, 0x3c02},          // a tie rounds to even (up)
		{float32(math.NaN()), 0x7e00},   // NaN stays NaN
		{0.02, 0x251f},                  // the random weights' scale
		{-3.0517578e-05, 0x8200},        // a negative subnormal
		{2047.5, 0x6800},                // a tie to even carries into the exponent: 2048
	}
	for _, c := range cases {
		if got := float16Bits(c.in); got != c.want {
			t.Errorf("float16Bits(%g) = %#04x, want %#04x", c.in, got, c.want)
		}
	}
	// Every finite half converts back to itself through float32.
	for h := 0; h < 1<<16; h++ {
		f := halfToFloat(uint16(h))
		if math.IsNaN(float64(f)) {
			continue
		}
		if got := float16Bits(f); got != uint16(h) {
			t.Fatalf("half %#04x = %g converts back to %#04x", h, f, got)
		}
	}
}

// smallShape is a random model small enough to read back whole.
func smallShape() RandomShape {
	return RandomShape{Name: "small", Layers: 2, Width: 128, FFN: 256, Heads: 4, KVHeads: 2, Vocab: 300,
		ContextLength: 1024, RopeBase: 10000}
}

// TestRandomGGUFLayout reads a random model back with the independent reader: the llama
// metadata of its shape, tied embeddings, F32 norms of ones, F16 matrices of the right
// dimensions whose values have the random weights' spread, and the same bytes for the same seed.
func TestRandomGGUFLayout(t *testing.T) {
	shape := smallShape()
	var buf bytes.Buffer
	if err := WriteRandomGGUF(&buf, shape, 7); err != nil {
		t.Fatal(err)
	}
	f, err := readGGUF(buf.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]any{"general.architecture": "llama", "general.file_type": uint32(1), "llama.block_count": uint32(2),
		"llama.embedding_length": uint32(128), "llama.feed_forward_length": uint32(256), "llama.attention.head_count": uint32(4),
		"llama.attention.head_count_kv": uint32(2), "llama.rope.dimension_count": uint32(32), "llama.context_length": uint32(1024),
		"llama.vocab_size": uint32(300), "tokenizer.ggml.eos_token_id": uint32(258)}
	for k, v := range want {
		if f.meta[k] != v {
			t.Errorf("%s = %#v, want %#v", k, f.meta[k], v)
		}
	}
	checkRandomVocab(t, f.meta["tokenizer.ggml.tokens"].([]any), shape.Vocab)
	dims := map[string][]uint64{"token_embd.weight": {128, 300}, "output_norm.weight": {128},
		"blk.1.attn_q.weight": {128, 128}, "blk.1.attn_k.weight": {128, 64}, "blk.1.attn_v.weight": {128, 64},
		"blk.1.attn_output.weight": {128, 128}, "blk.1.ffn_gate.weight": {128, 256}, "blk.1.ffn_down.weight": {256, 128}}
	for name, d := range dims {
		if got := f.tensors[name].dims; !equalDims(got, d) {
			t.Errorf("%s dims %v, want %v", name, got, d)
		}
	}
	if len(f.order) != 2+9*shape.Layers {
		t.Errorf("%d tensors, want %d: %v", len(f.order), 2+9*shape.Layers, f.order)
	}
	if _, ok := f.tensors["output.weight"]; ok {
		t.Error("output.weight written: the embeddings are tied")
	}
	for name, tn := range f.tensors {
		checkRandomTensor(t, name, tn)
	}
	var again, other bytes.Buffer
	WriteRandomGGUF(&again, shape, 7)
	WriteRandomGGUF(&other, shape, 8)
	if !bytes.Equal(buf.Bytes(), again.Bytes()) || bytes.Equal(buf.Bytes(), other.Bytes()) {
		t.Error("the file is not a function of shape and seed")
	}
}

func checkRandomVocab(t *testing.T, tokens []any, n int) {
	t.Helper()
	seen := map[any]bool{}
	for i, tok := range tokens {
		if seen[tok] {
			t.Errorf("token %d %q twice", i, tok)
		}
		seen[tok] = true
	}
	last := gpt2Decode(tokens[n-1].(string))
	if len(tokens) != n || tokens[258] != tokImEnd || !strings.HasPrefix(last, " "+RandomWordMark) {
		t.Errorf("%d tokens, token 258 %q, last %q", len(tokens), tokens[258], last)
	}
}

func checkRandomTensor(t *testing.T, name string, tn readTensor) {
	t.Helper()
	if strings.HasSuffix(name, "norm.weight") {
		if tn.typ != tensorF32 || tn.data[0] != 1 || tn.data[len(tn.data)-1] != 1 {
			t.Errorf("%s: type %d, values %g…%g; want F32 ones", name, tn.typ, tn.data[0], tn.data[len(tn.data)-1])
		}
		return
	}
	var sum, sq float64
	for _, v := range tn.data {
		sum += float64(v)
		sq += float64(v) * float64(v)
	}
	n := float64(len(tn.data))
	mean, std := sum/n, math.Sqrt(sq/n-sum*sum/n/n)
	if tn.typ != tensorF16 || math.Abs(mean) > 0.002 || math.Abs(std-randomScale) > 0.002 {
		t.Errorf("%s: type %d, mean %.4f, std %.4f; want F16 around 0 ± %g", name, tn.typ, mean, std, randomScale)
	}
}

func equalDims(a, b []uint64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// The shapes have the published models' parameter counts; the F16 sizes are logged for
// docs/figures-ollama.md. Nothing is generated: the tensors are only laid out.
func TestSmolLM2ShapeParameters(t *testing.T) {
	for _, c := range []struct {
		shape RandomShape
		want  uint64
	}{{SmolLM2Shape(), 361_821_120}, {SmolLM2SmallShape(), 134_515_008}} {
		var params, bytes uint64
		for _, tn := range randomTensors(c.shape, 1) {
			params += tn.count()
			bytes += padded(tn.size())
		}
		if params != c.want {
			t.Errorf("%s: %d parameters, want %d", c.shape.Name, params, c.want)
		}
		t.Logf("%s: %d parameters, %d bytes of F16 tensor data", c.shape.Name, params, bytes)
	}
}

func TestWriteRandomGGUFFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "m.gguf")
	digest, err := WriteRandomGGUFFile(path, smallShape(), 1)
	if err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(data)
	if digest != "sha256:"+hex.EncodeToString(sum[:]) {
		t.Errorf("digest %s is not the file's", digest)
	}
	bad := smallShape()
	bad.Heads = 3 // 128 does not split into 3 heads
	if _, err := WriteRandomGGUFFile(filepath.Join(t.TempDir(), "bad.gguf"), bad, 1); err == nil || !strings.Contains(err.Error(), "heads") {
		t.Errorf("a bad shape: %v", err)
	}
}
