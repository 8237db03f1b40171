//go:build !unix

package engine

import "time"

// cpuTime has no getrusage here; the benchmarks' cpu-µs/op metric reads 0 on this platform.
func cpuTime() time.Duration { return 0 }
