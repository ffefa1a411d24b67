package ollamatest

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"strconv"
)

// RandomWordMark starts every word a random model can say (apart from its 256 byte tokens and
// three control tokens), so a test finds the first streamed token on a screen by this rune.
const RandomWordMark = "¶"

// randomScale is the standard deviation of the random weights: what real models are
// initialised with, which keeps activations finite through dozens of RMS-normed layers.
const randomScale = 0.02

// RandomShape is a real model's shape for a model with random weights: it computes as fast as
// the real one and says nonsense. It measures what prompt length costs, not what a model says.
type RandomShape struct {
	Name          string // general.name
	Layers        int    // llama.block_count
	Width         int    // llama.embedding_length
	FFN           int    // llama.feed_forward_length
	Heads         int    // attention heads; Width/Heads is the head size
	KVHeads       int    // key/value heads (grouped-query attention)
	Vocab         int    // tokens, at least 259 (the byte tokens and the control tokens)
	ContextLength int    // llama.context_length
	RopeBase      float32
}

// SmolLM2Shape is SmolLM2-360M's shape: llama architecture, 32 layers, width 960, FFN 2560,
// 15 heads of 64, 5 key/value heads, 49152 tokens, tied embeddings, an 8192-token window;
// 361,821,120 parameters, 724 MB as F16.
func SmolLM2Shape() RandomShape {
	return RandomShape{Name: "pi-random-smollm2-360m-shape", Layers: 32, Width: 960, FFN: 2560, Heads: 15,
		KVHeads: 5, Vocab: 49152, ContextLength: 8192, RopeBase: 100000}
}

// SmolLM2SmallShape is SmolLM2-135M's shape: 30 layers, width 576, FFN 1536, 9 heads of 64,
// 3 key/value heads, 49152 tokens, tied embeddings, an 8192-token window; 134,515,008
// parameters, 270 MB as F16. It computes about a third of SmolLM2Shape's work per token.
func SmolLM2SmallShape() RandomShape {
	return RandomShape{Name: "pi-random-smollm2-135m-shape", Layers: 30, Width: 576, FFN: 1536, Heads: 9,
		KVHeads: 3, Vocab: 49152, ContextLength: 8192, RopeBase: 100000}
}

func (s RandomShape) check() error {
	switch {
	case s.Layers < 1 || s.Width < 1 || s.FFN < 1 || s.Heads < 1 || s.KVHeads < 1:
		return fmt.Errorf("random model shape %+v: layers, width, FFN and heads must be positive", s)
	case s.Width%s.Heads != 0 || s.Heads%s.KVHeads != 0:
		return fmt.Errorf("random model shape %+v: width must split into heads, heads into key/value heads", s)
	case s.Vocab < 259:
		return fmt.Errorf("random model shape %+v: vocabulary %d is below the 259 byte and control tokens", s, s.Vocab)
	case s.ContextLength < 1:
		return fmt.Errorf("random model shape %+v: context length must be positive", s)
	}
	return nil
}

// RandomTemplate renders the conversation ChatML-style with the tools first, as the scripted
// models do: the system prompt and the tool schemas are the prompt's stable start.
const RandomTemplate = templateTools + `
{{- range .Messages }}<|im_start|>{{ .Role }}
{{ .Content }}<|im_end|>
{{ end }}<|im_start|>assistant
`

// WriteRandomGGUF writes an F16 model of shape with weights drawn from seed: the same shape
// and seed always give the same bytes. Values are generated as they are written, so memory
// stays small at any size. The tokenizer knows no merges, so a prompt is one token per byte.
func WriteRandomGGUF(w io.Writer, shape RandomShape, seed uint64) error {
	if err := shape.check(); err != nil {
		return err
	}
	return writeGGUF(w, randomMetadata(shape), randomTensors(shape, seed))
}

// WriteRandomGGUFFile writes WriteRandomGGUF's file to path and returns the digest Ollama
// stores it under.
func WriteRandomGGUFFile(path string, shape RandomShape, seed uint64) (digest string, err error) {
	f, err := os.Create(path)
	if err != nil {
		return "", fmt.Errorf("random model file: %w", err)
	}
	sum := sha256.New()
	werr := WriteRandomGGUF(io.MultiWriter(f, sum), shape, seed)
	if cerr := f.Close(); werr == nil && cerr != nil {
		werr = fmt.Errorf("random model file %s: %w", path, cerr)
	}
	if werr != nil {
		os.Remove(path)
		return "", fmt.Errorf("random model file %s: %w", path, werr)
	}
	return "sha256:" + hex.EncodeToString(sum.Sum(nil)), nil
}

