// Package gitsafe runs the git commands pi makes on its own account (a subagent's worktree and
// its commit, pi install's clone) so that nothing a repository holds runs as pi. A command pi
// confines may write a repository's .git (hooks, config): pi then runs git unconfined, so git
// must not run the repository's hooks or any program its config names.
//
// Every command gets config overrides (GIT_CONFIG_COUNT), which git ranks above every config
// file and hands on to the git processes it starts: hooks off (core.hooksPath=/dev/null), no
// fsmonitor, pager, editor, signing program, submodule recursion, automatic gc or ext::
// transport, and each filter driver (clean, smudge, process) that the repository's own config
// defines emptied (those of the user's global and system config stay, so git-lfs still
// works). Callers of git diff also pass --no-ext-diff and --no-textconv.
//
// It imports nothing of this module and has no package-level mutable state.
package gitsafe

import (
	"bytes"
	"cmp"
	"context"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
)

// overrides are the settings every command gets, as key and value pairs.
func overrides() [][2]string {
	return [][2]string{
		{"core.hooksPath", "/dev/null"}, // every hook: post-checkout, pre-commit, reference-transaction...
		{"core.fsmonitor", "false"},
		{"core.pager", "cat"},
		{"core.editor", "true"},
		{"sequence.editor", "true"},
		{"commit.gpgSign", "false"},
		{"tag.gpgSign", "false"},
		{"submodule.recurse", "false"},
		{"gc.auto", "0"},
		{"maintenance.auto", "false"},
		{"protocol.ext.allow", "never"},
	}
}

// quiet is what every command's environment adds: no prompts, editors or pagers.
func quiet() []string {
	return []string{"GIT_TERMINAL_PROMPT=0", "GIT_EDITOR=true", "GIT_SEQUENCE_EDITOR=true", "GIT_PAGER=cat",
		"GIT_ASKPASS=", "SSH_ASKPASS="}
}

// Run runs git args in dir ("" for the current folder) with env added to pi's environment,
// and returns its standard output without the surrounding space. The error names the
// command, the folder and what git said on standard error.
func Run(ctx context.Context, dir string, env []string, args ...string) (string, error) {
	cmd := exec.CommandContext(ctx, "git", args...)
	cmd.Dir = dir
	cmd.Env = append(Environ(ctx, dir), env...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		where := cmp.Or(dir, ".")
		return "", fmt.Errorf("git %s in %s: %w: %s", strings.Join(args, " "), where, err, strings.TrimSpace(errb.String()))
	}
	return strings.TrimSpace(out.String()), nil
}

// Environ is pi's environment for a git command in dir: the overrides as GIT_CONFIG_COUNT,
// GIT_CONFIG_KEY_n and GIT_CONFIG_VALUE_n after any the environment already has (git ranks
// them with -c, above every config file, and a key needs no quoting there: a driver may be
// named "a=b"), then those that empty the repository's own filter drivers.
func Environ(ctx context.Context, dir string) []string {
	base := withOverrides(append(os.Environ(), quiet()...), overrides())
	return withOverrides(base, repoFilters(ctx, dir, base))
}

// withOverrides adds pairs to env's GIT_CONFIG_COUNT list.
func withOverrides(env []string, pairs [][2]string) []string {
	n := 0
	for _, kv := range env {
		if v, ok := strings.CutPrefix(kv, "GIT_CONFIG_COUNT="); ok {
			n, _ = strconv.Atoi(v)
		}
	}
	for _, p := range pairs {
		env = append(env, fmt.Sprintf("GIT_CONFIG_KEY_%d=%s", n, p[0]), fmt.Sprintf("GIT_CONFIG_VALUE_%d=%s", n, p[1]))
		n++
	}
	return append(env, "GIT_CONFIG_COUNT="+strconv.Itoa(n))
}

// repoFilters lists the filter drivers the repository at dir defines in its own config (and
// the files that config includes) as overrides that empty them. Outside a repository, or
// where git cannot list them, there are none to empty.
func repoFilters(ctx context.Context, dir string, env []string) [][2]string {
	cmd := exec.CommandContext(ctx, "git", "config", "--show-scope", "-z", "--get-regexp", `^filter\..+\.(clean|smudge|process|required)$`)
	cmd.Dir, cmd.Env = dir, env
	out, _ := cmd.Output() // exit 1: no such setting
	return filterOverrides(string(out))
}

// filterOverrides reads `git config --show-scope -z --get-regexp` output (scope NUL key
// newline value NUL, ...) and empties each driver named in a repository's config (scope
// local or worktree).
func filterOverrides(listing string) [][2]string {
	var res [][2]string
	seen := map[string]bool{}
	fields := strings.Split(listing, "\x00")
	for i := 0; i+1 < len(fields); i += 2 {
		scope, key := fields[i], fields[i+1]
		key, _, _ = strings.Cut(key, "\n")
		name, ok := strings.CutPrefix(key, "filter.")
		dot := strings.LastIndexByte(name, '.')
		if !ok || dot <= 0 || (scope != "local" && scope != "worktree") || seen[name[:dot]] {
			continue
		}
		name = name[:dot]
		seen[name] = true
		f := "filter." + name
		res = append(res, [2]string{f + ".clean", ""}, [2]string{f + ".smudge", ""}, [2]string{f + ".process", ""},
			[2]string{f + ".required", "false"})
	}
	return res
}
