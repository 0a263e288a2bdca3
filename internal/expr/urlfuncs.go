package expr

import (
	"regexp"
	"strconv"
	"strings"

	"github.com/deltalite-go/deltalite/internal/errs"
)

// urlNames are the names of this file.
var urlNames = map[string]bool{"parse_url": true}

// bindParseURL binds parse_url: part and key must be constants.
func (b *binder) bindParseURL(e *Call) (node, error) {
	u, err := b.stringOperand(e.Args[0])
	if err != nil {
		return nil, err
	}
	part, err := b.constString(e, e.Args[1], "part")
	if err != nil {
		return nil, err
	}
	rc := &regexCall{}
	if part == nil {
		return &lit{v: nil, t: tString, src: e}, nil
	}
	if len(e.Args) == 3 {
		key, err := b.constString(e, e.Args[2], "key")
		if err != nil {
			return nil, err
		}
		if key == nil || *part != "QUERY" {
			return &lit{v: nil, t: tString, src: e}, nil
		}
		pat := "(&|^)" + *key + "=([^&]*)"
		if rc.re, err = compileJavaRegex(pat); err != nil {
			je := err.(*javaRegexError)
			return nil, errAt(e.Args[2], "%s: the key %q makes the pattern %q, refused at offset %d: %s", e.Name, *key, pat, je.at, je.msg)
		}
	}
	rc.urlPart = *part
	return b.fold(&callN{fn: e.Name, args: []node{u}, t: tString, rx: rc}, e)
}

// parseURLFunction evaluates parse_url.
func (ev *evaluator) parseURLFunction(n *callN, args []value) (value, error) {
	part := n.rx.urlPart
	return ev.mapRows(args, tString, true, func(v []any) (any, error) {
		p, err := parseURL(v[0].(string))
		if err != nil {
			return nil, err
		}
		got := p.part(part)
		if n.rx.re == nil || got == nil {
			return got, nil
		}
		q := got.(string)
		find, _, searchErr, err := javaSearch(n.fn, n.rx.re, q, 0, 0)
		if err != nil {
			return nil, err
		}
		m := find(0)
		if *searchErr != nil {
			return nil, *searchErr
		}
		if m == nil || m[4] < 0 {
			return nil, nil
		}
		return q[m[4]:m[5]], nil
	})
}

// parse_url(url, part[, key]) as Spark 4's ParseUrl computes it: the URL
// read as java.net.URI reads it, part one of HOST, PATH, QUERY, REF,
// PROTOCOL, FILE, AUTHORITY, USERINFO (another gives NULL), key the
// value of a query parameter (Spark's "(&|^)key=([^&]*)", the key read as
// a regular expression). This package reads the URLs whose parts it is
// sure java.net.URI reads alike, in ASCII URI characters (escapes %XX):
// scheme://[userinfo@]host[:port] then a path, query and fragment, the
// host a DNS name whose last label starts with a letter, a dotted IPv4
// address or a bracketed IPv6 one; scheme:/path (no authority); an opaque
// scheme:part (only PROTOCOL and REF); and a relative reference
// (path?query#fragment, or //authority/path). Another URL fails the row,
// naming it: one Spark's ANSI mode fails as well (a space, a bad escape,
// a bad scheme), or one java.net.URI reads otherwise (a registry-based
// host, an IPv6 zone, other characters), which is not supported.

