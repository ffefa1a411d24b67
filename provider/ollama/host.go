package ollama

import (
	"net"
	"net/url"
	"strings"
)

// Host returns the server root that OLLAMA_HOST names, completed the way Ollama's own client
// completes it: scheme http unless given, host 127.0.0.1 unless given, port 11434 (443 for
// https) unless given. Unset means http://127.0.0.1:11434.
func Host(getenv func(string) string) string {
	v := ""
	if getenv != nil {
		v = strings.Trim(strings.TrimSpace(getenv("OLLAMA_HOST")), `"'`)
	}
	scheme, hostport, ok := strings.Cut(v, "://")
	if !ok {
		scheme, hostport = "http", v
	}
	defaultPort := "11434"
	if scheme == "https" {
		defaultPort = "443"
	}
	hostport, path, _ := strings.Cut(hostport, "/")
	host, port, err := net.SplitHostPort(hostport)
	if err != nil {
		host, port = hostport, defaultPort
		if ip := strings.Trim(host, "[]"); strings.Contains(ip, ":") {
			host = ip
		}
	}
	if host == "" {
		host = "127.0.0.1"
	}
	if port == "" {
		port = defaultPort
	}
	u := url.URL{Scheme: scheme, Host: net.JoinHostPort(strings.Trim(host, "[]"), port)}
	if path != "" {
		u.Path = "/" + strings.TrimRight(path, "/")
	}
	return u.String()
}
