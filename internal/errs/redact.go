package errs

import (
	"regexp"
	"strings"
)

// Redacted stands in for a credential removed from a message.
const Redacted = "[REDACTED]"

// urlInText finds URLs in free text: a scheme, "://", and everything up to
// white space or a quote (messages quote URLs with %q).
var urlInText = regexp.MustCompile("[A-Za-z][A-Za-z0-9+.-]*://[^\\s\"'`<>]+")

// RedactURL returns s, a URL or a message holding URLs, with each URL's
// user part and the values of secret-looking query parameters (SAS
// signatures, X-Amz-Signature, tokens) replaced by Redacted. An Azure
// container named as abfss://container@account... is kept: it is no
// credential. Every message of an Error passes through it.
func RedactURL(s string) string {
	if !strings.Contains(s, "://") {
		return s
	}
	var removed []string
	s = urlInText.ReplaceAllStringFunc(s, func(u string) string {
		u, user := redactOne(u)
		removed = append(removed, user)
		return u
	})
	// A parser's message may quote a piece of the user part on its own
	// (`invalid port ":secret" after host`).
	for _, user := range removed {
		for _, piece := range strings.FieldsFunc(user, func(r rune) bool { return r == ':' || r == '/' }) {
			if len(piece) >= 4 {
				s = strings.ReplaceAll(s, piece, Redacted)
			}
		}
	}
	return s
}

// redactOne redacts one URL, returning it and the user part it removed.
func redactOne(u string) (string, string) {
	i := strings.Index(u, "://")
	scheme, rest := strings.ToLower(u[:i]), u[i+3:]
	// The authority ends at the first '/', '?' or '#'. A secret holding
	// '/' (as AWS secret keys may) ends it early, leaving an invalid port:
	// then the user part runs to the first '@'.
	end := strings.IndexAny(rest, "/?#")
	if end < 0 {
		end = len(rest)
	}
	at := strings.LastIndex(rest[:end], "@")
	if at < 0 && brokenPort(rest[:end]) {
		if j := strings.Index(rest, "@"); j >= 0 {
			at = j
		}
	}
	user := ""
	if at >= 0 && !IsAzureContainer(scheme, rest[:at]) {
		user, rest = rest[:at], Redacted+rest[at:]
	}
	if q := strings.IndexByte(rest, '?'); q >= 0 {
		rest = rest[:q+1] + redactQuery(rest[q+1:])
	}
	return u[:i+3] + rest, user
}

// brokenPort reports whether a host[:port] has a port that is no number.
func brokenPort(hostport string) bool {
	if strings.HasPrefix(hostport, "[") { // IPv6 literal
		if k := strings.Index(hostport, "]"); k >= 0 {
			hostport = hostport[k+1:]
		}
	}
	_, port, ok := strings.Cut(hostport, ":")
	return ok && strings.Trim(port, "0123456789") != ""
}

var (
	azureSchemes = map[string]bool{"az": true, "azure": true, "adl": true, "abfs": true, "abfss": true}
	// containerName is an Azure container name: up to 63 lower-case
	// letters, digits and single hyphens, or $root, $web, $logs. A key or
	// token pasted as the user part does not fit it.
	containerName = regexp.MustCompile(`^\$?[a-z0-9](?:-?[a-z0-9])*$`)
	// secretParam matches query parameter names whose values are
	// credentials: sig (SAS), X-Amz-Signature, X-Goog-Credential, token,
	// access_token, client_secret, password, api_key, ...
	secretParam = regexp.MustCompile(`(?i)sig|token|secret|passw|credential|key|auth`)
)

// IsAzureContainer reports whether user, the user part of a URL of the
// scheme, is an Azure container (abfss://container@account...): the one
// user part a table URL may carry.
func IsAzureContainer(scheme, user string) bool {
	return azureSchemes[strings.ToLower(scheme)] && len(user) <= 63 && containerName.MatchString(user)
}

// redactQuery replaces the values of secret parameters in a raw query,
// keeping its order and encoding; a fragment after it is kept.
func redactQuery(q string) string {
	frag := ""
	if h := strings.IndexByte(q, '#'); h >= 0 {
		q, frag = q[:h], q[h:]
	}
	parts := strings.Split(q, "&")
	for n, p := range parts {
		name, value, _ := strings.Cut(p, "=")
		if value != "" && secretParam.MatchString(name) {
			parts[n] = name + "=" + Redacted
		}
	}
	return strings.Join(parts, "&") + frag
}
