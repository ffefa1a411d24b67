package server

import (
	"context"
	"crypto/sha256"
	"crypto/subtle"
	"fmt"
	"strings"

	"pi/internal/safefile"
)

// CodeAuth is the pre-release version-2 error code of a refused token.
const CodeAuth = "auth"

// tokenOK checks a hello against the server's token, before its version. The SHA-256 of what
// the client sent is compared in constant time with the SHA-256 of the token: fixed lengths,
// so timing tells nothing. On refusal it sends the hello_error itself.
func (c *conn) tokenOK(m clientMessage) bool {
	want := c.srv.token
	switch {
	case want == nil:
		c.fail(CodeVersion, fmt.Sprintf("Unsupported protocol version %d; expected %d (this server takes no token)", m.version, ProtocolVersion))
		return false
	case m.token == "":
		c.fail(CodeInvalidRequest, "This server needs a token: a version-2 hello with one")
		return false
	case subtle.ConstantTimeCompare(tokenDigest(m.token), want) != 1:
		c.fail(CodeAuth, "Authentication failed")
		return false
	}
	return true
}

func tokenDigest(t string) []byte { d := sha256.Sum256([]byte(t)); return d[:] }

// ReadToken reads a token file: its first line, without surrounding space.
func ReadToken(path string) (string, error) {
	b, err := safefile.ReadFile(context.Background(), path, 64<<10)
	if err != nil {
		return "", fmt.Errorf("reading the token file: %w", err)
	}
	line, _, _ := strings.Cut(string(b), "\n")
	if line = strings.TrimSpace(line); line == "" {
		return "", fmt.Errorf("the token file %s is empty", path)
	}
	return line, nil
}
