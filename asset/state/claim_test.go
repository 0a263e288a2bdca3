package state

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"
)

type claimReq struct {
	asset string
	keys  []string
	ex    bool
}

// Which claims exclude which: tried once (a canceled context), while the
// other is held.
func TestClaimRule(t *testing.T) {
	f, _ := OpenFile(t.TempDir())
	whole := func(ex bool) claimReq { return claimReq{"orders", nil, ex} }
	keyed := func(ex bool, keys ...string) claimReq { return claimReq{"orders", keys, ex} }
	cases := []struct {
		name          string
		held, attempt claimReq
		conflict      bool
	}{
		{"exclusive whole vs shared whole", whole(true), whole(false), true},
		{"exclusive whole vs shared key", whole(true), keyed(false, "us"), true},
		{"exclusive whole vs exclusive whole of another asset", whole(true), claimReq{"other", nil, true}, false},
		{"shared whole vs shared whole", whole(false), whole(false), false},
		{"shared whole vs shared key", whole(false), keyed(false, "us"), false},
		{"shared whole vs exclusive key", whole(false), keyed(true, "us"), true},
		{"shared whole vs exclusive whole", whole(false), whole(true), true},
		{"exclusive key vs shared same key", keyed(true, "us"), keyed(false, "eu", "us"), true},
		{"exclusive key vs shared other key", keyed(true, "us"), keyed(false, "eu"), false},
		{"exclusive key vs exclusive whole", keyed(true, "us"), whole(true), true},
		{"exclusive key vs shared whole", keyed(true, "us"), whole(false), true},
		{"shared key vs shared same key", keyed(false, "us"), keyed(false, "us"), false},
		{"shared key vs exclusive same key", keyed(false, "us"), keyed(true, "us"), true},
		{"shared key vs exclusive other key", keyed(false, "us"), keyed(true, "eu"), false},
	}
	canceled, cancel := context.WithCancel(context.Background())
	cancel()
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			release, err := f.Claim(context.Background(), c.held.asset, c.held.keys, c.held.ex)
			if err != nil {
				t.Fatal(err)
			}
			defer release()
			rel2, err := f.Claim(canceled, c.attempt.asset, c.attempt.keys, c.attempt.ex)
			if got := err != nil; got != c.conflict {
				t.Fatalf("conflict = %v (%v), want %v", got, err, c.conflict)
			}
			if err == nil {
				rel2()
			} else if !errors.Is(err, context.Canceled) {
				t.Fatalf("a refused claim: %v", err)
			}
		})
	}
}

// A claim held by another process holds this one off until it is
// released: the other process marks that it is releasing before it
// unlocks, so a claim granted before that finds no mark.
func TestClaimAcrossProcesses(t *testing.T) {
	if dir := os.Getenv("DELTALITE_CLAIM_CHILD"); dir != "" {
		f, _ := OpenFile(dir)
		release, err := f.Claim(context.Background(), "orders", nil, true)
		if err != nil {
			t.Fatal(err)
		}
		_ = os.WriteFile(filepath.Join(dir, "held"), nil, 0o644)
		for !exists(filepath.Join(dir, "go")) {
			time.Sleep(time.Millisecond)
		}
		_ = os.WriteFile(filepath.Join(dir, "releasing"), nil, 0o644)
		release()
		return
	}
	dir := t.TempDir()
	child := exec.Command(os.Args[0], "-test.run=^TestClaimAcrossProcesses$")
	child.Env = append(os.Environ(), "DELTALITE_CLAIM_CHILD="+dir)
	out := make(chan []byte, 1)
	go func() { b, _ := child.CombinedOutput(); out <- b }()
	deadline := time.Now().Add(30 * time.Second)
	for !exists(filepath.Join(dir, "held")) {
		if time.Now().After(deadline) {
			t.Fatalf("the child never claimed: %s", <-out)
		}
		time.Sleep(time.Millisecond)
	}
	f, _ := OpenFile(dir)
	canceled, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := f.Claim(canceled, "orders", []string{"us"}, false); !errors.Is(err, context.Canceled) {
		t.Fatalf("a claim was granted while another process held the asset exclusively: %v", err)
	}
	granted := make(chan bool, 1)
	go func() {
		release, err := f.Claim(context.Background(), "orders", []string{"us"}, false)
		if err != nil {
			t.Error(err)
			granted <- false
			return
		}
		granted <- exists(filepath.Join(dir, "releasing"))
		release()
	}()
	_ = os.WriteFile(filepath.Join(dir, "go"), nil, 0o644)
	if !<-granted {
		t.Fatal("a materialization's claim was granted while another process held the asset exclusively")
	}
	<-out
}

func exists(p string) bool { _, err := os.Stat(p); return err == nil }
