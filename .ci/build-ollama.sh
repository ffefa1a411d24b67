#!/usr/bin/env bash
# Builds the Ollama server that pi's end-to-end tests run against, from source
# fetched through the Go module proxy (nothing prebuilt is downloaded), and
# caches the binary keyed by version and compiler flags. Prints the binary's
# path on stdout; everything else goes to stderr.
#
# Why from source: no registry reachable here ships an Ollama binary, and the
# module proxy serves github.com/ollama/ollama whose CPU backend (ggml,
# llama.cpp) is compiled in by cgo. docs/testing.md says what the tests do
# with it.
#
# Environment:
#   PI_CACHE_DIR      cache root (default $HOME/.cache/pi-ci)
#   PI_OLLAMA_CFLAGS  override the C/C++ optimisation flags
set -euo pipefail

readonly OLLAMA_VERSION=0.17.4
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
shim="$here/ollama-shim"
cache="${PI_CACHE_DIR:-$HOME/.cache/pi-ci}"

log() { printf 'build-ollama: %s\n' "$*" >&2; }

# g++ compiles the cgo parts. Go module zips leave out vendor/ folders; the two
# header packages supply two of the three missing headers (the third is our
# miniaudio stand-in).
install_packages() {
	local missing=() p
	for p in g++ nlohmann-json3-dev libstb-dev; do
		dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
	done
	[ ${#missing[@]} -eq 0 ] && return 0
	local sudo=()
	[ "$(id -u)" -eq 0 ] || sudo=(sudo)
	log "installing ${missing[*]}"
	"${sudo[@]}" apt-get update -qq >&2
	DEBIAN_FRONTEND=noninteractive "${sudo[@]}" apt-get install -y -qq "${missing[@]}" >&2
}

# -mavx -mfma -mf16c make ggml's CPU kernels about 15x faster than the
# baseline; fall back to portable flags on CPUs that lack any of them.
pick_cflags() {
	if [ -n "${PI_OLLAMA_CFLAGS:-}" ]; then
		echo "$PI_OLLAMA_CFLAGS"
		return
	fi
	local f
	for f in avx fma f16c; do
		if ! grep -qw "$f" /proc/cpuinfo; then
			echo "-O2"
			return
		fi
	done
	echo "-O3 -mavx -mfma -mf16c"
}

main() {
	install_packages
	local cflags ldflags key dir bin
	cflags="$(pick_cflags)"
	ldflags="-s -w -X github.com/ollama/ollama/version.Version=$OLLAMA_VERSION"
	# The key covers everything that changes the binary: flags, the shim
	# header, and the Go toolchain.
	key="$( { echo "$cflags"; echo "$ldflags"; go env GOVERSION GOARCH; cat "$shim/miniaudio/miniaudio.h"; } | sha256sum | cut -c1-12)"
	dir="$cache/ollama-$OLLAMA_VERSION-$key"
	bin="$dir/ollama"
	if [ -x "$bin" ]; then
		log "cached: $bin"
		echo "$bin"
		return
	fi
	mkdir -p "$dir"
	# One build at a time per cache entry; a second caller waits, then finds
	# the binary.
	exec 9>"$dir/.lock"
	flock 9
	if [ -x "$bin" ]; then
		echo "$bin"
		return
	fi
	build "$dir" "$cflags" "$ldflags"
	echo "$bin"
}

build() {
	local dir="$1" cflags="$2" ldflags="$3" src="$1/src" start
	start=$(date +%s)
	rm -rf "$src"
	mkdir -p "$src"
	log "fetching github.com/ollama/ollama@v$OLLAMA_VERSION into a scratch module"
	(
		cd "$src"
		go mod init pi-ollama-build >/dev/null 2>&1
		go get "github.com/ollama/ollama@v$OLLAMA_VERSION" >&2
		log "compiling with CGO flags: $cflags (takes minutes on a cold cache)"
		CGO_ENABLED=1 CGO_CPPFLAGS="-I$shim" CGO_CFLAGS="$cflags" CGO_CXXFLAGS="$cflags" \
			go build -trimpath -ldflags "$ldflags" -o "$dir/ollama.tmp" github.com/ollama/ollama >&2
	)
	mv "$dir/ollama.tmp" "$dir/ollama"
	printf '%s\n' "version=$OLLAMA_VERSION" "cflags=$cflags" "ldflags=$ldflags" \
		"go=$(go env GOVERSION)" "seconds=$(($(date +%s) - start))" >"$dir/build-info"
	log "built $dir/ollama in $(($(date +%s) - start)) s"
}

main "$@"
