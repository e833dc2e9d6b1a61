package lease

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
	"time"
)

var (
	errTaken   = errors.New("taken")
	errExpired = errors.New("expired")
)

func opts(renew func(context.Context) (bool, error), lost *atomic.Int32, ended *atomic.Int32) Options {
	return Options{
		Duration: 120 * time.Millisecond,
		Renew:    renew,
		Taken:    func() error { return errTaken },
		Expired:  func(last error) error { return errors.Join(errExpired, last) },
		OnLost:   func(error) { lost.Add(1) },
		End:      func(context.Context) { ended.Add(1) },
	}
}

// TestKeeper pins the loop every lease shares: renewals keep it past its
// duration; a renewal finding another holder loses it at once (Taken,
// OnLost once); failing renewals lose it once the last good one's send
// time plus the duration has passed (Expired with the last error); Stop
// ends a held lease (End) and leaves a lost one; without Expired (a
// heartbeat) time alone never loses it.
func TestKeeper(t *testing.T) {
	var lost, ended atomic.Int32
	k := Keep(t.Context(), time.Now(), opts(func(context.Context) (bool, error) { return true, nil }, &lost, &ended))
	time.Sleep(300 * time.Millisecond)
	if err := k.Err(); err != nil {
		t.Errorf("a renewed lease is lost: %v", err)
	}
	k.Stop()
	if ended.Load() != 1 || lost.Load() != 0 || k.Err() != nil {
		t.Errorf("Stop of a held lease: ended %d, lost %d, err %v; want ended once, never lost", ended.Load(), lost.Load(), k.Err())
	}

	lost.Store(0)
	ended.Store(0)
	var held atomic.Bool
	held.Store(true)
	k = Keep(t.Context(), time.Now(), opts(func(context.Context) (bool, error) { return held.Load(), nil }, &lost, &ended))
	held.Store(false)
	time.Sleep(100 * time.Millisecond)
	if err := k.Err(); !errors.Is(err, errTaken) || lost.Load() != 1 {
		t.Errorf("taken: err %v, OnLost %d times; want errTaken once", err, lost.Load())
	}
	k.Stop()
	if ended.Load() != 0 {
		t.Error("Stop ended a lease another holder has")
	}

	lost.Store(0)
	down := errors.New("database down")
	k = Keep(t.Context(), time.Now(), opts(func(context.Context) (bool, error) { return false, down }, &lost, &ended))
	time.Sleep(60 * time.Millisecond)
	if err := k.Err(); err != nil {
		t.Errorf("lost before its duration ran out: %v", err)
	}
	time.Sleep(150 * time.Millisecond)
	if err := k.Err(); !errors.Is(err, errExpired) || !errors.Is(err, down) || lost.Load() != 1 {
		t.Errorf("unrenewed: err %v, OnLost %d times; want expired with the last error, once", err, lost.Load())
	}
	k.Stop()

	o := opts(func(context.Context) (bool, error) { return true, down }, &lost, &ended)
	o.Expired = nil
	k = Keep(t.Context(), time.Now(), o)
	time.Sleep(200 * time.Millisecond)
	if err := k.Err(); err != nil {
		t.Errorf("a heartbeat (no Expired) is lost by time: %v", err)
	}
	k.Stop()
}