// randomVocab is the byte tokens, the ChatML control tokens, then words that start with
// RandomWordMark up to the vocabulary size.
func randomVocab(n int) (tokens []string, types []int32) {
	for b := 0; b < 256; b++ {
		tokens, types = append(tokens, gpt2Encode([]byte{byte(b)})), append(types, 1)
	}
	tokens, types = append(tokens, tokEndOfText, tokImStart, tokImEnd), append(types, 3, 3, 3)
	for i := 0; len(tokens) < n; i++ {
		word := " " + RandomWordMark + strconv.FormatInt(int64(i), 36)
		tokens, types = append(tokens, gpt2Encode([]byte(word))), append(types, 1)
	}
	return tokens, types
}

func randomMetadata(s RandomShape) []kv {
	tokens, types := randomVocab(s.Vocab)
	return []kv{
		{"general.architecture", "llama"},
		{"general.name", s.Name},
		{"general.alignment", uint32(ggufAlignment)},
		{"general.file_type", uint32(1)}, // mostly F16
		{"llama.context_length", uint32(s.ContextLength)},
		{"llama.embedding_length", uint32(s.Width)},
		{"llama.block_count", uint32(s.Layers)},
		{"llama.feed_forward_length", uint32(s.FFN)},
		{"llama.attention.head_count", uint32(s.Heads)},
		{"llama.attention.head_count_kv", uint32(s.KVHeads)},
		{"llama.attention.layer_norm_rms_epsilon", float32(1e-5)},
		{"llama.rope.dimension_count", uint32(s.Width / s.Heads)},
		{"llama.rope.freq_base", s.RopeBase},
		{"llama.vocab_size", uint32(s.Vocab)},
		{"tokenizer.ggml.model", "gpt2"},
		{"tokenizer.ggml.pre", "default"},
		{"tokenizer.ggml.tokens", tokens},
		{"tokenizer.ggml.token_type", types},
		{"tokenizer.ggml.scores", make([]float32, len(tokens))},
		{"tokenizer.ggml.merges", []string{}},
		{"tokenizer.ggml.bos_token_id", uint32(256)},
		{"tokenizer.ggml.eos_token_id", uint32(258)}, // <|im_end|>
		{"tokenizer.ggml.padding_token_id", uint32(256)},
		{"tokenizer.ggml.add_bos_token", false},
	}
}

// randomTensors lays out a llama network with tied embeddings (no output.weight: the loaders
// then use token_embd). Norms are F32 ones, as converters write them; matrices are random F16,
// each from its own stream of seed so no tensor's values depend on another's.
func randomTensors(s RandomShape, seed uint64) []tensor {
	w, ff, vocab := uint64(s.Width), uint64(s.FFN), uint64(s.Vocab)
	head := uint64(s.Width / s.Heads)
	q, kvDim := head*uint64(s.Heads), head*uint64(s.KVHeads)
	var out []tensor
	random := func(name string, dims ...uint64) {
		out = append(out, tensor{Name: name, Dims: dims, Type: tensorF16, Fill: randomFill(seed, uint64(len(out)), dims)})
	}
	norm := func(name string) { out = append(out, f32(name, []uint64{w}, ones(s.Width))) }
	random("token_embd.weight", w, vocab)
	norm("output_norm.weight")
	for l := 0; l < s.Layers; l++ {
		p := fmt.Sprintf("blk.%d.", l)
		norm(p + "attn_norm.weight")
		random(p+"attn_q.weight", w, q)
		random(p+"attn_k.weight", w, kvDim)
		random(p+"attn_v.weight", w, kvDim)
		random(p+"attn_output.weight", q, w)
		norm(p + "ffn_norm.weight")
		random(p+"ffn_gate.weight", w, ff)
		random(p+"ffn_up.weight", w, ff)
		random(p+"ffn_down.weight", ff, w)
	}
	return out
}

// randomFill yields normally distributed values from the stream (seed, index).
func randomFill(seed, index uint64, dims []uint64) func(yield func(float32)) {
	n := uint64(1)
	for _, d := range dims {
		n *= d
	}
	return func(yield func(float32)) {
		r := rand.New(rand.NewPCG(seed, index))
		for i := uint64(0); i < n; i++ {
			yield(float32(r.NormFloat64() * randomScale))
		}
	}
}
