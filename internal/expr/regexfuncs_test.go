package expr

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/deltalite-go/deltalite/schema"
	"github.com/deltalite-go/deltalite/testkit/peers"
)

// regexTexts are the s of the rows regexExprs run over (nil: NULL).
var regexTexts = []*string{
	sp("abc123def"), sp("foo bar\tbaz"), nil, sp(""), sp("aaa-bbb_ccc.ddd"), sp("Ünïcödé 42 ñ"),
	sp("line1\nline2 \u000b end"), sp(`a.b.c a$b \ (x) [y] {z}`), sp("baaac"), sp("ab\r\ncd\u0085ef\u2028g"),
	sp("key=v1; other=v2;key=v3"), sp("2024-03-01T10:00:00"),
}

// regexWideTexts hold characters beyond U+FFFF, which Java counts as two.
var regexWideTexts = []*string{sp("x😀y😀z"), sp("😀"), sp("ab😀cd"), nil, sp("plain")}

func sp(s string) *string { return &s }

// regexExprs are evaluated here and by Spark over regexTexts.
var regexExprs = []string{
	`s RLIKE '[0-9]+'`, `s NOT RLIKE 'a'`, `s REGEXP '^a'`, `regexp_like(s, 'b$')`, `regexp(s, '\\d{2}')`, `rlike(s, '')`,
	`rlike(s, '.')`, `rlike(s, '^.*$')`, `rlike(s, '\\s')`, `rlike(s, '\\S\\s\\S')`, `rlike(s, '\\x0B')`, `rlike(s, 'line1.line2')`,
	`rlike(s, '\\p{Upper}|\\p{Punct}')`, `rlike(s, '\\p{Alpha}{3}')`, `rlike(s, '[^\\p{ASCII}]')`, `rlike(s, '\\w+\\W+\\w+')`,
	`rlike(s, '\\Q.b.\\E')`, `rlike(s, '[]x]')`, `rlike(s, '[a-c&]{3}')`, `rlike(s, '\\$b')`, `rlike(s, '\\u00dc|\\x{f1}')`,
	`rlike(s, '\\0101\\0142c')`, `rlike(s, '\\cJ')`, `rlike(s, '\\t|\\r\\n')`, `rlike(s, '\\Ae\\z|\\Aa')`, `rlike(s, '[a&b]')`,
	`regexp_extract(s, '([a-z]+)(\\d+)', 1)`, `regexp_extract(s, '([a-z]+)(\\d+)?', 2)`, `regexp_extract(s, '(\\d+)')`,
	`regexp_extract(s, '[a-z]+', 0)`, `regexp_extract(s, '(?<k>key)=(\\w+)', 2)`, `regexp_extract(s, 'a*?c', 0)`,
	`regexp_extract(s, '(a|ab)(c|bcd)(d*)', 0)`, `regexp_extract(s, '(?:b+)(_?)', 1)`, `regexp_extract(s, '(\\d{4})-(\\d{2})', 2)`,
	`regexp_extract(s, 'x{0}', 0)`, `regexp_extract(s, '.{2,3}?$', 0)`,
	`regexp_replace(s, 'a*', 'X')`, `regexp_replace(s, '', '-')`, `regexp_replace(s, '(\\w)(\\w)', '$2$1')`,
	`regexp_replace(s, '([a-z])\\d', '$11')`, `regexp_replace(s, 'b', '\\$1\\\\')`, `regexp_replace(s, '[aeiou]', '')`,
	`regexp_replace(s, '^', '>')`, `regexp_replace(s, '$', '<')`, `regexp_replace(s, '\\s+', ' ')`, `regexp_replace(s, 'a', 'A', 3)`,
	`regexp_replace(s, '^.', '#', 2)`, `regexp_replace(s, '.', '#', 100)`, `regexp_replace(s, '(?<k>key)=(\\w+)', '$2=$1')`,
	`regexp_replace(s, 'a|(b)', '[$1]')`, `regexp_replace(s, '.', '$0$0', 5)`,
	`regexp_count(s, 'a*')`, `regexp_count(s, '')`, `regexp_count(s, '[a-z]+')`, `regexp_count(s, '\\d')`, `regexp_count(s, '^|$')`,
	`regexp_substr(s, '\\d+')`, `regexp_substr(s, 'q*')`, `regexp_substr(s, '[A-Z]\\w*')`,
	`regexp_instr(s, '\\d')`, `regexp_instr(s, 'z+')`, `regexp_instr(s, '(b)(c)', 2)`, `regexp_instr(s, 'ñ')`,
	`element_at(split(s, '[ .]'), 1)`, `size(split(s, ''))`, `size(split(s, 'a', 2))`, `element_at(split(s, 'a', 2), -1)`,
	`size(split(s, 'x*'))`, `element_at(split(s, 'x*'), 1)`, `size(split(s, 'd', 0))`, `size(split(s, 'a', 1))`,
	`array_contains(split(s, '\\s+'), 'bar')`, `element_at(split(s, '='), -1)`, `size(split(s, '^'))`, `size(split(s, '(?:)'))`,
	`element_at(split(s, 'b|$'), -1)`, `size(split(s, '[a-c]', -3))`, `element_at(split(s, '', 3), -1)`, `element_at(split(s, ''), -1)`,
	`size(regexp_extract_all(s, '(\\w)'))`,
	`regexp_extract(s, NULL, 1)`, `regexp_replace(s, 'a', NULL)`, `regexp_count(NULL, 'a')`, `regexp_extract('a1', '(\\d)', 1)`,
}

