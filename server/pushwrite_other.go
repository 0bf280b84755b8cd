//go:build !linux

package server

import "net"

type pushIovec struct{}

// writeTaken writes the chunks the push writer took from pushQ with one
// blocking writev; done releases them all afterwards.
func (c *client) writeTaken(bufs [][]byte, nb *net.Buffers) (int64, int, error) {
	return c.writeTakenBlocking(bufs, nb)
}
