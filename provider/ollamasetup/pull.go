package ollamasetup

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"strconv"
	"strings"

	"github.com/ollama/ollama/api"
)

// Suggestion is a model to pull, with why it fits.
type Suggestion struct {
	Model string
	Size  string // its download, roughly
	Why   string
}

type sized struct {
	minMemory uint64
	s         Suggestion
}

// suggestions are models of Ollama's library that call tools, the largest first, each with
// the memory it wants to run beside an editor and a browser (weights and a 32k context).
func suggestions() []sized {
	return []sized{
		{48 << 30, Suggestion{"qwen3:32b", "20 GB", "48 GB of memory or more"}},
		{24 << 30, Suggestion{"qwen3:14b", "9.3 GB", "24 GB of memory or more"}},
		{12 << 30, Suggestion{"qwen3:8b", "5.2 GB", "12 GB of memory or more"}},
		{6 << 30, Suggestion{"qwen3:4b", "2.5 GB", "6 GB of memory or more"}},
		{0, Suggestion{"qwen3:1.7b", "1.4 GB", "less than 6 GB of memory"}},
	}
}

// Suggest names the model that fits a machine with memory bytes of RAM (0: unknown, the
// smallest).
func Suggest(memory uint64) Suggestion {
	all := suggestions()
	for _, c := range all {
		if memory >= c.minMemory {
			return c.s
		}
	}
	return all[len(all)-1].s
}

// MemTotal is the machine's RAM from /proc/meminfo (Linux); an error elsewhere.
func MemTotal() (uint64, error) {
	f, err := os.Open("/proc/meminfo")
	if err != nil {
		return 0, fmt.Errorf("read the machine's memory: %w", err)
	}
	defer f.Close()
	return parseMemInfo(f)
}

// parseMemInfo reads the MemTotal line of /proc/meminfo ("MemTotal:  16318480 kB").
func parseMemInfo(r io.Reader) (uint64, error) {
	sc := bufio.NewScanner(io.LimitReader(r, 1<<16))
	for sc.Scan() {
		name, rest, ok := strings.Cut(sc.Text(), ":")
		if !ok || name != "MemTotal" {
			continue
		}
		f := strings.Fields(rest)
		if len(f) != 2 || f[1] != "kB" {
			return 0, fmt.Errorf("meminfo: MemTotal line %q is not \"N kB\"", sc.Text())
		}
		kb, err := strconv.ParseUint(f[0], 10, 64)
		if err != nil || kb > 1<<44 {
			return 0, fmt.Errorf("meminfo: MemTotal %q is not a size", f[0])
		}
		return kb << 10, nil
	}
	return 0, fmt.Errorf("meminfo: no MemTotal line")
}

// Progress is one step of a pull as the server reports it.
type Progress struct {
	Status           string // "pulling manifest", "pulling <digest>", "verifying sha256 digest", "success"
	Digest           string
	Total, Completed int64 // bytes of the layer being pulled, when known
}

// Pull asks the server at host to pull model, calling progress for every step it reports
// (hc nil: no timeout, a pull takes minutes). A failure the server reports mid-stream is the
// error, naming the model.
func Pull(ctx context.Context, host, model string, hc *http.Client, progress func(Progress)) error {
	if hc == nil {
		hc = &http.Client{}
	}
	client, err := newClient(host, hc)
	if err != nil {
		return err
	}
	stream := true
	err = client.Pull(ctx, &api.PullRequest{Model: model, Stream: &stream}, func(p api.ProgressResponse) error {
		if progress != nil {
			progress(Progress{Status: p.Status, Digest: p.Digest, Total: p.Total, Completed: p.Completed})
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("pull %s from %s: %w", model, host, err)
	}
	return nil
}

// Bar draws p in width cells: the step, a bar and the bytes for a layer with a size, the
// step alone otherwise.
func Bar(p Progress, width int) string {
	if p.Total <= 0 {
		return clip(p.Status, width)
	}
	done := min(max(p.Completed, 0), p.Total)
	label := p.Status
	if p.Digest != "" {
		label = "pulling " + strings.TrimPrefix(p.Digest, "sha256:")[:min(12, len(strings.TrimPrefix(p.Digest, "sha256:")))]
	}
	figures := fmt.Sprintf(" %3d%% %s/%s", done*100/p.Total, bytesText(done), bytesText(p.Total))
	room := width - len([]rune(label)) - len(figures) - 3
	if room < 5 {
		return clip(label+figures, width)
	}
	fill := int(int64(room) * done / p.Total)
	return label + " [" + strings.Repeat("█", fill) + strings.Repeat("░", room-fill) + "]" + figures
}

func clip(s string, width int) string {
	if r := []rune(s); len(r) > width {
		return string(r[:max(width, 0)])
	}
	return s
}

func bytesText(n int64) string {
	switch {
	case n >= 1<<30:
		return fmt.Sprintf("%.1f GB", float64(n)/(1<<30))
	case n >= 1<<20:
		return fmt.Sprintf("%.0f MB", float64(n)/(1<<20))
	}
	return fmt.Sprintf("%d KB", n>>10)
}
