package theme

import (
	"bytes"
	"testing"
)

func TestParseOSC11(t *testing.T) {
	tests := []struct {
		body string
		want RGB
		ok   bool
	}{
		{"rgb:0000/0000/0000", RGB{0, 0, 0}, true},
		{"rgb:ffff/ffff/ffff", RGB{65535, 65535, 65535}, true},
		{"rgb:ff/80/00", RGB{65535, 0x80 * 65535 / 255, 0}, true},
		{"rgb:f/0/0", RGB{65535, 0, 0}, true},
		{"rgba:1e1e/1e1e/2e2e/ffff", RGB{0x1e1e, 0x1e1e, 0x2e2e}, true},
		{"rgb:1e1e/1e1e", RGB{}, false},
		{"rgb:1e1e/1e1e/2e2e/ffff", RGB{}, false},
		{"rgb:12345/0/0", RGB{}, false},
		{"rgb://0", RGB{}, false},
		{"rgb:x/0/0", RGB{}, false},
		{"#ffffff", RGB{}, false},
		{"?", RGB{}, false},
	}
	for _, tt := range tests {
		got, ok := ParseOSC11(tt.body)
		if got != tt.want || ok != tt.ok {
			t.Errorf("ParseOSC11(%q) = %v, %v; want %v, %v", tt.body, got, ok, tt.want, tt.ok)
		}
	}
	if !(RGB{0x1e1e, 0x1e1e, 0x2e2e}).Dark() || (RGB{0xffff, 0xffff, 0xeeee}).Dark() {
		t.Error("a dark grey must be dark and an off-white light")
	}
}

func TestAnswers(t *testing.T) {
	tests := []struct {
		name   string
		chunks []string
		keys   string
		bg     RGB
		ok, da bool
	}{
		{"st", []string{"\x1b]11;rgb:ffff/ffff/ffff\x1b\\\x1b[?62;22c"}, "\x1b]11;rgb:ffff/ffff/ffff\x1b\\", RGB{65535, 65535, 65535}, true, true},
		{"bel", []string{"\x1b]11;rgb:0000/0000/0000\a"}, "\x1b]11;rgb:0000/0000/0000\a", RGB{}, true, false},
		{"split", []string{"ab\x1b]1", "1;rgb:ffff/ff", "ff/ffff\x1b", "\\cd"}, "ab\x1b]11;rgb:ffff/ffff/ffff\x1b\\cd", RGB{65535, 65535, 65535}, true, false},
		{"keys around", []string{"hello\x1b[A\x1b]11;rgb:0/0/0\a\x1bx\x1b[?1;2cz"}, "hello\x1b[A\x1b]11;rgb:0/0/0\a\x1bxz", RGB{}, true, true},
		{"da split", []string{"q\x1b[?6", "2;1", "cw"}, "qw", RGB{}, false, true},
		{"not da", []string{"\x1b[?6", "2x"}, "\x1b[?62x", RGB{}, false, false},
		{"a lone escape", []string{"\x1b", "x"}, "\x1bx", RGB{}, false, false},
		{"not an answer", []string{"\x1b]11;rgb:0/0/0\x1bx"}, "\x1b]11;rgb:0/0/0\x1bx", RGB{}, false, false},
		{"another osc", []string{"\x1b]10;rgb:0/0/0\a"}, "\x1b]10;rgb:0/0/0\a", RGB{}, false, false},
	}
	for _, tt := range tests {
		var a Answers
		var bg RGB
		var ok, da bool
		var keys []byte
		for _, c := range tt.chunks {
			k, b, o, d := a.Scan([]byte(c))
			keys = append(keys, k...)
			if o {
				bg, ok = b, true
			}
			da = da || d
		}
		if string(keys) != tt.keys || bg != tt.bg || ok != tt.ok || da != tt.da {
			t.Errorf("%s: %q %v %v %v, want %q %v %v %v", tt.name, keys, bg, ok, da, tt.keys, tt.bg, tt.ok, tt.da)
		}
	}
}

func TestFromColorFGBG(t *testing.T) {
	tests := []struct {
		v        string
		dark, ok bool
	}{
		{"15;0", true, true}, {"0;15", false, true}, {"0;7", false, true}, {"7;8", true, true},
		{"15;default;0", true, true}, {"", false, false}, {"15;default", false, false}, {"0;99", false, false},
	}
	for _, tt := range tests {
		if dark, ok := FromColorFGBG(tt.v); dark != tt.dark || ok != tt.ok {
			t.Errorf("%q: %v %v, want %v %v", tt.v, dark, ok, tt.dark, tt.ok)
		}
	}
}

func FuzzParseOSC11(f *testing.F) {
	for _, s := range []string{"rgb:ffff/0000/8080", "rgba:1/2/3/4", "rgb:f/f", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if _, ok := ParseOSC11(s); ok && len(s) > len("rgba:ffff/ffff/ffff/ffff") {
			t.Fatalf("accepted %q", s)
		}
	})
}

// FuzzAnswers checks that input cut anywhere gives what it gives in one piece (but for a
// DA1 answer cut after its first or second byte, which Answers does not hold back: the ESC
// could be the Escape key), and that Scan only ever takes DA1 answers out.
func FuzzAnswers(f *testing.F) {
	f.Add([]byte("k\x1b]11;rgb:ffff/ffff/ffff\x1b\\\x1b[?62c"), 7)
	f.Add([]byte("\x1b\x1b]11;rgb:0/0/0\a\x1b[?1;2c"), 1)
	f.Fuzz(func(t *testing.T, in []byte, cut int) {
		if len(in) > 60 {
			return
		}
		var whole Answers
		keys, bg, ok, da := whole.Scan(in)
		keys = append(keys, whole.held...) // the end of input held back as the start of an answer
		if !da && !bytes.Equal(keys, in) || len(keys) > len(in) {
			t.Fatalf("%q: keys %q", in, keys)
		}
		cut = max(0, min(cut, len(in)))
		if bytes.HasSuffix(in[:cut], []byte("\x1b")) || bytes.HasSuffix(in[:cut], []byte("\x1b[")) {
			return
		}
		var parts Answers
		k1, bg1, ok1, da1 := parts.Scan(in[:cut])
		k2, bg2, ok2, da2 := parts.Scan(in[cut:])
		if ok2 {
			bg1 = bg2
		}
		got := append(append(k1, k2...), parts.held...)
		if !bytes.Equal(got, keys) || (ok1 || ok2) != ok || (da1 || da2) != da || ok && bg1 != bg {
			t.Fatalf("%q cut at %d: %q %v %v %v, whole %q %v %v %v", in, cut, got, bg1, ok1 || ok2, da1 || da2, keys, bg, ok, da)
		}
	})
}
