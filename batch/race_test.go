//go:build race

package batch

// raceEnabled: the race detector multiplies the CPU each delegation costs
// (about 5× here), which on two cores eats into the scale test's budget.
const raceEnabled = true
