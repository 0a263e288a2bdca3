package expr

import "testing"

func TestQualify(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"date >= '2024-01-02' AND date < '2024-01-03'", "t.date >= '2024-01-02' AND t.date < '2024-01-03'"},
		{"region IN ('us', 'eu') AND t.day = 1", "t.region IN ('us', 'eu') AND t.day = 1"},
		{"`a b` = 'x' OR NOT (c IS NULL)", "t.`a b` = 'x' OR NOT t.c IS NULL"},
		{"CASE WHEN x BETWEEN 1 AND y THEN lower(z) END LIKE 'a%'", "CASE WHEN t.x BETWEEN 1 AND t.y THEN lower(t.z) END LIKE 'a%'"},
	} {
		e, err := Parse(c.in)
		if err != nil {
			t.Fatal(err)
		}
		got := Qualify(e, "t").String()
		if got != c.want {
			t.Errorf("Qualify(%s) = %s, want %s", c.in, got, c.want)
		}
		if e.String() == got {
			t.Errorf("Qualify modified its input %s", c.in)
		}
	}
}
