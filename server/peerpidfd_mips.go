//go:build linux && (mips || mipsle || mips64 || mips64le)

package server

// soPeerPidfd is 0 where pi does not know SO_PEERPIDFD's number: the pid alone is read.
const soPeerPidfd = 0
