//go:build race

package main

// raceEnabled: the race detector's shadow memory raises every process's
// resident size, so memory bounds are checked against a baseline then.
const raceEnabled = true
