package cloud

import (
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/deltalite-go/deltalite/internal/errs"
)

// optionSpec is one storage option: its canonical key, the other spellings
// object_store and delta-rs accept, and whether the value is a credential
// that must never be shown.
type optionSpec struct {
	key     string
	aliases []string
	secret  bool
	// group names a set of options that only make sense together (one
	// credential): when the caller gives any of them, the environment
	// supplies none of them, so that keys from two sources never mix.
	group string
}

// optionSet is the vocabulary of one cloud.
type optionSet struct {
	cloud  string // "S3", "Azure", "GCS": for messages
	prefix string // "AWS_", "AZURE_", "GOOGLE_": environment variables read
	specs  []optionSpec
	byName map[string]*optionSpec
}

// envExtra are environment variables without the cloud prefix that are
// still read (the emulator host the GCS SDKs use).
var envExtra = []string{"STORAGE_EMULATOR_HOST"}

func newOptionSet(cloud, prefix string, specs []optionSpec) *optionSet {
	specs = append(specs, commonSpecs(prefix)...)
	s := &optionSet{cloud: cloud, prefix: prefix, specs: specs, byName: map[string]*optionSpec{}}
	for i := range s.specs {
		sp := &s.specs[i]
		for _, n := range append([]string{sp.key}, sp.aliases...) {
			if _, dup := s.byName[n]; dup {
				panic("cloud: option spelled twice: " + n) // caught by the package tests
			}
			s.byName[n] = sp
		}
	}
	return s
}

// Option keys every cloud accepts. Client settings take the cloud prefix or
// none, as in object_store; the multipart knobs are deltalite's own.
const (
	optAllowHTTP         = "ALLOW_HTTP"
	optAllowInvalidCerts = "ALLOW_INVALID_CERTIFICATES"
	optTimeout           = "TIMEOUT"
	optConnectTimeout    = "CONNECT_TIMEOUT"
	optMaxRetries        = "MAX_RETRIES"
	optMultipartThresh   = "MULTIPART_THRESHOLD_BYTES"
	optMultipartPart     = "MULTIPART_PART_SIZE_BYTES"
	optMultipartConc     = "MULTIPART_CONCURRENCY"
)

func commonSpecs(prefix string) []optionSpec {
	client := func(k string) optionSpec { return optionSpec{key: k, aliases: []string{prefix + k}} }
	deltalite := func(k string) optionSpec { return optionSpec{key: k, aliases: []string{"DELTALITE_" + k}} }
	return []optionSpec{
		client(optAllowHTTP),
		client(optAllowInvalidCerts),
		client(optTimeout),
		client(optConnectTimeout),
		client(optMaxRetries),
		deltalite(optMultipartThresh),
		deltalite(optMultipartPart),
		deltalite(optMultipartConc),
	}
}

// config is a resolved set of options: canonical key -> value.
type config struct {
	set     *optionSet
	values  map[string]string
	secrets []string // every credential value, for redaction
}

