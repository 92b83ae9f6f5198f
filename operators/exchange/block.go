package exchange

import (
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"math"
)

// A block is one framed, checksummed, compressed Arrow IPC stream holding
// some records of one reduce partition. Layout (integers big-endian):
//
//	offset size
//	0      4    magic "HXB1"
//	4      1    codec id (0 none, 1 lz4, 2 snappy)
//	5      3    reserved, zero
//	8      4    reduce partition
//	12     4    uncompressed (IPC stream) length
//	16     4    stored (payload) length
//	20     4    CRC-32C of bytes 0..19 followed by the payload
//	24     n    payload
const (
	blockMagic      = "HXB1"
	blockHeaderSize = 24
	// maxBlockSize caps stored and uncompressed lengths (uint32 fields, and
	// an int on every platform).
	maxBlockSize = math.MaxInt32
)

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

type blockHeader struct {
	codec     byte
	partition uint32
	rawLen    uint32
	storedLen uint32
	crc       uint32
}

// putBlockHeader writes the header for payload into hdr (24 bytes),
// computing the checksum over the header and the payload.
func putBlockHeader(hdr []byte, codec byte, partition int, rawLen int, payload []byte) {
	copy(hdr[0:4], blockMagic)
	hdr[4] = codec
	hdr[5], hdr[6], hdr[7] = 0, 0, 0
	binary.BigEndian.PutUint32(hdr[8:], uint32(partition))
	binary.BigEndian.PutUint32(hdr[12:], uint32(rawLen))
	binary.BigEndian.PutUint32(hdr[16:], uint32(len(payload)))
	crc := crc32.Update(crc32.Checksum(hdr[:20], castagnoli), castagnoli, payload)
	binary.BigEndian.PutUint32(hdr[20:], crc)
}

// parseBlockHeader validates the fixed part of a header. The reason it
// returns names what was wrong.
func parseBlockHeader(hdr []byte) (blockHeader, error) {
	if len(hdr) < blockHeaderSize {
		return blockHeader{}, fmt.Errorf("truncated block header: %d of %d bytes", len(hdr), blockHeaderSize)
	}
	if string(hdr[0:4]) != blockMagic {
		return blockHeader{}, fmt.Errorf("bad block magic %q (want %q)", hdr[0:4], blockMagic)
	}
	h := blockHeader{
		codec:     hdr[4],
		partition: binary.BigEndian.Uint32(hdr[8:]),
		rawLen:    binary.BigEndian.Uint32(hdr[12:]),
		storedLen: binary.BigEndian.Uint32(hdr[16:]),
		crc:       binary.BigEndian.Uint32(hdr[20:]),
	}
	if hdr[5] != 0 || hdr[6] != 0 || hdr[7] != 0 {
		return h, fmt.Errorf("reserved header bytes not zero")
	}
	if h.codec > wireSnappy {
		return h, fmt.Errorf("unknown codec id %d", h.codec)
	}
	if h.rawLen > maxBlockSize || h.storedLen > maxBlockSize {
		return h, fmt.Errorf("block length %d/%d too large", h.rawLen, h.storedLen)
	}
	if uint64(h.rawLen) > uint64(h.storedLen)*maxExpansion+64 {
		return h, fmt.Errorf("block claims %d uncompressed bytes from %d stored (more than %d:1)", h.rawLen, h.storedLen, maxExpansion)
	}
	return h, nil
}

// openBlock checks the checksum of a block (header hdr, payload stored) and
// returns its uncompressed IPC bytes, in scratch when it is large enough.
func openBlock(hdr []byte, h blockHeader, stored []byte, scratch []byte) ([]byte, error) {
	crc := crc32.Update(crc32.Checksum(hdr[:20], castagnoli), castagnoli, stored)
	if crc != h.crc {
		return nil, fmt.Errorf("checksum mismatch: stored %08x, computed %08x", h.crc, crc)
	}
	raw := grow(scratch, int(h.rawLen))
	if err := decompress(h.codec, stored, raw); err != nil {
		return nil, err
	}
	return raw, nil
}

// decodeBlock parses one whole block at the start of b and returns its
// header, uncompressed bytes and the bytes after it. It is the in-memory
// form of what the reader does with a file; fuzzed.
func decodeBlock(b []byte) (blockHeader, []byte, []byte, error) {
	h, err := parseBlockHeader(b)
	if err != nil {
		return h, nil, nil, err
	}
	end := blockHeaderSize + int(h.storedLen)
	if len(b) < end {
		return h, nil, nil, fmt.Errorf("truncated block: payload of %d bytes, %d present", h.storedLen, len(b)-blockHeaderSize)
	}
	raw, err := openBlock(b[:blockHeaderSize], h, b[blockHeaderSize:end], nil)
	if err != nil {
		return h, nil, nil, err
	}
	return h, raw, b[end:], nil
}
