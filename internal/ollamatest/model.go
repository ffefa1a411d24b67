package ollamatest

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
)

// Control tokens of the ChatML-style template.
const (
	tokEndOfText = "<|endoftext|>"
	tokImStart   = "<|im_start|>"
	tokImEnd     = "<|im_end|>"
)

// Shape of the network. Head size 64 is what every real llama model uses, so no backend meets
// an unusual size; the width grows with the number of tokens that need their own dimension.
const (
	headDim         = 64
	ffnLength       = 64
	defaultCtx      = 32768
	successorWeight = 4 // output weight linking a token's dimension to its successor
)

// Model is a generated model: the GGUF file and what /api/create needs besides it.
type Model struct {
	GGUF       []byte
	Template   string
	Parameters map[string]any
}

// Digest is the blob name Ollama stores the GGUF file under.
func (m *Model) Digest() string {
	sum := sha256.Sum256(m.GGUF)
	return "sha256:" + hex.EncodeToString(sum[:])
}

// Build generates the model for spec. The same spec always yields the same bytes.
func Build(spec ModelSpec) (*Model, error) {
	v, err := newVocab(spec)
	if err != nil {
		return nil, err
	}
	ctx := spec.ContextLength
	if ctx <= 0 {
		ctx = defaultCtx
	}
	var buf bytes.Buffer
	if err := writeGGUF(&buf, v.metadata(ctx), v.tensors()); err != nil {
		return nil, err
	}
	return &Model{
		GGUF:     buf.Bytes(),
		Template: chatTemplate(spec, v.markers),
		Parameters: map[string]any{
			"stop": []string{tokImEnd},
			// One thread: the model is tiny, and ggml's threads spin at every barrier, so on
			// a shared, oversubscribed CPU two threads made replies 100x slower (docs/figures-ollama.md).
			"num_thread": 1,
		},
	}, nil
}

// vocab is the token list and the bigram table over it.
type vocab struct {
	tokens  []string // GGUF token texts (GPT-2 byte-encoded for normal tokens)
	types   []int32  // 1 normal, 3 control
	next    map[int]int
	markers []string // one per rule, then the fallback's
	imEnd   int
}

// newVocab lays out the vocabulary: the 256 byte tokens, the ChatML control tokens, one marker
// per rule plus one for the fallback, then every reply piece once.
func newVocab(spec ModelSpec) (*vocab, error) {
	v := &vocab{next: map[int]int{}}
	for b := 0; b < 256; b++ {
		v.add(gpt2Encode([]byte{byte(b)}), 1)
	}
	v.add(tokEndOfText, 3)
	v.add(tokImStart, 3)
	v.imEnd = v.add(tokImEnd, 3)
	replies := make([][]string, 0, len(spec.Rules)+1)
	for i, r := range spec.Rules {
		v.markers = append(v.markers, fmt.Sprintf("<|rule_%d|>", i))
		replies = append(replies, splitPieces(r.Reply))
	}
	v.markers = append(v.markers, "<|rule_fallback|>")
	fallback := spec.Fallback
	if fallback == "" {
		fallback = NoMatchReply
	}
	replies = append(replies, splitPieces(fallback))
	control := append([]string{tokEndOfText, tokImStart, tokImEnd}, v.markers...)
	for i, r := range replies {
		if err := checkReply(joinPieces(r), control); err != nil {
			return nil, fmt.Errorf("rule %d: %w", i, err)
		}
	}
	replies, err := resolvePieces(replies)
	if err != nil {
		return nil, err
	}
	v.chain(replies)
	return v, nil
}

// chain adds the markers and pieces and links each to its successor; the last piece of a reply
// leads to <|im_end|>, which ends the generation.
func (v *vocab) chain(replies [][]string) {
	ids := map[string]int{}
	for i, r := range replies {
		prev := v.add(v.markers[i], 3)
		for _, p := range r {
			id, ok := ids[p]
			if !ok {
				id = v.add(gpt2Encode([]byte(p)), 1)
				ids[p] = id
			}
			v.next[prev] = id
			prev = id
		}
		v.next[prev] = v.imEnd
	}
}

func (v *vocab) add(text string, typ int32) int {
	v.tokens = append(v.tokens, text)
	v.types = append(v.types, typ)
	return len(v.tokens) - 1
}

func joinPieces(p []string) string {
	var b bytes.Buffer
	for _, s := range p {
		b.WriteString(s)
	}
	return b.String()
}

// gpt2Encode maps bytes to the printable runes GPT-2 vocabularies store: printable Latin-1
// bytes stand for themselves, the others are moved to U+0100 and up in byte order.
func gpt2Encode(b []byte) string {
	var out []rune
	for _, c := range b {
		out = append(out, gpt2Rune(c))
	}
	return string(out)
}

func gpt2Rune(c byte) rune {
	switch {
	case c <= 0x20:
		return 0x100 + rune(c)
	case c >= 0x7f && c <= 0xa0:
		return 0xa2 + rune(c)
	case c == 0xad:
		return 0x143
	}
	return rune(c)
}
