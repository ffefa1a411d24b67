package ollamatest

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"io"
	"math"
	"strings"
	"testing"
)

// ggufFile is what the test reader below understands of a GGUF v3 file.
type ggufFile struct {
	version uint32
	meta    map[string]any
	keys    []string
	tensors map[string]readTensor
	order   []string
}

type readTensor struct {
	dims []uint64
	typ  uint32
	data []float32
}

// readGGUF is an independent reader, written from the format description rather than from the
// writer, so the two cannot share a mistake unnoticed.
func readGGUF(b []byte) (*ggufFile, error) {
	r := &reader{b: b}
	if string(r.next(4)) != "GGUF" {
		return nil, fmt.Errorf("bad magic")
	}
	f := &ggufFile{version: r.u32(), meta: map[string]any{}, tensors: map[string]readTensor{}}
	nt, nm := r.u64(), r.u64()
	for i := uint64(0); i < nm; i++ {
		k := r.str()
		f.keys = append(f.keys, k)
		f.meta[k] = r.value(r.u32())
	}
	type info struct {
		name   string
		dims   []uint64
		typ    uint32
		offset uint64
	}
	var infos []info
	for i := uint64(0); i < nt; i++ {
		in := info{name: r.str()}
		for n := r.u32(); n > 0; n-- {
			in.dims = append(in.dims, r.u64())
		}
		in.typ, in.offset = r.u32(), r.u64()
		infos = append(infos, in)
	}
	if r.err != nil {
		return nil, r.err
	}
	base := (r.off + 31) / 32 * 32
	for _, in := range infos {
		if in.offset%32 != 0 {
			return nil, fmt.Errorf("tensor %s offset %d not aligned", in.name, in.offset)
		}
		n := uint64(1)
		for _, d := range in.dims {
			n *= d
		}
		start, size := base+int(in.offset), map[uint32]int{0: 4, 1: 2}[in.typ]
		if size == 0 {
			return nil, fmt.Errorf("tensor %s has type %d, neither F32 nor F16", in.name, in.typ)
		}
		if start+int(n)*size > len(b) {
			return nil, fmt.Errorf("tensor %s runs past the end", in.name)
		}
		data := make([]float32, n)
		for i := range data {
			if size == 2 {
				data[i] = halfToFloat(binary.LittleEndian.Uint16(b[start+2*i:]))
			} else {
				data[i] = math.Float32frombits(binary.LittleEndian.Uint32(b[start+4*i:]))
			}
		}
		f.tensors[in.name] = readTensor{dims: in.dims, typ: in.typ, data: data}
		f.order = append(f.order, in.name)
	}
	return f, nil
}

// halfToFloat decodes IEEE half precision by its definition: sign, 5 exponent bits (bias 15),
// 10 mantissa bits, subnormal below exponent 1.
func halfToFloat(h uint16) float32 {
	sign := 1.0
	if h&0x8000 != 0 {
		sign = -1
	}
	exp, mant := int(h>>10&0x1f), float64(h&0x3ff)
	switch exp {
	case 0:
		return float32(sign * mant / 1024 * math.Pow(2, -14))
	case 0x1f:
		if mant != 0 {
			return float32(math.NaN())
		}
		return float32(sign * math.Inf(1))
	}
	return float32(sign * (1 + mant/1024) * math.Pow(2, float64(exp-15)))
}

type reader struct {
	b   []byte
	off int
	err error
}

func (r *reader) next(n int) []byte {
	if r.err != nil || r.off+n > len(r.b) {
		r.err = io.ErrUnexpectedEOF
		return make([]byte, n)
	}
	r.off += n
	return r.b[r.off-n : r.off]
}

func (r *reader) u32() uint32  { return binary.LittleEndian.Uint32(r.next(4)) }
func (r *reader) u64() uint64  { return binary.LittleEndian.Uint64(r.next(8)) }
func (r *reader) str() string  { return string(r.next(int(r.u64()))) }
func (r *reader) f32() float32 { return math.Float32frombits(r.u32()) }

func (r *reader) value(typ uint32) any {
	switch typ {
	case 4:
		return r.u32()
	case 5:
		return int32(r.u32())
	case 6:
		return r.f32()
	case 7:
		return r.next(1)[0] != 0
	case 8:
		return r.str()
	case 9:
		elem, n := r.u32(), r.u64()
		out := make([]any, 0, n)
		for i := uint64(0); i < n && r.err == nil; i++ {
			out = append(out, r.value(elem))
		}
		return out
	}
	r.err = fmt.Errorf("unknown value type %d", typ)
	return nil
}

// TestGGUFLayout checks the file the way a loader reads it, and logs its size for
// docs/figures-ollama.md (go test -v -run TestGGUFLayout).
func TestGGUFLayout(t *testing.T) {
	var calls []map[string]any
	for k := 1; k <= 10; k++ {
		calls = append(calls, map[string]any{"path": fmt.Sprintf("step%02d.txt", k)})
	}
	specs := map[string]ModelSpec{"ReadRoundTrip": ReadRoundTrip(), "ToolLoop with 10 calls": ToolLoop("read", calls, FinalAnswer)}
	for name, spec := range specs {
		m, err := Build(spec)
		if err != nil {
			t.Fatal(err)
		}
		f, err := readGGUF(m.GGUF)
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("%s: %d bytes, %v tokens, width %v", name, len(m.GGUF), f.meta["llama.vocab_size"], f.meta["llama.embedding_length"])
		checkLayout(t, m, f)
	}
}