var (
	urlScheme = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9+.\-]*$`)
	urlChars  = regexp.MustCompile(`^(?:[A-Za-z0-9\-._~!$&'()*+,;=:@/?]|%[0-9A-Fa-f]{2})*$`)
	userChars = regexp.MustCompile(`^(?:[A-Za-z0-9\-._~!$&'()*+,;=:]|%[0-9A-Fa-f]{2})*$`)
	hostName  = regexp.MustCompile(`^(?:[A-Za-z0-9](?:[A-Za-z0-9\-]*[A-Za-z0-9])?\.)*[A-Za-z](?:[A-Za-z0-9\-]*[A-Za-z0-9])?$`)
	ipv4      = regexp.MustCompile(`^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$`)
	urlPort   = regexp.MustCompile(`^[0-9]{1,9}$`) // more digits may overflow Java's int
	hexGroup  = regexp.MustCompile(`^[0-9A-Fa-f]{1,4}$`)
)

// urlParts are a URL's raw parts, as java.net.URI's getters give them; a
// nil part is absent.
type urlParts struct {
	scheme, authority, userInfo, host, path, query, fragment *string
}

// parseURL reads u, or says why not.
func parseURL(u string) (*urlParts, error) {
	refused := func(format string, args ...any) error {
		return errs.New(errs.InvalidArgument, "", "parse_url(%q): "+format, append([]any{u}, args...)...)
	}
	badChar := func() error {
		return refused("a character java.net.URI refuses (Spark's ANSI mode fails it: INVALID_URL), or one beyond ASCII, which this engine does not read; not supported")
	}
	p := &urlParts{}
	rest := u
	if i := strings.IndexByte(rest, '#'); i >= 0 {
		f := rest[i+1:]
		p.fragment, rest = &f, rest[:i]
	}
	if i := strings.IndexAny(rest, ":/?"); i >= 0 && rest[i] == ':' {
		if !urlScheme.MatchString(rest[:i]) {
			return nil, refused("the scheme %q is not one java.net.URI takes (Spark's ANSI mode fails it: INVALID_URL)", rest[:i])
		}
		sc := rest[:i]
		p.scheme, rest = &sc, rest[i+1:]
		if !strings.HasPrefix(rest, "/") { // opaque: only the scheme and fragment are parts
			if rest == "" || !urlChars.MatchString(rest) || p.fragment != nil && !urlChars.MatchString(*p.fragment) {
				return nil, badChar()
			}
			return p, nil
		}
	}
	if i := strings.IndexByte(rest, '?'); i >= 0 {
		q := rest[i+1:]
		p.query, rest = &q, rest[:i]
	}
	if auth, ok := strings.CutPrefix(rest, "//"); ok {
		end := strings.IndexByte(auth, '/')
		if end < 0 {
			end = len(auth)
		}
		a := auth[:end]
		p.authority, rest = &a, auth[end:]
		if err := p.parseAuthority(refused); err != nil {
			return nil, err
		}
	}
	p.path = &rest
	for _, part := range []*string{p.path, p.query, p.fragment} {
		if part != nil && !urlChars.MatchString(*part) {
			return nil, badChar()
		}
	}
	return p, nil
}

// parseAuthority reads p's authority as server-based: [userinfo@]host[:port].
func (p *urlParts) parseAuthority(refused func(string, ...any) error) error {
	hostPort := *p.authority
	if i := strings.LastIndexByte(hostPort, '@'); i >= 0 {
		ui := hostPort[:i]
		p.userInfo, hostPort = &ui, hostPort[i+1:]
		if !userChars.MatchString(ui) {
			return refused("the user information %q is not one this engine reads as java.net.URI does; not supported", ui)
		}
	}
	host, port := hostPort, ""
	if strings.HasPrefix(hostPort, "[") {
		end := strings.IndexByte(hostPort, ']')
		if end < 0 || !ipv6Literal(hostPort[1:end]) {
			return refused("the IPv6 host %q is not one java.net.URI takes, or has a zone, which this engine does not read; not supported", hostPort)
		}
		host, port = hostPort[:end+1], hostPort[end+1:]
		if port != "" && port[0] != ':' {
			return refused("%q follows the IPv6 host, which java.net.URI refuses (Spark's ANSI mode fails it: INVALID_URL)", port)
		}
	} else if i := strings.IndexByte(hostPort, ':'); i >= 0 {
		host, port = hostPort[:i], hostPort[i:]
	}
	if port != "" && !urlPort.MatchString(port[1:]) {
		return refused("the port %q is not a number; not supported", port[1:])
	}
	ok := strings.HasPrefix(host, "[") || hostName.MatchString(host)
	if g := ipv4.FindStringSubmatch(host); g != nil {
		ok = true
		for _, o := range g[1:] {
			if n, _ := strconv.Atoi(o); n > 255 {
				ok = false
			}
		}
	}
	if !ok {
		return refused("the host %q is neither a DNS name whose last label starts with a letter nor an IP address, which java.net.URI reads otherwise; not supported", host)
	}
	p.host = &host
	return nil
}

// ipv6Literal reports whether s is an IPv6 address as java.net.URI's
// parseIPv6Reference takes it: groups of 1 to 4 hex digits, at most one
// "::" standing for at least one group, an optional dotted IPv4 address
// (leading zeros allowed) as the last two groups; eight groups in all, or
// fewer with "::". A zone (%eth0) is not read here.
func ipv6Literal(s string) bool {
	head, tail, compressed := strings.Cut(s, "::")
	if compressed && strings.Contains(tail, "::") {
		return false
	}
	groups := 0
	for i, side := range []string{head, tail} {
		if side == "" {
			continue
		}
		parts := strings.Split(side, ":")
		for j, g := range parts {
			last := j == len(parts)-1 && (i == 1 || !compressed)
			switch {
			case hexGroup.MatchString(g):
				groups++
			case last && ipv4.MatchString(g):
				for _, o := range ipv4.FindStringSubmatch(g)[1:] {
					if n, _ := strconv.Atoi(o); n > 255 {
						return false
					}
				}
				groups += 2
			default:
				return false
			}
		}
	}
	return groups == 8 && !compressed || compressed && groups <= 7
}

// urlPart is part of u as ParseUrl gives it, nil for an absent part or
// an unknown name.
func (p *urlParts) part(name string) any {
	opt := func(s *string) any {
		if s == nil {
			return nil
		}
		return *s
	}
	switch name {
	case "HOST":
		return opt(p.host)
	case "PATH":
		return opt(p.path)
	case "QUERY":
		return opt(p.query)
	case "REF":
		return opt(p.fragment)
	case "PROTOCOL":
		return opt(p.scheme)
	case "FILE":
		if p.path != nil && p.query != nil {
			return *p.path + "?" + *p.query
		}
		return opt(p.path)
	case "AUTHORITY":
		return opt(p.authority)
	case "USERINFO":
		return opt(p.userInfo)
	}
	return nil
}
