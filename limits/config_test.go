package limits

import (
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
)

func TestDefaultConfig(t *testing.T) {
	got := DefaultConfig()
	want := Config{
		MaxParallelPartitions: 8,
		MaxParallelFiles:      16,
		MaxDecodedBytes:       256 << 20,
		MaxSourceBytes:        2 << 30,
	}
	if got != want {
		t.Fatalf("DefaultConfig() = %+v, want %+v", got, want)
	}
}

func TestParseSize(t *testing.T) {
	tests := []struct {
		in      string
		want    int64
		wantErr bool
	}{
		{"0", 0, false},
		{"268435456", 268435456, false},
		{" 42 ", 42, false},
		{"-1", -1, false},
		{"10b", 10, false},
		{"64k", 64 << 10, false},
		{"64KiB", 64 << 10, false},
		{"256MiB", 256 << 20, false},
		{"256 mib", 256 << 20, false},
		{"2GiB", 2 << 30, false},
		{"2g", 2 << 30, false},
		{"1TiB", 1 << 40, false},
		{"", 0, true},
		{"MiB", 0, true},
		{"64MB", 0, true}, // decimal units are refused, not guessed
		{"1.5GiB", 0, true},
		{"0x10", 0, true},
		{"abc", 0, true},
		{"9223372036854775807", 9223372036854775807, false},
		{"9223372036854775808", 0, true},
		{"9000000TiB", 0, true},
	}
	for _, tt := range tests {
		got, err := ParseSize(tt.in)
		if (err != nil) != tt.wantErr {
			t.Errorf("ParseSize(%q) error = %v, wantErr %v", tt.in, err, tt.wantErr)
			continue
		}
		if !tt.wantErr && got != tt.want {
			t.Errorf("ParseSize(%q) = %d, want %d", tt.in, got, tt.want)
		}
	}
}

func TestFromLookup(t *testing.T) {
	def := DefaultConfig()
	tests := []struct {
		name    string
		env     map[string]string
		want    Config
		errHas  []string // substrings the error must contain; nil means no error
		errNone []string // variables the error must not name
	}{
		{
			name: "unset gives defaults",
			want: def,
		},
		{
			name: "blank values are unset",
			env:  map[string]string{EnvMaxSourceBytes: "  ", EnvMaxParallelFiles: ""},
			want: def,
		},
		{
			name: "every variable parsed",
			env: map[string]string{
				EnvMaxParallelPartitions: "3",
				EnvMaxParallelFiles:      "5",
				EnvMaxDecodedBytes:       "512MiB",
				EnvMaxSourceBytes:        "1GiB",
			},
			want: Config{3, 5, 512 << 20, 1 << 30},
		},
		{
			name: "zero disables the source guard",
			env:  map[string]string{EnvMaxSourceBytes: "0"},
			want: func() Config { c := def; c.MaxSourceBytes = 0; return c }(),
		},
		{
			name:    "zero parallelism is an error naming the variable, default kept",
			env:     map[string]string{EnvMaxParallelPartitions: "0", EnvMaxParallelFiles: "4"},
			want:    func() Config { c := def; c.MaxParallelFiles = 4; return c }(),
			errHas:  []string{EnvMaxParallelPartitions, "at least 1"},
			errNone: []string{EnvMaxParallelFiles},
		},
		{
			name:   "zero buffered bytes is an error",
			env:    map[string]string{EnvMaxDecodedBytes: "0"},
			want:   def,
			errHas: []string{EnvMaxDecodedBytes},
		},
		{
			name:   "negative source bytes is an error",
			env:    map[string]string{EnvMaxSourceBytes: "-5"},
			want:   def,
			errHas: []string{EnvMaxSourceBytes, "negative"},
		},
		{
			name: "every bad variable is named, good ones still apply",
			env: map[string]string{
				EnvMaxParallelFiles: "many",
				EnvMaxDecodedBytes:  "64MB",
				EnvMaxSourceBytes:   "3GiB",
			},
			want:   func() Config { c := def; c.MaxSourceBytes = 3 << 30; return c }(),
			errHas: []string{EnvMaxParallelFiles, `"many"`, EnvMaxDecodedBytes, `"64MB"`},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			lookup := func(k string) (string, bool) { v, ok := tt.env[k]; return v, ok }
			got, err := fromLookup(lookup)
			if got != tt.want {
				t.Errorf("config = %+v, want %+v", got, tt.want)
			}
			if tt.errHas == nil {
				if err != nil {
					t.Fatalf("unexpected error: %v", err)
				}
				return
			}
			if err == nil {
				t.Fatalf("want an error naming %v", tt.errHas)
			}
			for _, s := range tt.errHas {
				if !strings.Contains(err.Error(), s) {
					t.Errorf("error %q does not contain %q", err, s)
				}
			}
			for _, s := range tt.errNone {
				if strings.Contains(err.Error(), s) {
					t.Errorf("error %q names %q, which was valid", err, s)
				}
			}
		})
	}
}

