package ollamatest

import "sort"

// dims gives every token with a successor other than <|im_end|> its own embedding dimension;
// all other tokens share dimension 0, which leads to <|im_end|>. It returns the dimension of
// each token and the width, a multiple of headDim.
func (v *vocab) dims() ([]int, int) {
	dim := make([]int, len(v.tokens))
	linked := make([]int, 0, len(v.next))
	for tok, succ := range v.next {
		if succ != v.imEnd {
			linked = append(linked, tok)
		}
	}
	sort.Ints(linked) // map order must not leak into the file
	for i, tok := range linked {
		dim[tok] = i + 1
	}
	width := (len(linked) + 1 + headDim - 1) / headDim * headDim
	return dim, width
}

// tensors builds the weights. The attention and feed-forward weights are zero, so the hidden
// state after the block is the current token's embedding: a one-hot vector. After RMS norm
// that entry is sqrt(width) >= 8, times successorWeight gives the successor a logit of at
// least 32 against 0 for every other token, which no sampler setting overturns.
func (v *vocab) tensors() []tensor {
	dim, width := v.dims()
	n := len(v.tokens)
	embd := make([]float32, width*n)
	out := make([]float32, width*n)
	for tok := range v.tokens {
		embd[tok*width+dim[tok]] = 1
	}
	out[v.imEnd*width+0] = successorWeight
	for tok, succ := range v.next {
		if succ != v.imEnd {
			out[succ*width+dim[tok]] = successorWeight
		}
	}
	w, vocabSize, ff := uint64(width), uint64(n), uint64(ffnLength)
	return []tensor{
		f32("token_embd.weight", []uint64{w, vocabSize}, embd),
		f32("output_norm.weight", []uint64{w}, ones(width)),
		f32("output.weight", []uint64{w, vocabSize}, out),
		f32("blk.0.attn_norm.weight", []uint64{w}, ones(width)),
		f32("blk.0.attn_q.weight", []uint64{w, w}, zeros(width*width)),
		f32("blk.0.attn_k.weight", []uint64{w, w}, zeros(width*width)),
		f32("blk.0.attn_v.weight", []uint64{w, w}, zeros(width*width)),
		f32("blk.0.attn_output.weight", []uint64{w, w}, zeros(width*width)),
		f32("blk.0.ffn_norm.weight", []uint64{w}, ones(width)),
		f32("blk.0.ffn_gate.weight", []uint64{w, ff}, zeros(width*ffnLength)),
		f32("blk.0.ffn_up.weight", []uint64{w, ff}, zeros(width*ffnLength)),
		f32("blk.0.ffn_down.weight", []uint64{ff, w}, zeros(width*ffnLength)),
	}
}

// metadata is what the llama loaders of llama.cpp and of Ollama's own engine read.
func (v *vocab) metadata(ctx int) []kv {
	_, width := v.dims()
	heads := uint32(width / headDim)
	scores := make([]float32, len(v.tokens))
	return []kv{
		{"general.architecture", "llama"},
		{"general.name", "pi-scripted-test-model"},
		{"general.alignment", uint32(ggufAlignment)},
		{"general.file_type", uint32(0)}, // all F32
		{"llama.context_length", uint32(ctx)},
		{"llama.embedding_length", uint32(width)},
		{"llama.block_count", uint32(1)},
		{"llama.feed_forward_length", uint32(ffnLength)},
		{"llama.attention.head_count", heads},
		{"llama.attention.head_count_kv", heads},
		{"llama.attention.layer_norm_rms_epsilon", float32(1e-5)},
		{"llama.rope.dimension_count", uint32(headDim)},
		{"llama.rope.freq_base", float32(10000)},
		{"llama.vocab_size", uint32(len(v.tokens))},
		{"tokenizer.ggml.model", "gpt2"},
		{"tokenizer.ggml.pre", "default"},
		{"tokenizer.ggml.tokens", v.tokens},
		{"tokenizer.ggml.token_type", v.types},
		{"tokenizer.ggml.scores", scores},
		{"tokenizer.ggml.merges", []string{}},
		{"tokenizer.ggml.bos_token_id", uint32(256)}, // <|endoftext|>, never added
		{"tokenizer.ggml.eos_token_id", uint32(v.imEnd)},
		{"tokenizer.ggml.padding_token_id", uint32(256)},
		{"tokenizer.ggml.add_bos_token", false},
	}
}

func f32(name string, dims []uint64, data []float32) tensor {
	return tensor{Name: name, Dims: dims, Type: tensorF32, Data: data}
}

func ones(n int) []float32 {
	s := make([]float32, n)
	for i := range s {
		s[i] = 1
	}
	return s
}

func zeros(n int) []float32 { return make([]float32, n) }
