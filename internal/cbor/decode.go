package cbor

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"unicode/utf8"
)

// Limits bound what one decoded item may hold; zero fields take the defaults.
type Limits struct {
	MaxBytes int // longest text or byte string (and the whole payload); default 16 MiB
	MaxItems int // most entries of one array or map; default 1,000,000
	MaxDepth int // deepest nesting; default 64
}

// Defaults, as upstream's codec has them.
const (
	DefaultMaxBytes = 16 << 20
	DefaultMaxItems = 1_000_000
	DefaultMaxDepth = 64
	// MaxSafeInt is the largest integer a JavaScript number holds exactly, 2^53−1.
	MaxSafeInt = 1<<53 - 1
)

func (l Limits) orDefaults() Limits {
	if l.MaxBytes <= 0 {
		l.MaxBytes = DefaultMaxBytes
	}
	if l.MaxItems <= 0 {
		l.MaxItems = DefaultMaxItems
	}
	if l.MaxDepth <= 0 {
		l.MaxDepth = DefaultMaxDepth
	}
	return l
}

// ErrInvalid is wrapped by every decoding error.
var ErrInvalid = errors.New("invalid CBOR")

func invalid(format string, args ...any) error {
	return fmt.Errorf("%w: %s", ErrInvalid, fmt.Sprintf(format, args...))
}

// Decode reads exactly one item from b. Values come back as nil, bool, int64, float64,
// string, []byte, []any and map[string]any.
func Decode(b []byte, lim Limits) (any, error) {
	lim = lim.orDefaults()
	if len(b) > lim.MaxBytes {
		return nil, invalid("payload of %d bytes exceeds the limit of %d", len(b), lim.MaxBytes)
	}
	d := decoder{b: b, lim: lim}
	v, err := d.item(0)
	if err != nil {
		return nil, err
	}
	if d.off != len(b) {
		return nil, invalid("trailing data after the item")
	}
	return v, nil
}

type decoder struct {
	b   []byte
	off int
	lim Limits
}

func (d *decoder) byte() (byte, error) {
	if d.off >= len(d.b) {
		return 0, invalid("truncated payload")
	}
	c := d.b[d.off]
	d.off++
	return c, nil
}

func (d *decoder) bytes(n uint64) ([]byte, error) {
	if n > uint64(len(d.b)-d.off) {
		return nil, invalid("truncated payload")
	}
	out := d.b[d.off : d.off+int(n)]
	d.off += int(n)
	return out, nil
}

func (d *decoder) item(depth int) (any, error) {
	if depth > d.lim.MaxDepth {
		return nil, invalid("nesting deeper than %d", d.lim.MaxDepth)
	}
	initial, err := d.byte()
	if err != nil {
		return nil, err
	}
	major, info := initial>>5, initial&0x1f
	switch major {
	case 0, 1:
		return d.integer(major, info)
	case 2, 3:
		return d.str(major, info)
	case 4:
		return d.array(info, depth)
	case 5:
		return d.dict(info, depth)
	case 6:
		return nil, invalid("tags are not supported")
	}
	return d.simple(info)
}

func (d *decoder) integer(major, info byte) (any, error) {
	n, err := d.argument(info)
	if err != nil {
		return nil, err
	}
	if n > MaxSafeInt || major == 1 && n >= MaxSafeInt {
		return nil, invalid("integer outside ±(2^53−1)")
	}
	if major == 1 {
		return -1 - int64(n), nil
	}
	return int64(n), nil
}

func (d *decoder) str(major, info byte) (any, error) {
	n, err := d.length(info, uint64(d.lim.MaxBytes), "string")
	if err != nil {
		return nil, err
	}
	raw, err := d.bytes(n)
	if err != nil {
		return nil, err
	}
	if major == 2 {
		return append([]byte(nil), raw...), nil
	}
	if !utf8.Valid(raw) {
		return nil, invalid("text string is not valid UTF-8")
	}
	return string(raw), nil
}

func (d *decoder) array(info byte, depth int) (any, error) {
	n, err := d.length(info, uint64(d.lim.MaxItems), "array")
	if err != nil {
		return nil, err
	}
	if n > uint64(len(d.b)-d.off) { // every item takes at least a byte
		return nil, invalid("truncated payload")
	}
	out := make([]any, 0, n)
	for range n {
		v, err := d.item(depth + 1)
		if err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	return out, nil
}

func (d *decoder) dict(info byte, depth int) (any, error) {
	n, err := d.length(info, uint64(d.lim.MaxItems), "map")
	if err != nil {
		return nil, err
	}
	if n > uint64(len(d.b)-d.off)/2 { // every entry takes at least two bytes
		return nil, invalid("truncated payload")
	}
	out := make(map[string]any, n)
	for range n {
		k, err := d.item(depth + 1)
		if err != nil {
			return nil, err
		}
		key, ok := k.(string)
		if !ok {
			return nil, invalid("map keys must be text strings")
		}
		if _, dup := out[key]; dup {
			return nil, invalid("duplicate map key %q", key)
		}
		if out[key], err = d.item(depth + 1); err != nil {
			return nil, err
		}
	}
	return out, nil
}

func (d *decoder) simple(info byte) (any, error) {
	switch info {
	case 20:
		return false, nil
	case 21:
		return true, nil
	case 22:
		return nil, nil
	case 27:
		raw, err := d.bytes(8)
		if err != nil {
			return nil, err
		}
		f := math.Float64frombits(binary.BigEndian.Uint64(raw))
		if math.IsNaN(f) || math.IsInf(f, 0) {
			return nil, invalid("numbers must be finite")
		}
		if f == math.Trunc(f) && math.Abs(f) > MaxSafeInt {
			return nil, invalid("integer outside ±(2^53−1)")
		}
		return f, nil
	case 31:
		return nil, invalid("the break byte is not supported")
	}
	return nil, invalid("unsupported simple value or float width (additional info %d)", info)
}

// length reads the argument of a string, array or map head and checks it against limit.
func (d *decoder) length(info byte, limit uint64, kind string) (uint64, error) {
	if info == 31 {
		return 0, invalid("indefinite-length %ss are not supported", kind)
	}
	n, err := d.argument(info)
	if err != nil {
		return 0, err
	}
	if n > limit {
		return 0, invalid("%s length %d exceeds the limit of %d", kind, n, limit)
	}
	return n, nil
}

func (d *decoder) argument(info byte) (uint64, error) {
	if info < 24 {
		return uint64(info), nil
	}
	var size uint64
	switch info {
	case 24:
		size = 1
	case 25:
		size = 2
	case 26:
		size = 4
	case 27:
		size = 8
	case 31:
		return 0, invalid("indefinite-length items are not supported")
	default:
		return 0, invalid("malformed additional information %d", info)
	}
	raw, err := d.bytes(size)
	if err != nil {
		return 0, err
	}
	var n uint64
	for _, c := range raw {
		n = n<<8 | uint64(c)
	}
	if size == 8 && n > MaxSafeInt {
		return 0, invalid("integer or length outside the safe range")
	}
	return n, nil
}