// regexWideExprs are evaluated over regexWideTexts: positions in UTF-16
// units, a position inside none of the pairs.
var regexWideExprs = []string{
	`regexp_instr(s, 'y')`, `regexp_instr(s, 'c|z')`, `regexp_replace(s, '😀', '-')`, `regexp_replace(s, 'z', 'Z', 6)`,
	`regexp_extract(s, '([a-z])😀', 1)`, `regexp_count(s, '😀')`, `rlike(s, '^.😀')`, `regexp_substr(s, '[^x]+$')`,
	`regexp_replace(s, '(?<c>[a-z])', '<$1>')`, `size(split(s, '😀'))`, `element_at(split(s, '😀'), -1)`, `size(split(s, ''))`, `element_at(split(s, '', 2), -1)`,
}

// regexArrayExprs are the array-valued ones, evaluated here and by Spark
// over regexTexts and regexWideTexts, compared as JSON arrays.
var regexArrayExprs = []string{
	`regexp_extract_all(s, '(\\d+)')`, `regexp_extract_all(s, '([a-z]+)(\\d+)?', 2)`, `regexp_extract_all(s, '[a-z]+', 0)`,
	`regexp_extract_all(s, 'a*', 0)`, `regexp_extract_all(s, '', 0)`, `regexp_extract_all(s, '(a|ab)(c|bcd)(d*)', 3)`,
	`regexp_extract_all(s, '(?<k>key)=(\\w+)', 2)`, `regexp_extract_all(s, '^|$', 0)`, `regexp_extract_all(s, NULL, 1)`,
	`regexp_extract_all(s, 'q(x)?', 1)`, `regexp_extract_all(s, '([a-z])😀?', 1)`, `regexp_extract_all(s, '.', 0)`,
}

// regexpEmptyMatches are those of regexArrayExprs that match empty texts,
// which a text with a character beyond U+FFFF refuses on the row (Java
// would search inside its UTF-16 pair next).
var regexpEmptyMatches = map[string]bool{`regexp_extract_all(s, 'a*', 0)`: true, `regexp_extract_all(s, '', 0)`: true,
	`regexp_extract_all(s, '^|$', 0)`: true}

// Spark 4 computes the same arrays as this package for regexp_extract_all;
// a text this package refuses is one regexpEmptyMatches names.
func TestRegexArraysAgreeWithSpark(t *testing.T) {
	if testing.Short() {
		t.Skip("interop with Spark: not in -short mode")
	}
	peers.Python(t)
	s := peers.Spark(t)
	sparkArraysAgree(t, s, append(append([]*string{}, regexTexts...), regexWideTexts...), regexArrayExprs)
	sparkArraysAgree(t, s, strMapTexts, strMapExprs)
}

// strMapTexts and strMapExprs check str_to_map: its keys and values.
var strMapTexts = []*string{sp("a:1,b:2,c"), sp(""), sp("k=v;x=y;;z="), sp("a:1:2, b : 3"), sp("x"), sp("😀:1,b:😀"),
	sp("a:,b:"), sp("1,2,3"), sp("key = v1 ; other=v2"), nil, sp("a.b:c.d,e")}

