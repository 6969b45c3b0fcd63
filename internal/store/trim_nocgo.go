//go:build !cgo

package store

func trimHeap() {}