func TestFromEnvReadsEnvironment(t *testing.T) {
	t.Setenv(EnvMaxSourceBytes, "0")
	t.Setenv(EnvMaxParallelPartitions, "12")
	c, err := FromEnv()
	if err != nil {
		t.Fatal(err)
	}
	if c.MaxSourceBytes != 0 || c.MaxParallelPartitions != 12 {
		t.Fatalf("FromEnv() = %+v, want MaxSourceBytes 0 and MaxParallelPartitions 12", c)
	}
}

func TestNewNormalizes(t *testing.T) {
	l := New(Config{MaxSourceBytes: -1})
	want := Config{1, 1, 1, 0}
	if got := l.Config(); got != want {
		t.Fatalf("New(zero).Config() = %+v, want %+v", got, want)
	}
}

// The process limits are built once per process, so the environment is varied
// in child processes running TestProcessHelper.
const helperEnv = "DELTALITE_LIMITS_TEST_HELPER"

func TestProcessHelper(t *testing.T) {
	if os.Getenv(helperEnv) == "" {
		t.Skip("run by TestProcessFromEnvironment")
	}
	l := Process()
	if Process() != l {
		t.Fatal("Process() returned a different value on the second call")
	}
	c := l.Config()
	var err string
	if e := ProcessError(); e != nil {
		err = e.Error()
	}
	// One line the parent parses.
	os.Stdout.WriteString("RESULT " + strings.Join([]string{
		itoa(int64(c.MaxParallelPartitions)), itoa(int64(c.MaxParallelFiles)), itoa(c.MaxSourceBytes),
	}, " ") + " ERR " + err + "\n")
}

func itoa(v int64) string { return strconv.FormatInt(v, 10) }

func TestProcessFromEnvironment(t *testing.T) {
	if os.Getenv(helperEnv) != "" {
		t.Skip("inside the helper")
	}
	tests := []struct {
		name   string
		env    []string
		result string
		errHas string
	}{
		{"defaults", nil, "RESULT 8 16 2147483648 ERR \n", ""},
		{"zero disables the guard", []string{EnvMaxSourceBytes + "=0", EnvMaxParallelFiles + "=3"}, "RESULT 8 3 0 ERR \n", ""},
		{"invalid falls back with an error", []string{EnvMaxParallelPartitions + "=lots"}, "RESULT 8 16 2147483648 ERR ", EnvMaxParallelPartitions},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cmd := exec.Command(os.Args[0], "-test.run=^TestProcessHelper$", "-test.count=1")
			env := []string{helperEnv + "=1"}
			for _, kv := range os.Environ() {
				if !strings.HasPrefix(kv, "DELTALITE_") {
					env = append(env, kv)
				}
			}
			cmd.Env = append(env, tt.env...)
			out, err := cmd.CombinedOutput()
			if err != nil {
				t.Fatalf("helper failed: %v\n%s", err, out)
			}
			i := strings.Index(string(out), "RESULT ")
			if i < 0 {
				t.Fatalf("helper printed no result:\n%s", out)
			}
			line := string(out[i:])
			line = line[:strings.IndexByte(line, '\n')+1]
			if !strings.HasPrefix(line, tt.result) {
				t.Errorf("helper result %q, want prefix %q", line, tt.result)
			}
			if tt.errHas != "" && !strings.Contains(line, tt.errHas) {
				t.Errorf("helper error %q does not name %s", line, tt.errHas)
			}
		})
	}
}
