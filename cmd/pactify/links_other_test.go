//go:build !unix

package main

// specialPlants: FIFOs and device files are Unix's; a Windows checkout
// cannot hold them.
func specialPlants() []plant { return nil }