// resolve validates the caller's options (unknown keys are an error that
// names them) and fills the rest from the environment. getenv is
// os.Getenv outside tests.
func (s *optionSet) resolve(given map[string]string, getenv func(string) string) (*config, error) {
	c := &config{set: s, values: map[string]string{}}
	from := map[string]string{} // canonical -> the spelling the caller used
	var unknown []string
	explicitGroups := map[string]bool{}
	for name, v := range given {
		up := strings.ToUpper(strings.TrimSpace(name))
		sp, ok := s.byName[up]
		if !ok {
			unknown = append(unknown, up)
			continue
		}
		if prev, dup := from[sp.key]; dup && c.values[sp.key] != v {
			a, b := prev, up
			if b < a {
				a, b = b, a
			}
			return nil, errs.New(errs.InvalidArgument, "", "storage options %s and %s are the same %s setting with different values; give one", a, b, s.cloud)
		}
		from[sp.key] = up
		c.values[sp.key] = v
		if sp.group != "" {
			explicitGroups[sp.group] = true
		}
	}
	if len(unknown) > 0 {
		slices.Sort(unknown)
		return nil, errs.New(errs.InvalidArgument, "", "unknown %s storage option(s): %s (docs/storage.md lists the keys)", s.cloud, strings.Join(unknown, ", "))
	}
	for i := range s.specs {
		sp := &s.specs[i]
		if _, ok := c.values[sp.key]; ok || (sp.group != "" && explicitGroups[sp.group]) {
			continue
		}
		for _, n := range append([]string{sp.key}, sp.aliases...) {
			if !strings.HasPrefix(n, s.prefix) && !strings.HasPrefix(n, "DELTALITE_") && !slices.Contains(envExtra, n) {
				continue
			}
			if v := getenv(n); v != "" {
				c.values[sp.key] = v
				break
			}
		}
	}
	for i := range s.specs {
		if sp := &s.specs[i]; sp.secret && c.values[sp.key] != "" {
			c.secrets = append(c.secrets, c.values[sp.key])
		}
	}
	return c, nil
}

func (c *config) str(key string) string { return c.values[key] }

func (c *config) has(key string) bool { return c.values[key] != "" }

func (c *config) bool(key string) (bool, error) {
	v := strings.TrimSpace(c.values[key])
	if v == "" {
		return false, nil
	}
	switch strings.ToLower(v) {
	case "true", "1", "yes", "on":
		return true, nil
	case "false", "0", "no", "off":
		return false, nil
	}
	return false, c.invalid(key, "true or false")
}

// boolOr is bool with a default for an absent key.
func (c *config) boolOr(key string, def bool) (bool, error) {
	if !c.has(key) {
		return def, nil
	}
	return c.bool(key)
}

func (c *config) int64(key string, def int64) (int64, error) {
	v := strings.TrimSpace(c.values[key])
	if v == "" {
		return def, nil
	}
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil || n < 0 {
		return 0, c.invalid(key, "a non-negative whole number")
	}
	return n, nil
}

// duration accepts Go durations ("30s", "1m30s") and bare seconds ("30").
func (c *config) duration(key string, def time.Duration) (time.Duration, error) {
	v := strings.TrimSpace(c.values[key])
	if v == "" {
		return def, nil
	}
	if n, err := strconv.ParseFloat(v, 64); err == nil && n >= 0 {
		return time.Duration(n * float64(time.Second)), nil
	}
	d, err := time.ParseDuration(strings.ReplaceAll(v, " ", ""))
	if err != nil || d < 0 {
		return 0, c.invalid(key, `a duration such as "30s"`)
	}
	return d, nil
}

// invalid reports a malformed value; a secret's value is never repeated.
func (c *config) invalid(key, want string) error {
	sp := c.set.byName[key]
	if sp != nil && sp.secret {
		return errs.New(errs.InvalidArgument, "", "storage option %s is malformed: want %s", key, want)
	}
	return errs.New(errs.InvalidArgument, "", "storage option %s=%q is malformed: want %s", key, c.values[key], want)
}

// open is where a store opens and with what: the URL's location and the
// options resolved over the environment.
func (s *optionSet) open(u *url.URL, given map[string]string, getenv func(string) string) (location, *config, error) {
	loc, err := parseLocation(u)
	if err != nil {
		return loc, nil, err
	}
	cfg, err := s.resolve(given, getenv)
	return loc, cfg, err
}

// transport is the HTTP client settings and the upload plan every store
// takes from its options. An emulator allows plain http unless the
// options say otherwise: emulators speak it.
func (c *config) transport(emulator bool) (clientSettings, uploadPlan, error) {
	if emulator && !c.has(optAllowHTTP) {
		c.values[optAllowHTTP] = "true"
	}
	cs, err := c.clientSettings()
	if err != nil {
		return cs, uploadPlan{}, err
	}
	mp, err := c.multipart()
	return cs, mp, err
}
