//go:build race

package engine

// raceEnabled reports whether the race detector is on; the slowest streaming tests skip then
// (they test memory bounds, not concurrency).
const raceEnabled = true
