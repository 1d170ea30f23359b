package engine

import (
	"math"
	"math/rand/v2"
	"sync/atomic"
	"time"
)

// eventQueueSize is the number of arrivals that may wait for a worker, as
// in sysbench; a full queue means the workers cannot keep up with --rate
// and ends the run.
const eventQueueSize = 131072

// errQueueFull is sysbench's message for a full --rate queue.
const errQueueFull = "The event queue is full. This means the worker threads are unable to keep up with the specified event generation rate"

// pacer is the --rate arrival generator: an open loop that produces
// Poisson arrivals (exponential gaps with mean 1/rate) whether or not the
// workers keep up. Arrivals wait in a queue; a worker takes one per event
// and the event's latency counts from its arrival, so queueing delay is
// part of the reported latency (no coordinated omission).
type pacer struct {
	rate        float64
	queue       chan time.Time
	concurrency atomic.Int64
}

func newPacer(rate float64) *pacer {
	return &pacer{rate: rate, queue: make(chan time.Time, eventQueueSize)}
}

// generate runs in its own goroutine until stop is closed. It returns
// false if the queue overflowed.
func (p *pacer) generate(start time.Time, seed uint64, stop <-chan struct{}) bool {
	rng := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	next := start
	timer := time.NewTimer(0)
	defer timer.Stop()
	for {
		// Exponential inter-arrival gap, in seconds.
		gap := -math.Log(1-rng.Float64()) / p.rate
		next = next.Add(time.Duration(gap * float64(time.Second)))
		if d := time.Until(next); d > 0 {
			timer.Reset(d)
			select {
			case <-stop:
				return true
			case <-timer.C:
			}
		} else {
			select {
			case <-stop:
				return true
			default:
			}
		}
		// The arrival is stamped when it enters the queue, as sysbench
		// does: the queue wait counts, the generator's own oversleep not.
		select {
		case p.queue <- time.Now():
		default:
			return false
		}
	}
}

// next waits for an arrival; it reports false when the run stops first.
func (p *pacer) next(stop <-chan struct{}) (time.Time, bool) {
	select {
	case at := <-p.queue:
		p.concurrency.Add(1)
		return at, true
	case <-stop:
		return time.Time{}, false
	}
}

// done marks the end of an event taken from the queue.
func (p *pacer) done() { p.concurrency.Add(-1) }
