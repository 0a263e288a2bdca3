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
// sure java.net.URI reads alike: scheme://[userinfo@]host[:port] then a
// path, query and fragment of ASCII URI characters (escapes %XX), the
// host a DNS name whose last label starts with a letter, or a dotted IPv4
// address. Another URL fails the row, naming it: one Spark's ANSI mode
// fails as well (a space, a bad escape), or one java.net.URI reads
// otherwise (no scheme, an opaque or registry-based URI, an IPv6 host,
// other characters), which is not supported.

var (
	urlShape  = regexp.MustCompile(`^([A-Za-z][A-Za-z0-9+.\-]*)://([^/?#]*)([^?#]*)(?:\?([^#]*))?(?:#(.*))?$`)
	urlChars  = regexp.MustCompile(`^(?:[A-Za-z0-9\-._~!$&'()*+,;=:@/?]|%[0-9A-Fa-f]{2})*$`)
	userChars = regexp.MustCompile(`^(?:[A-Za-z0-9\-._~!$&'()*+,;=:]|%[0-9A-Fa-f]{2})*$`)
	hostName  = regexp.MustCompile(`^(?:[A-Za-z0-9](?:[A-Za-z0-9\-]*[A-Za-z0-9])?\.)*[A-Za-z](?:[A-Za-z0-9\-]*[A-Za-z0-9])?$`)
	ipv4      = regexp.MustCompile(`^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$`)
	urlPort   = regexp.MustCompile(`^[0-9]{1,9}$`) // more digits may overflow Java's int
)

// urlParts are a URL's raw parts, as java.net.URI's getters give them; a
// nil query or fragment is absent.
type urlParts struct {
	scheme, authority, userInfo, host, path string
	query, fragment                         *string
}

// parseURL reads u, or says why not.
func parseURL(u string) (*urlParts, error) {
	m := urlShape.FindStringSubmatchIndex(u)
	if m == nil {
		return nil, errs.New(errs.InvalidArgument, "", "parse_url(%q): not a URL of the form scheme://host/path?query#fragment that this engine reads as java.net.URI does; not supported", u)
	}
	p := &urlParts{scheme: u[m[2]:m[3]], authority: u[m[4]:m[5]], path: u[m[6]:m[7]]}
	if m[8] >= 0 {
		q := u[m[8]:m[9]]
		p.query = &q
	}
	if m[10] >= 0 {
		f := u[m[10]:m[11]]
		p.fragment = &f
	}
	for _, part := range []*string{&p.path, p.query, p.fragment} {
		if part != nil && !urlChars.MatchString(*part) {
			return nil, errs.New(errs.InvalidArgument, "", "parse_url(%q): a character java.net.URI refuses (Spark's ANSI mode fails it: INVALID_URL), or one beyond ASCII, which this engine does not read; not supported", u)
		}
	}
	hostPort := p.authority
	if i := strings.LastIndexByte(hostPort, '@'); i >= 0 {
		p.userInfo, hostPort = hostPort[:i], hostPort[i+1:]
		if !userChars.MatchString(p.userInfo) {
			return nil, errs.New(errs.InvalidArgument, "", "parse_url(%q): the user information %q is not one this engine reads as java.net.URI does; not supported", u, p.userInfo)
		}
	}
	if strings.HasPrefix(hostPort, "[") {
		return nil, errs.New(errs.InvalidArgument, "", "parse_url(%q): an IPv6 host %q, which this engine does not read; not supported", u, hostPort)
	}
	if i := strings.IndexByte(hostPort, ':'); i >= 0 {
		if !urlPort.MatchString(hostPort[i+1:]) {
			return nil, errs.New(errs.InvalidArgument, "", "parse_url(%q): the port %q is not a number; not supported", u, hostPort[i+1:])
		}
		hostPort = hostPort[:i]
	}
	ok := hostName.MatchString(hostPort)
	if g := ipv4.FindStringSubmatch(hostPort); g != nil {
		ok = true
		for _, o := range g[1:] {
			if n, _ := strconv.Atoi(o); n > 255 {
				ok = false
			}
		}
	}
	if !ok {
		return nil, errs.New(errs.InvalidArgument, "", "parse_url(%q): the host %q is neither a DNS name whose last label starts with a letter nor an IPv4 address, which java.net.URI reads otherwise; not supported", u, hostPort)
	}
	p.host = hostPort
	return p, nil
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
		return p.host
	case "PATH":
		return p.path
	case "QUERY":
		return opt(p.query)
	case "REF":
		return opt(p.fragment)
	case "PROTOCOL":
		return p.scheme
	case "FILE":
		if p.query != nil {
			return p.path + "?" + *p.query
		}
		return p.path
	case "AUTHORITY":
		return p.authority
	case "USERINFO":
		if strings.Contains(p.authority, "@") {
			return p.userInfo
		}
	}
	return nil
}
