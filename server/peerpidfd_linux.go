//go:build linux && !(mips || mipsle || mips64 || mips64le)

package server

// soPeerPidfd is SO_PEERPIDFD (Linux 6.5), asm-generic's number, which golang.org/x/sys does
// not name yet.
const soPeerPidfd = 77