var strMapExprs = []string{`map_keys(str_to_map(s))`, `map_values(str_to_map(s))`, `map_keys(str_to_map(s, ';', '='))`,
	`map_values(str_to_map(s, ';', '='))`, `map_keys(str_to_map(s, '\\s*,\\s*', '\\s*:\\s*'))`,
	`map_values(str_to_map(s, '\\s*[,;]\\s*', '\\s*[:=]\\s*'))`, `map_values(str_to_map(s, ',', ''))`,
	`map_keys(str_to_map(s, '[.]'))`, `map_keys(str_to_map(s, ',', NULL))`, `map_values(str_to_map(s, 'z'))`,
}

// sparkArraysAgree checks that Spark computes the arrays exprs give here
// over texts, compared as JSON; a row refused here must be one
// regexpEmptyMatches allows.
func sparkArraysAgree(t *testing.T, s *peers.SparkSession, texts []*string, exprs []string) {
	t.Helper()
	sc, rec, vals := regexBatch(t, texts)
	var sel []string
	for i, e := range exprs {
		sel = append(sel, fmt.Sprintf("to_json(%s) AS v%d", e, i))
	}
	rows := sparkRows(t, s, "SELECT n, "+strings.Join(sel, ", ")+" FROM VALUES "+strings.Join(vals, ", ")+" AS t(n, s)", len(texts))
	for i, e := range exprs {
		b, err := BindValue(mustParse(t, e), map[string]*schema.Struct{"": sc})
		if err != nil {
			t.Fatalf("%s: %v", e, err)
		}
		ours, theirs := evalValue(t, b, rec), sparkValues(rows, i)
		for n := range ours {
			var a, b []string
			same := ours[n] == theirs[n]
			if !same && ours[n] != "NULL" && theirs[n] != "NULL" {
				same = json.Unmarshal([]byte(ours[n]), &a) == nil && json.Unmarshal([]byte(theirs[n]), &b) == nil && slices.Equal(a, b)
			}
			if !same && ours[n] == "ERR" && texts[n] != nil && strings.ContainsFunc(*texts[n], func(r rune) bool { return r > 0xFFFF }) &&
				regexpEmptyMatches[e] {
				continue // refused: Java's search enters the UTF-16 pair after an empty match
			}
			if !same {
				t.Errorf("%s of %q: here %s, Spark %s", e, *texts[n], ours[n], theirs[n])
			}
		}
	}
}

// Spark 4 computes the same values as this package for the regular
// expression functions, patterns read as java.util.regex reads them.
func TestRegexFunctionsAgreeWithSpark(t *testing.T) {
	if testing.Short() {
		t.Skip("interop with Spark: not in -short mode")
	}
	peers.Python(t)
	s := peers.Spark(t)
	for _, set := range []struct {
		texts []*string
		exprs []string
	}{{regexTexts, regexExprs}, {regexWideTexts, regexWideExprs}, {urlTexts, urlExprs}, {regexFlagTexts, regexFlagExprs}} {
		sc, rec, vals := regexBatch(t, set.texts)
		sparkAgrees(t, s, sc, rec, set.exprs, vals, "n, s")
	}
}

// regexFlagTexts are texts the embedded flags and \b read as Java does:
// ASCII, lines ended by \n alone, none at the end.
var regexFlagTexts = []*string{sp("Hello World"), sp("hello\nworld"), sp("ABC abc"), sp("foo_bar baz9 qux"), sp("a.b\nc"),
	sp(""), nil, sp("The cat scattered"), sp("x\n\ny\nz"), sp("-- a-b --")}

// regexFlagExprs use the flags i, s and m, scoped and turned off, \b and
// \B, in searches that go on past a match.
var regexFlagExprs = []string{
	`regexp_replace(s, '(?i)hello', 'X')`, `regexp_count(s, '(?i)[a-c]')`, `rlike(s, '(?i)^abc')`,
	`regexp_replace(s, '(?i)[^a-z ]', '#')`, `regexp_replace(s, '(?i:w)orld', 'W')`, `regexp_count(s, 'a(?i)b(?-i)c')`,
	`regexp_count(s, '(?i)[B-y]')`, `regexp_replace(s, '(?i)\\x41', '_')`,
	`regexp_extract(s, '(?s)a.b.c', 0)`, `regexp_count(s, '(?s).')`, `regexp_count(s, '.')`, `regexp_extract(s, '(?s:.)(?-s).', 0)`,
	`regexp_replace(s, '(?m)^', '>')`, `regexp_replace(s, '(?m)$', '<')`, `regexp_count(s, '(?m)^.*$')`, `regexp_instr(s, '(?m)^w')`,
	`regexp_replace(s, '(?m)^(?i)[a-z]', '*')`, `size(split(s, '(?m)$'))`, `element_at(split(s, '(?m)$'), 1)`,
	`regexp_count(s, '\\bcat\\b')`, `regexp_replace(s, '\\b', '|')`, `regexp_replace(s, '\\B', '-')`,
	`regexp_replace(s, '\\b[a-z]', 'U')`, `size(split(s, '\\b'))`, `element_at(split(s, '\\b'), -1)`, `regexp_extract(s, '(\\w+)\\b', 1)`,
	`regexp_replace(s, 'o\\B', '0', 3)`, `regexp_replace(s, '\\bw', 'W', 7)`,
}

