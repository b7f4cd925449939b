// Package cqltext tells kinds of CQL statements apart by their text: what
// a retry policy needs to know whether sending one again could apply it
// twice.
package cqltext