func checkLayout(t *testing.T, m *Model, f *ggufFile) {
	t.Helper()
	if f.version != 3 {
		t.Errorf("version %d, want 3", f.version)
	}
	want := map[string]any{
		"general.architecture": "llama", "general.alignment": uint32(32), "llama.block_count": uint32(1),
		"tokenizer.ggml.model": "gpt2", "tokenizer.ggml.pre": "default", "tokenizer.ggml.add_bos_token": false,
		"llama.context_length": uint32(32768),
	}
	for k, v := range want {
		if f.meta[k] != v {
			t.Errorf("%s = %#v, want %#v", k, f.meta[k], v)
		}
	}
	tokens := f.meta["tokenizer.ggml.tokens"].([]any)
	if n := f.meta["llama.vocab_size"]; n != uint32(len(tokens)) {
		t.Errorf("vocab_size %v, tokens %d", n, len(tokens))
	}
	for _, k := range []string{"tokenizer.ggml.token_type", "tokenizer.ggml.scores"} {
		if n := len(f.meta[k].([]any)); n != len(tokens) {
			t.Errorf("%s has %d entries, want %d", k, n, len(tokens))
		}
	}
	width := uint64(f.meta["llama.embedding_length"].(uint32))
	if d := f.tensors["output.weight"].dims; len(d) != 2 || d[0] != width || d[1] != uint64(len(tokens)) {
		t.Errorf("output.weight dims %v, want [%d %d]", d, width, len(tokens))
	}
	if len(f.order) != 12 {
		t.Errorf("%d tensors: %v", len(f.order), f.order)
	}
	if len(m.GGUF) > 1<<20 {
		t.Errorf("model file is %d bytes; it should stay tiny", len(m.GGUF))
	}
}

// TestBigramReplies runs the network's forward pass in Go (the block adds nothing, so it is
// embedding, RMS norm, output projection, argmax) from each marker and checks that it spells
// the rule's reply, then <|im_end|>.
func TestBigramReplies(t *testing.T) {
	spec := ModelSpec{Rules: []Rule{
		{When: When{LastRole: "tool"}, Reply: FinalAnswer},
		{When: When{LastRole: "user", ToolOffered: "read"}, Reply: ToolCall("read", map[string]any{"path": ReadPath})},
		{When: When{ToolResults: 1}, Reply: ToolCall("read", map[string]any{"path": "b.txt"})},
		{When: When{ToolResults: 2}, Reply: ToolCall("read", map[string]any{"path": "c.txt"})},
		{When: When{UserTurns: 2}, Reply: "The file says hello. Again."},
		{Reply: "x"},
	}}
	spec.Rules[5].Reply = "xy z x"
	m, err := Build(spec)
	if err != nil {
		t.Fatal(err)
	}
	f, err := readGGUF(m.GGUF)
	if err != nil {
		t.Fatal(err)
	}
	for i, r := range spec.Rules {
		if got := runModel(t, f, fmt.Sprintf("<|rule_%d|>", i)); got != r.Reply {
			t.Errorf("rule %d says %q, want %q", i, got, r.Reply)
		}
	}
	if got := runModel(t, f, "<|rule_fallback|>"); got != NoMatchReply {
		t.Errorf("fallback says %q", got)
	}
	if got := runModel(t, f, gpt2Encode([]byte("a"))); got != "" {
		t.Errorf("a byte token continues with %q, want nothing", got)
	}
}

func runModel(t *testing.T, f *ggufFile, start string) string {
	t.Helper()
	tokens := f.meta["tokenizer.ggml.tokens"].([]any)
	id := -1
	for i, tok := range tokens {
		if tok == start {
			id = i
		}
	}
	if id < 0 {
		t.Fatalf("no token %q", start)
	}
	width := int(f.meta["llama.embedding_length"].(uint32))
	embd, out := f.tensors["token_embd.weight"].data, f.tensors["output.weight"].data
	var text strings.Builder
	for steps := 0; steps < 100; steps++ {
		x := embd[id*width : (id+1)*width]
		var ss float64
		for _, v := range x {
			ss += float64(v * v)
		}
		norm := math.Sqrt(ss/float64(width) + 1e-5)
		best, bestLogit := -1, math.Inf(-1)
		for tok := range tokens {
			var l float64
			for d, v := range x {
				l += float64(out[tok*width+d]) * float64(v) / norm
			}
			if l > bestLogit {
				best, bestLogit = tok, l
			}
		}
		if tokens[best] == tokImEnd {
			return text.String()
		}
		if bestLogit < 30 {
			t.Fatalf("token %q: best logit %.1f is not decisive", tokens[best], bestLogit)
		}
		text.WriteString(gpt2Decode(tokens[best].(string)))
		id = best
	}
	t.Fatalf("no <|im_end|> after 100 tokens from %q: %q", start, text.String())
	return ""
}

// gpt2Decode inverts gpt2Encode the way Ollama's tokenizer does.
func gpt2Decode(s string) string {
	var b bytes.Buffer
	for _, r := range s {
		switch {
		case r == 0x143:
			r = 0xad
		case r >= 0x100 && r <= 0x120:
			r -= 0x100
		case r > 0x120 && r <= 0x142:
			r -= 0xa2
		}
		b.WriteByte(byte(r))
	}
	return b.String()
}

func TestGPT2BytesRoundTrip(t *testing.T) {
	all := make([]byte, 256)
	for i := range all {
		all[i] = byte(i)
	}
	enc := gpt2Encode(all)
	if got := gpt2Decode(enc); got != string(all) {
		t.Fatalf("round trip changed bytes")
	}
	seen := map[rune]bool{}
	for _, r := range enc {
		if seen[r] {
			t.Fatalf("rune %U used twice", r)
		}
		seen[r] = true
	}
}