// regexBatch is texts as rows (n, s), and as Spark's VALUES tuples.
func regexBatch(t *testing.T, texts []*string) (*schema.Struct, arrow.RecordBatch, []string) {
	t.Helper()
	sc := &schema.Struct{Fields: []*schema.Field{
		{Name: "n", Type: &schema.Primitive{Name: schema.Integer}, Nullable: true},
		{Name: "s", Type: &schema.Primitive{Name: schema.String}, Nullable: true},
	}}
	as, err := schema.ToArrow(sc, schema.ArrowOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var rows, vals []string
	for i, s := range texts {
		if s == nil {
			rows = append(rows, fmt.Sprintf(`{"n":%d}`, i))
			vals = append(vals, fmt.Sprintf("(%d, CAST(NULL AS STRING))", i))
			continue
		}
		js, _ := json.Marshal(*s)
		rows = append(rows, fmt.Sprintf(`{"n":%d,"s":%s}`, i, js))
		vals = append(vals, fmt.Sprintf("(%d, %s)", i, sparkString(*s)))
	}
	return sc, jsonBatch(t, as, rows), vals
}

// sparkString is s as a Spark SQL literal.
func sparkString(s string) string {
	var sb strings.Builder
	sb.WriteByte('\'')
	for _, r := range s {
		switch {
		case r == '\'' || r == '\\':
			sb.WriteString(`\` + string(r))
		case r < 0x20 || r == 0x85 || r == 0x2028:
			fmt.Fprintf(&sb, `\u%04x`, r)
		default:
			sb.WriteRune(r)
		}
	}
	return sb.String() + "'"
}

// A pattern RE2 cannot mean as Java does is refused when bound, naming
// the pattern and the construct; a row Java would search in a way RE2
// cannot follow is refused, as is what Spark's ANSI mode fails.
func TestRegexRefusals(t *testing.T) {
	sc, rec, _ := regexBatch(t, []*string{sp("ab\n"), sp("x😀y"), sp("abc")})
	rels := map[string]*schema.Struct{"": sc}
	for _, c := range []struct{ e, want string }{
		{`rlike(s, '(a)\\1')`, `the backreference \1`},
		{`rlike(s, '(?<n>a)\\k<n>')`, `the backreference \k`},
		{`rlike(s, 'a(?=b)')`, `the lookahead "(?="`},
		{`rlike(s, 'a(?!b)')`, `the lookahead "(?!"`},
		{`rlike(s, '(?<=a)b')`, `the lookbehind "(?<="`},
		{`rlike(s, '(?<!a)b')`, `the lookbehind "(?<!"`},
		{`rlike(s, '(?>a)')`, `atomic group`},
		{`rlike(s, 'a++')`, `possessive quantifier "++"`},
		{`rlike(s, 'a{2}+')`, `possessive quantifier`},
		{`rlike(s, '(?x)a b')`, `the embedded flag "x" in "(?x"`},
		{`rlike(s, '(?iu:a)')`, `the embedded flag "u"`},
		{`rlike(s, '(?i)\\p{Lower}')`, `\p under (?i)`},
		{`rlike(s, '(?i)[\\p{Lower}]')`, `\p inside a class under (?i)`},
		{`rlike(s, '\\p{L}')`, `Unicode property \p{L}`},
		{`rlike(s, '\\p{IsLatin}')`, `Unicode property \p{IsLatin}`},
		{`rlike(s, '[a[b]]')`, `class inside a class`},
		{`rlike(s, '[a-z&&[^b]]')`, `intersection`},
		{`rlike(s, 'a{,2}')`, `no repetition`},
		{`rlike(s, 'a{')`, `no repetition`},
		{`rlike(s, 'a{2000}')`, `at most 1000`},
		{`rlike(s, '\\y')`, `the escape \y`},
		{`rlike(s, '[b-a]')`, `runs backwards`},
		{`rlike(s, 'a$')`, ``},
		{`rlike(s, s)`, `constant pattern`},
		{`regexp_replace(s, 'a', s)`, `constant replacement`},
		{`regexp_replace(s, '(a)', '${1}')`, `Spark substitutes in SQL text`},
		{`regexp_replace(s, 'a', 'b', 0)`, `position must be between`},
		{`rlike(s, '(a')`, `not a pattern this engine runs`},
	} {
		_, err := BindValue(mustParse(t, c.e), rels)
		switch {
		case c.want == "" && err != nil:
			t.Errorf("%s: %v", c.e, err)
		case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)):
			t.Errorf("%s: %v, want an error naming %q", c.e, err, c.want)
		}
	}
	for _, c := range []struct{ e, want string }{
		{`rlike(s, 'b$')`, `ERR|false|false`},
		{`regexp_replace(s, 'x', 'y')`, `ab
|y😀y|abc`},
		{`regexp_count(s, '')`, `4|ERR|4`},
		{`regexp_replace(s, '[^a]', '-')`, `a--|---|a--`},
		{`regexp_count(s, '[^😀]y')`, `0|ERR|0`},
		{`regexp_replace(s, '[^a]', '-', 3)`, `ab-|ERR|ab-`},
		{`regexp_replace(s, '[^a]$', '-')`, `ERR|ERR|ab-`},
		{`regexp_replace(s, '^[^a]', '-')`, `ab
|-😀y|abc`},
		{`regexp_extract(s, 'b', 1)`, `ERR|""|ERR`},
		{`regexp_extract(s, '(b)', -1)`, `ERR|""|ERR`},
		{`regexp_extract_all(s, '(b)', 2)`, `ERR|[]|ERR`},
		{`regexp_replace(s, 'b', '$2')`, `ERR|x😀y|ERR`},
		{`regexp_replace(s, 'b', 'x\\')`, `ERR|x😀y|ERR`},
		{`regexp_replace(s, 'y', '-', 3)`, `ab
|x😀-|abc`},
		// \b reads a text beyond ASCII by the JVM's tables; Java's
		// multi-line ^ does not match after a line terminator at the end.
		{`rlike(s, '\\bab')`, `true|ERR|true`},
		{`rlike(s, '(?m)^a')`, `ERR|false|true`},
		{`rlike(s, '(?m)c$')`, `false|false|true`},
	} {
		b, err := BindValue(mustParse(t, c.e), rels)
		if err != nil {
			t.Errorf("%s: %v", c.e, err)
			continue
		}
		got := strings.ReplaceAll(strings.Join(evalValue(t, b, rec), "|"), `|`+`|`, `|""|`)
		if got != c.want {
			t.Errorf("%s = %q, want %q", c.e, got, c.want)
		}
	}
}

// str_to_map fails a row with a key given twice (Spark's default
// mapKeyDedupPolicy=EXCEPTION), takes constant delimiters only, and folds
// over a constant text.
func TestStrToMapRules(t *testing.T) {
	sc, rec, _ := regexBatch(t, []*string{sp("a:1,b:2"), sp("a:1,a:2"), sp("k")})
	rels := map[string]*schema.Struct{"": sc}
	rowsAre(t, rels, rec, []struct{ e, want string }{
		{`element_at(str_to_map(s), 'a')`, `1|ERR|NULL`},
		{`element_at(str_to_map(s), 'k')`, `NULL|ERR|NULL`},
		{`size(str_to_map(s, ','))`, `2|ERR|1`},
		{`element_at(str_to_map('x=1;y=2', ';', '='), 'y')`, `2|2|2`},
	})
	b, err := BindValue(mustParse(t, `str_to_map(s)`), rels)
	if err != nil {
		t.Fatal(err)
	}
	_, err = b.Eval(t.Context(), rec)
	if err == nil || !strings.Contains(err.Error(), `str_to_map("a:1,a:2"): duplicate map key "a"`) {
		t.Errorf("duplicate key: %v", err)
	}
	for _, c := range []struct{ e, want string }{
		{`str_to_map(s, s)`, `constant`},
		{`str_to_map(s, '(?<=a),')`, `delimiter "(?<=a),"`},
	} {
		if _, err := BindValue(mustParse(t, c.e), rels); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want an error naming %q", c.e, err, c.want)
		}
	}
}

// urlTexts are URLs this package reads as java.net.URI does.
var urlTexts = []*string{sp("http://example.com"), sp("https://user:pw@www.Example.org:8080/a/b.html?x=1&y=2&x=3#frag"),
	sp("ftp://10.0.0.255/pub/f.txt?"), sp("http://h.io/p;q=1/%41?k=v=w&kk=#"), nil, sp("HTTP://a-b.c-d.net/?&x=&y"),
	sp("s3://bucket.s3.amazonaws.com/key/with+plus,comma"), sp("http://@host.com/"), sp("http://localhost:1/x?q=a?b/c"),
	sp("http://[::1]:8080/a?b#c"), sp("http://u@[2001:db8::7]/x"), sp("http://[1:2:3:4:5:6:7:8]/"), sp("http://[::ffff:01.2.3.4]/"),
	sp("http://[::1:2:3:4:5:6:7]/"), sp("http://[1:2:3:4:5:6:7::]/"), sp("http://[1:2:3:4:5:6:1.2.3.4]/"), sp("http://[::]/"),
	sp("mailto:a@b.com?subject=x#frag"), sp("urn:isbn:0451450523"), sp("x:%41"), sp("file:/a?b#c"), sp("http:/"),
	sp("a/b?c#d"), sp("/a/b?x=1"), sp("//host/p?q"), sp("?q"), sp("#f"), sp("")}

// urlExprs are evaluated here and by Spark over urlTexts (in
// TestRegexFunctionsAgreeWithSpark).
var urlExprs = []string{`parse_url(s, 'HOST')`, `parse_url(s, 'PATH')`, `parse_url(s, 'QUERY')`, `parse_url(s, 'REF')`,
	`parse_url(s, 'PROTOCOL')`, `parse_url(s, 'FILE')`, `parse_url(s, 'AUTHORITY')`, `parse_url(s, 'USERINFO')`,
	`parse_url(s, 'host')`, `parse_url(s, 'QUERY', 'x')`, `parse_url(s, 'QUERY', 'y')`, `parse_url(s, 'QUERY', 'k')`,
	`parse_url(s, 'QUERY', 'k+')`, `parse_url(s, 'HOST', 'x')`, `parse_url(s, 'QUERY', NULL)`, `parse_url(s, 'QUERY', 'q')`}

// A URL java.net.URI refuses fails the row, as Spark's ANSI mode fails
// it; one this package does not read as java.net.URI does is refused,
// naming it; part and key are constants.
func TestParseURLRefusals(t *testing.T) {
	for _, c := range []struct{ u, want string }{
		{"http://a b.com/", `the host "a b.com"`},
		{"http://a.com/x y", "a character java.net.URI refuses"},
		{"http://a.com/%zz", "a character java.net.URI refuses"},
		{"http://[::1%eth0]/", `the IPv6 host "[::1%eth0]"`},
		{"http://[1::2::3]/", `the IPv6 host "[1::2::3]"`},
		{"http://[1:2:3:4:5:6:7]/", `the IPv6 host "[1:2:3:4:5:6:7]"`},
		{"http://[::1]x/", `"x" follows the IPv6 host`},
		{"1a:b", `the scheme "1a"`},
		{"http:", "a character java.net.URI refuses"},
		{"a:b c", "a character java.net.URI refuses"},
		{"http://under_score.com/", `the host "under_score.com"`},
		{"http://1.2.3.999/", `the host "1.2.3.999"`},
		{"http://a.com:99999999999/", `the port "99999999999"`},
		{"http://a.com/ü", "beyond ASCII"},
	} {
		sc, rec, _ := regexBatch(t, []*string{sp(c.u)})
		b, err := BindValue(mustParse(t, `parse_url(s, 'HOST')`), map[string]*schema.Struct{"": sc})
		if err != nil {
			t.Fatal(err)
		}
		_, err = b.Eval(t.Context(), rec)
		if err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), c.u) {
			t.Errorf("%s: %v, want an error naming %q", c.u, err, c.want)
		}
	}
	sc, _, _ := regexBatch(t, nil)
	for _, c := range []struct{ e, want string }{
		{`parse_url(s, s)`, `takes a constant part`},
		{`parse_url(s, 'QUERY', s)`, `takes a constant key`},
		{`parse_url(s, 'QUERY', '(?<=a)')`, `the key "(?<=a)"`},
	} {
		if _, err := BindValue(mustParse(t, c.e), map[string]*schema.Struct{"": sc}); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want an error naming %q", c.e, err, c.want)
		}
	}
}
